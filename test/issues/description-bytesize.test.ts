/**
 * Issuable descriptions are held to DESCRIPTION_LENGTH_MAX = 1 MB in UTF-8 bytes (BytesizeValidator),
 * not characters: 400,000 "€" (1.2 MB) are refused on issues and merge requests, and nothing is stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let pid: number;

const EUROS = '€'.repeat(400_000);
const MESSAGE = 'is too long (1.14 MB). The maximum size is 1 MB.';

beforeAll(async () => {
  owner = await createUser();
  const p = await api('/projects', { token: owner.token, body: { name: unique('p') } });
  expect(p.status).toBe(201);
  pid = p.body.id;
  const first = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] } });
  expect(first.status).toBe(201);
});

describe('issue descriptions', () => {
  it('refuses 1.2 MB of three-byte characters on create and creates no issue', async () => {
    const title = unique('big');
    const res = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title, description: EUROS } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: [MESSAGE] } });
    const list = await api(`/projects/${pid}/issues?search=${title}`, { token: owner.token });
    expect(list.body).toEqual([]);
  });

  it('takes exactly 1 MB of ASCII, refuses a multi-byte update and keeps the old description', async () => {
    const created = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('max'), description: 'a'.repeat(1_048_576) } });
    expect(created.status).toBe(201);
    const res = await api(`/projects/${pid}/issues/${created.body.iid}`, { method: 'PUT', token: owner.token, body: { description: EUROS } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: [MESSAGE] } });
    const back = await api(`/projects/${pid}/issues/${created.body.iid}`, { token: owner.token });
    expect(back.body.description).toHaveLength(1_048_576);
  });
});

describe('merge request descriptions', () => {
  it('refuses 1.2 MB of three-byte characters and opens no merge request', async () => {
    const branch = unique('f');
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
    const res = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { title: 'mr', source_branch: branch, target_branch: 'main', description: EUROS } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: [MESSAGE] } });
    expect((await api(`/projects/${pid}/merge_requests?source_branch=${branch}`, { token: owner.token })).body).toEqual([]);
  });
});
