/** Helpers of the diff limits tests (diff-limits.test.ts, diff-limits-files.node.test.ts). */
import { expect } from 'vitest';
import { api, unique, type TestUser } from '../support';

export interface Setup {
  project: number;
  sha: string;
  iid: number;
  version: number;
}

/** A project of `owner` whose `main` has one file, a branch that adds `files` in one commit, and a merge request of it. */
export const setupFor = (owner: TestUser) => async (files: Record<string, string>): Promise<Setup> => {
  const p = await api('/projects', { token: owner.token, body: { name: unique('difflim') } });
  expect(p.status).toBe(201);
  const project = p.body.id as number;
  const first = await api(`/projects/${project}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'seed', actions: [{ action: 'create', file_path: 'seed.txt', content: 'seed\n' }] } });
  expect(first.status).toBe(201);
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
  const second = await api(`/projects/${project}/repository/commits`, { token: owner.token, body: { branch: 'topic', start_branch: 'main', commit_message: 'big', actions } });
  expect(second.status).toBe(201);
  const mr = await api(`/projects/${project}/merge_requests`, { token: owner.token, body: { source_branch: 'topic', target_branch: 'main', title: 'limits' } });
  expect(mr.status).toBe(201);
  const versions = await api(`/projects/${project}/merge_requests/${mr.body.iid}/versions`, { token: owner.token });
  expect(versions.status).toBe(200);
  return { project, sha: second.body.id, iid: mr.body.iid, version: versions.body[0].id };
};
