/**
 * Commit messages are held to Gitlab::Database::MAX_TEXT_SIZE_LIMIT (1,000,000 characters) and author
 * fields to 255: a model-validation 400 and no commit written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let pid: number;

beforeAll(async () => {
  owner = await createUser();
  const p = await api('/projects', { token: owner.token, body: { name: unique('repo') } });
  expect(p.status).toBe(201);
  pid = p.body.id;
  const first = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] } });
  expect(first.status).toBe(201);
});

const headOf = async (branch: string) => (await api(`/projects/${pid}/repository/branches/${branch}`, { token: owner.token })).body.commit.id as string;

describe('POST /projects/:id/repository/commits', () => {
  it('refuses a message over 1,000,000 characters and writes nothing', async () => {
    const before = await headOf('main');
    const res = await api(`/projects/${pid}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'm'.repeat(1_000_001), actions: [{ action: 'create', file_path: 'b.txt', content: 'b\n' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { commit_message: ['is too long (maximum is 1000000 characters)'] } });
    expect(await headOf('main')).toBe(before);
    expect((await api(`/projects/${pid}/repository/files/b.txt?ref=main`, { token: owner.token })).status).toBe(404);
  });

  it('refuses an author name over 255 characters', async () => {
    const before = await headOf('main');
    const res = await api(`/projects/${pid}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'ok', author_name: 'a'.repeat(256), author_email: 'a@example.com', actions: [{ action: 'create', file_path: 'c.txt', content: 'c\n' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { author_name: ['is too long (maximum is 255 characters)'] } });
    expect(await headOf('main')).toBe(before);
  });
});
