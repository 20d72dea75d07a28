/**
 * Issue 14, polling that scales: the runner behind a known token is cached per isolate
 * (src/ci/runner-tokens.ts), so `POST /runners/verify` and `POST /jobs/request` send no storage round
 * trip (no runner read, no settings read, no contact write), and every write to the runner drops its
 * entry at once: a cached token that was reset or unregistered is refused on the very next call.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const runner = (path: string, body: Record<string, unknown>) => api(path, { method: 'POST', body, headers: { 'RUNNER-TOKEN': String(body.token) } });
const INFO = { name: 'gitlab-runner', version: '17.5.0', revision: '1d3ef4c3', platform: 'linux', architecture: 'amd64', executor: 'shell', features: { variables: true } };

async function registered(): Promise<{ id: number; token: string }> {
  const reg = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token;
  const res = await runner('/runners', { token: reg, info: INFO });
  expect(res.status).toBe(201);
  return res.body;
}

/** The runner's first contact (read, contact written), then cached: the next calls cost nothing. */
async function warmed(token: string) {
  const first = await runner('/runners/verify', { token, system_id: 's_000000000001', info: INFO });
  expect(first.status).toBe(200);
  expect(trips(first)).toBeGreaterThan(0);
}

describe('runner polling without storage', () => {
  it('verifies and polls a cached runner with no round trip, with or without last_update', async () => {
    const { id, token } = await registered();
    await warmed(token);
    for (let i = 0; i < 3; i++) {
      const verified = await runner('/runners/verify', { token, system_id: 's_000000000001', info: INFO });
      expect(verified.body).toEqual({ id, token, token_expires_at: null });
      expect(trips(verified)).toBe(0);
    }
    const polled = await runner('/jobs/request', { token, system_id: 's_000000000001', info: INFO });
    expect(polled.status).toBe(204);
    expect(trips(polled)).toBe(0);
    const echoed = await runner('/jobs/request', { token, system_id: 's_000000000001', info: INFO, last_update: polled.headers.get('x-gitlab-last-update') });
    expect(echoed.status).toBe(204);
    expect(trips(echoed)).toBe(0);
    // The token from the header alone, as newer runners may send it.
    const byHeader = await api('/jobs/request', { method: 'POST', body: {}, headers: { 'RUNNER-TOKEN': token } });
    expect(byHeader.status).toBe(204);
    expect(trips(byHeader)).toBe(0);
  });

  it('writes what the runner reports when it changes, and only then', async () => {
    const { token } = await registered();
    await warmed(token);
    expect(trips(await runner('/jobs/request', { token, info: INFO }))).toBe(0);
    // An upgraded runner: its version is stored with the next contact (one write), then cached again.
    const upgraded = { ...INFO, version: '17.6.0' };
    expect(trips(await runner('/jobs/request', { token, info: upgraded }))).toBe(1);
    expect(trips(await runner('/jobs/request', { token, info: upgraded }))).toBe(0);
  });

  it('drops the cached runner when its token is reset: the old token is refused on the next call', async () => {
    const { id, token } = await registered();
    await warmed(token);
    expect(trips(await runner('/jobs/request', { token }))).toBe(0);
    const reset = await runner('/runners/reset_authentication_token', { token });
    expect(reset.status).toBe(201);
    expect((await runner('/jobs/request', { token })).body).toEqual({ message: '403 Forbidden' });
    expect((await runner('/runners/verify', { token })).status).toBe(403);
    // The new token reads the runner once, then it is cached again.
    expect((await runner('/runners/verify', { token: reset.body.token })).body).toMatchObject({ id });
    expect(trips(await runner('/jobs/request', { token: reset.body.token }))).toBe(0);
  });

  it('drops the cached runner when it unregisters: its token is refused on the next call', async () => {
    const { token } = await registered();
    await warmed(token);
    expect(trips(await runner('/runners/verify', { token }))).toBe(0);
    expect((await api('/runners', { method: 'DELETE', body: { token } })).status).toBe(204);
    expect((await runner('/runners/verify', { token })).status).toBe(403);
    expect((await runner('/jobs/request', { token })).status).toBe(403);
  });
});

describe('runners removed with their project or group', () => {
  it('are refused at once, even while this isolate had them cached', async () => {
    const owner = await createUser();
    const group = (await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g') } })).body;
    const project = (await api('/projects', { token: owner.token, body: { name: unique('p') } })).body;
    const groupRunner = (await api('/user/runners', { method: 'POST', token: owner.token, body: { runner_type: 'group_type', group_id: group.id } })).body.token;
    const projectRunner = (await api('/user/runners', { method: 'POST', token: owner.token, body: { runner_type: 'project_type', project_id: project.id } })).body.token;
    const { token: instanceRunner } = await registered();
    for (const token of [groupRunner, projectRunner, instanceRunner]) {
      await warmed(token);
      expect(trips(await runner('/jobs/request', { token }))).toBe(0);
    }
    expect((await api(`/projects/${project.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect((await runner('/jobs/request', { token: projectRunner })).status).toBe(403);
    expect((await runner('/runners/verify', { token: groupRunner })).status).toBe(200);
    expect((await api(`/groups/${group.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect((await runner('/runners/verify', { token: groupRunner })).status).toBe(403);
    // Other runners stay, read once more into the emptied cache.
    expect((await runner('/jobs/request', { token: instanceRunner })).status).toBe(204);
    expect(trips(await runner('/jobs/request', { token: instanceRunner }))).toBe(0);
  });
});
