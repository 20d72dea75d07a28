/** A private project with a guest, a reporter, a developer and a maintainer, and a stranger: made through the API. */
import { api, createUser, type TestUser, unique } from '../support';

export interface DeployWorld {
  owner: TestUser;
  guest: TestUser;
  reporter: TestUser;
  developer: TestUser;
  maintainer: TestUser;
  stranger: TestUser;
  project: { id: number; path_with_namespace: string };
}

export async function deployWorld(): Promise<DeployWorld> {
  const [owner, guest, reporter, developer, maintainer, stranger] = await Promise.all(Array.from({ length: 6 }, () => createUser()));
  const res = await api('/projects', { token: owner.token, body: { name: unique('env'), visibility: 'private' } });
  if (res.status !== 201) throw new Error(`project: ${res.status} ${res.text}`);
  for (const [u, level] of [[guest, 10], [reporter, 20], [developer, 30], [maintainer, 40]] as const) {
    const m = await api(`/projects/${res.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    if (m.status !== 201) throw new Error(`member: ${m.status} ${m.text}`);
  }
  // Each caller signed in once, so round trips are measured warm (issue 13: a cold caller costs one more).
  await Promise.all([guest, reporter, developer, maintainer, stranger].map((u) => api('/user', { token: u.token })));
  return { owner, guest, reporter, developer, maintainer, stranger, project: res.body };
}

export async function createEnvironment(w: DeployWorld, body: Record<string, unknown>) {
  const res = await api(`/projects/${w.project.id}/environments`, { token: w.developer.token, body });
  if (res.status !== 201) throw new Error(`environment: ${res.status} ${res.text}`);
  return res.body as { id: number; name: string; slug: string; tier: string; state: string };
}

/** A commit on `branch` (created from nothing or from its head), through the commits API; its sha. */
export async function commit(w: DeployWorld, branch = 'main'): Promise<string> {
  const res = await api(`/projects/${w.project.id}/repository/commits`, {
    token: w.owner.token,
    body: { branch, commit_message: 'deploy me', actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x' }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body.id as string;
}
