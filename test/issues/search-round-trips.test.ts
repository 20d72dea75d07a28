/**
 * Issue 13: issue and merge request lists with `search=` a word most of them contain cost the same
 * storage round trips for a page of one and of a hundred, within the read budget (the caller cached).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
let owner: TestUser;
let P: string;
let G: string;
const word = unique('common');

async function commit(branch: string, start?: string) {
  const res = await api(`${P}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

beforeAll(async () => {
  owner = await createUser();
  const path = unique('g');
  const group = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
  G = `/groups/${group.id}`;
  const project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id } })).body;
  P = `/projects/${project.id}`;
  await commit('main');
  for (let i = 0; i < 6; i++) {
    expect((await api(`${P}/issues`, { token: owner.token, body: { title: `${word} issue ${i}`, description: i % 2 ? `also ${word}` : 'other' } })).status).toBe(201);
    const branch = unique('b');
    await commit(branch, 'main');
    expect((await api(`${P}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: `${word} mr ${i}` } })).status).toBe(201);
  }
}, 120_000);

describe('search lists', () => {
  it('cost the same for a page of one and of a hundred', async () => {
    for (const url of [`${P}/issues`, `${G}/issues`, '/issues?scope=all', `${P}/merge_requests`, `${G}/merge_requests`, '/merge_requests?scope=all']) {
      const sep = url.includes('?') ? '&' : '?';
      await api('/user', { token: owner.token });
      const one = await api(`${url}${sep}search=${word}&per_page=1`, { token: owner.token });
      await api('/user', { token: owner.token });
      const hundred = await api(`${url}${sep}search=${word}&per_page=100`, { token: owner.token });
      expect(hundred.status, url).toBe(200);
      expect(hundred.body, url).toHaveLength(6);
      expect(one.headers.get('x-total'), url).toBe('6');
      expect(trips(hundred), url).toBe(trips(one));
      expect(trips(hundred), url).toBeLessThanOrEqual(2);
    }
  });
});
