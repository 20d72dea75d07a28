/**
 * Issue 13: a project's issue list sends its page and count with the project lookup when the caller
 * listed the project before (src/issues/issue-list-speculation.ts), then reads what the entities
 * show by the page's ids: a filtered list costs two round trips, an empty one a single round trip,
 * and the answer is the one the first request (the usual plan) gave. A guess that no longer holds
 * (the caller's level crossed Planner) is dropped and the list answered afresh.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let dev: TestUser;
let viewer: TestUser;
let project: { id: number };
let word: string;
let label: string;

beforeAll(async () => {
  owner = await createUser();
  dev = await createUser();
  viewer = await createUser();
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } })).body;
  for (const [user, level] of [[dev, 30], [viewer, 10]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: user.id, access_level: level } })).status).toBe(201);
  }
  word = unique('needle');
  label = unique('l');
  for (let i = 0; i < 5; i++) {
    const res = await api(`/projects/${project.id}/issues`, {
      token: owner.token,
      body: { title: `${i % 2 ? word : 'plain'} ${i}`, labels: i < 3 ? `${label},other` : 'other', assignee_ids: i % 2 ? [dev.id] : [], confidential: i === 4 },
    });
    expect(res.status, res.text).toBe(201);
  }
}, 60_000);

describe('project issue list: the page with the project lookup', () => {
  it('a repeated filtered list costs two round trips (one when empty) and answers the same', async () => {
    const queries = [
      '',
      '?created_after=2000-01-01T00:00:00Z&state=opened',
      `?labels=${label}`,
      `?labels=${label},other&per_page=2&page=2`,
      `?assignee_id=${dev.id}`,
      `?search=${word}`,
      `?search=${word}&in=title&order_by=updated_at&sort=asc`,
      '?created_after=2999-01-01T00:00:00Z',
      `?labels=${label}&assignee_id=${dev.id}&not[labels]=other`,
    ];
    for (const q of queries) {
      const url = `/projects/${project.id}/issues${q}`;
      const first = await api(url, { token: dev.token });
      expect(first.status, first.text).toBe(200);
      const again = await api(url, { token: dev.token });
      expect(again.status, again.text).toBe(200);
      expect(again.body, q).toEqual(first.body);
      expect(again.headers.get('x-total'), q).toBe(first.headers.get('x-total'));
      expect(again.headers.get('x-total-pages'), q).toBe(first.headers.get('x-total-pages'));
      expect(again.headers.get('link'), q).toBe(first.headers.get('link'));
      expect(trips(again), q).toBe(again.body.length ? 2 : 1);
    }
    // The answers themselves (not only their agreement).
    const labelled = await api(`/projects/${project.id}/issues?labels=${label}`, { token: dev.token });
    expect(labelled.body.map((i: { title: string }) => i.title).sort()).toEqual([`${word} 1`, 'plain 0', 'plain 2']);
    const searched = await api(`/projects/${project.id}/issues?search=${word}`, { token: dev.token });
    expect(searched.body.map((i: { title: string }) => i.title).sort()).toEqual([`${word} 1`, `${word} 3`]);
    expect(searched.body.every((i: { assignees: { id: number }[] }) => i.assignees[0]?.id === dev.id)).toBe(true);
  });

  it('a caller promoted past Planner sees the confidential issue on the next list', async () => {
    const url = `/projects/${project.id}/issues?labels=other`;
    const before = await api(url, { token: viewer.token });
    expect(before.status, before.text).toBe(200);
    expect(before.body.map((i: { title: string }) => i.title)).not.toContain('plain 4');
    expect(before.headers.get('x-total')).toBe('4');
    const put = await api(`/projects/${project.id}/members/${viewer.id}`, { method: 'PUT', token: owner.token, body: { access_level: 20 } });
    expect(put.status, put.text).toBe(200);
    const after = await api(url, { token: viewer.token });
    expect(after.status, after.text).toBe(200);
    expect(after.body.map((i: { title: string }) => i.title)).toContain('plain 4');
    expect(after.headers.get('x-total')).toBe('5');
    expect(trips(after)).toBeLessThanOrEqual(2);
  });
});
