/** Commit and merge commit messages are held to Gitlab::Database::MAX_TEXT_SIZE_LIMIT (1,000,000 characters). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let pid: number;
const tooLong = { message: { commit_message: ['is too long (maximum is 1000000 characters)'] } };

beforeAll(async () => {
  owner = await createUser();
  pid = (await api('/projects', { token: owner.token, body: { name: unique('cm') } })).body.id;
  const first = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
  expect(first.status).toBe(201);
});

describe('POST /projects/:id/repository/commits', () => {
  it('refuses a commit message over 1,000,000 characters and writes no commit', async () => {
    const res = await api(`/projects/${pid}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'm'.repeat(1_000_001), actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(tooLong);
    const head = await api(`/projects/${pid}/repository/commits/main`, { token: owner.token });
    expect(head.body.title).toBe('init');
  });

  it('refuses an author name over 255 characters', async () => {
    const res = await api(`/projects/${pid}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'x', author_name: 'n'.repeat(256), author_email: 'a@example.com', actions: [{ action: 'create', file_path: 'c.txt', content: 'c' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { author_name: ['is too long (maximum is 255 characters)'] } });
    expect((await api(`/projects/${pid}/repository/commits/main`, { token: owner.token })).body.title).toBe('init');
  });
});

describe('PUT /projects/:id/merge_requests/:iid/merge', () => {
  it('refuses a merge commit message over the cap and leaves the merge request open', async () => {
    const branch = unique('feat');
    await api(`/projects/${pid}/repository/commits`, {
      token: owner.token,
      body: { branch, start_branch: 'main', commit_message: 'feature', actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'f' }] },
    });
    const mr = (await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: 'feature' } })).body;
    const res = await api(`/projects/${pid}/merge_requests/${mr.iid}/merge`, { method: 'PUT', token: owner.token, body: { merge_commit_message: 'm'.repeat(1_000_001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { merge_commit_message: ['is too long (maximum is 1000000 characters)'] } });
    expect((await api(`/projects/${pid}/merge_requests/${mr.iid}`, { token: owner.token })).body.state).toBe('opened');
  });
});
