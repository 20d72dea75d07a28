/** Runners for the user-facing tests, registered as gitlab-runner registers them (state made through the API). */
import { expect } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

export const register = async (registrationToken: string, body: Record<string, unknown> = {}) => {
  const res = await api('/runners', { method: 'POST', body: { token: registrationToken, ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; token: string };
};

export const instanceToken = async () => (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token as string;

export interface RunnerWorld {
  owner: TestUser;
  maintainer: TestUser;
  developer: TestUser;
  stranger: TestUser;
  group: { id: number; full_path: string; name: string };
  project: { id: number; name: string; path_with_namespace: string };
  other: { id: number };
  projectToken: string;
  groupToken: string;
}

/** A group owned by `owner` with a project in it (maintainer, developer members), another project of the owner, and their registration tokens. */
export async function runnerWorld(): Promise<RunnerWorld> {
  const [owner, maintainer, developer, stranger] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const path = unique('rg');
  const group = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
  const project = (await api('/projects', { token: owner.token, body: { name: unique('rp'), namespace_id: group.id } })).body;
  const other = (await api('/projects', { token: owner.token, body: { name: unique('ro') } })).body;
  await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } });
  await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } });
  const projectToken = (await api(`/projects/${project.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token })).body.token;
  const groupToken = (await api(`/groups/${group.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token })).body.token;
  return { owner, maintainer, developer, stranger, group, project, other, projectToken, groupToken };
}

/** Every response body as text must not carry a runner's authentication token. */
export const noToken = (res: { text: string }, ...tokens: string[]) => {
  for (const t of tokens) expect(res.text).not.toContain(t);
};
