/**
 * Issue 14: the runner-facing API as gitlab-runner speaks it (reference gitlab-behaviour-2.md 5.4):
 * registration with the instance's, a project's or a group's registration token, verify, polling
 * `jobs/request` (204 with the queue stamp, no storage round trip for a known runner), token reset
 * and unregistering; and the registration token resets.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
/** What gitlab-runner sends with every request (network/client.go). */
const RUNNER_HEADERS = { 'User-Agent': 'gitlab-runner 16.11.0 (16-11-stable; go1.21.9; linux/amd64)' };
const runner = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => api(path, { method: 'POST', body, headers: { ...RUNNER_HEADERS, ...headers } });
const INFO = { name: 'gitlab-runner', version: '16.11.0', revision: '91a27b2a', platform: 'linux', architecture: 'amd64', executor: 'shell', features: { variables: true } };

async function instanceRegistrationToken(): Promise<string> {
  const res = await api('/runners/reset_registration_token', { method: 'POST', token: rootToken });
  expect(res.status).toBe(201);
  return res.body.token;
}

describe('registration tokens', () => {
  it('are reset by the administrator, a project maintainer and a group owner, shown once with GitLab\'s prefix', async () => {
    const instance = await api('/runners/reset_registration_token', { method: 'POST', token: rootToken });
    expect(instance.status).toBe(201);
    expect(Object.keys(instance.body)).toEqual(['token']);
    expect(instance.body.token).toMatch(/^GR1348941[A-Za-z0-9_-]{20}$/);
    const again = await api('/runners/reset_registration_token', { method: 'POST', token: rootToken });
    expect(again.body.token).not.toBe(instance.body.token);
    // The replaced token registers nothing any more.
    expect((await runner('/runners', { token: instance.body.token })).status).toBe(403);

    const owner = await createUser();
    const developer = await createUser();
    const project = (await api('/projects', { token: owner.token, body: { name: unique('ci') } })).body;
    await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } });
    const byOwner = await api(`/projects/${project.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token });
    expect(byOwner.status).toBe(201);
    expect(byOwner.body.token).toMatch(/^GR1348941/);
    expect((await api(`/projects/${project.id}/runners/reset_registration_token`, { method: 'POST', token: developer.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api('/runners/reset_registration_token', { method: 'POST', token: owner.token })).status).toBe(403);
    expect((await api('/runners/reset_registration_token', { method: 'POST' })).status).toBe(401);

    const group = (await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g') } })).body;
    await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 40 } });
    expect((await api(`/groups/${group.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token })).status).toBe(201);
    expect((await api(`/groups/${group.id}/runners/reset_registration_token`, { method: 'POST', token: developer.token })).body).toEqual({ message: '403 Forbidden' });
  });
});

describe('the runner-facing API', () => {
  it('registers a runner with a registration token and answers its authentication token once', async () => {
    const reg = await instanceRegistrationToken();
    const res = await runner('/runners', { token: reg, description: 'ci box', tag_list: 'docker,linux', run_untagged: false, locked: true, info: INFO });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['id', 'token', 'token_expires_at']);
    expect(res.body).toMatchObject({ id: expect.any(Number), token: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/), token_expires_at: null });
    // The token works; the registration token is not an authentication token.
    expect((await runner('/runners/verify', { token: res.body.token })).status).toBe(200);
    expect((await runner('/runners/verify', { token: reg })).status).toBe(403);
  });

  it("refuses an unknown registration token, a missing one, and GitLab's invalid runners", async () => {
    const reg = await instanceRegistrationToken();
    expect((await runner('/runners', { token: 'GR1348941nope' })).body).toEqual({ message: '403 Forbidden' });
    expect((await runner('/runners', { description: 'x' })).body).toEqual({ error: 'token is missing' });
    expect((await runner('/runners', { token: reg, run_untagged: false })).body).toEqual({ message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } });
    expect((await runner('/runners', { token: reg, maximum_timeout: 599 })).body).toEqual({ message: { maximum_timeout: ['needs to be at least 10 minutes'] } });
    expect((await runner('/runners', { token: reg, maintenance_note: 'x'.repeat(1025) })).body).toEqual({ message: { maintenance_note: ['is too long (maximum is 1024 characters)'] } });
    expect((await runner('/runners', { token: reg, tag_list: Array.from({ length: 51 }, (_, i) => `t${i}`).join(',') })).body).toEqual({
      message: { tags_list: ['Too many tags specified. Please limit the number of tags to 50'] },
    });
    expect((await runner('/runners', { token: reg, active: true, paused: false })).body).toEqual({ error: 'active, paused are mutually exclusive' });
    expect((await runner('/runners', { token: reg, access_level: 'everything' })).body).toEqual({ error: 'access_level does not have a valid value' });
  });

  it('registers project and group runners only where valid_runner_registrars allows', async () => {
    const owner = await createUser();
    const project = (await api('/projects', { token: owner.token, body: { name: unique('ci') } })).body;
    const group = (await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g') } })).body;
    const projectToken = (await api(`/projects/${project.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token })).body.token;
    const groupToken = (await api(`/groups/${group.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token })).body.token;
    expect((await runner('/runners', { token: projectToken })).status).toBe(201);
    expect((await runner('/runners', { token: groupToken })).status).toBe(201);
    const settings = await api('/application/settings', { method: 'PUT', token: rootToken, body: { valid_runner_registrars: ['group'] } });
    expect(settings.body.valid_runner_registrars).toEqual(['group']);
    try {
      expect((await runner('/runners', { token: projectToken })).body).toEqual({ message: '403 Forbidden' });
      expect((await runner('/runners', { token: groupToken })).status).toBe(201);
      // The instance's token is always valid.
      expect((await runner('/runners', { token: await instanceRegistrationToken() })).status).toBe(201);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { valid_runner_registrars: ['project', 'group'] } });
    }
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { valid_runner_registrars: ['instance'] } })).status).toBe(400);
  });

  it('gives tokens an expiry from runner_token_expiration_interval', async () => {
    const reg = await instanceRegistrationToken();
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { runner_token_expiration_interval: 86400 } });
    try {
      const before = Date.now();
      const res = await runner('/runners', { token: reg });
      const at = Date.parse(res.body.token_expires_at);
      expect(at).toBeGreaterThanOrEqual(before + 86400_000 - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 86400_000 + 1000);
      const reset = await runner('/runners/reset_authentication_token', { token: res.body.token });
      expect(Date.parse(reset.body.token_expires_at)).toBeGreaterThanOrEqual(at);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { runner_token_expiration_interval: null } });
    }
  });

  it('verifies a token from the body or the RUNNER-TOKEN header', async () => {
    const { token, id } = (await runner('/runners', { token: await instanceRegistrationToken() })).body;
    const verified = await runner('/runners/verify', { token, system_id: 's_0123456789ab', info: INFO });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ id, token, token_expires_at: null });
    expect((await runner('/runners/verify', {}, { 'RUNNER-TOKEN': token })).body).toEqual({ id, token, token_expires_at: null });
    expect((await runner('/runners/verify', { token: 'nope' })).body).toEqual({ message: '403 Forbidden' });
    expect((await runner('/runners/verify', {})).body).toEqual({ error: 'token is missing' });
  });

  it('answers a poll with 204 and the queue stamp, at once when last_update is current, without storage once the runner is known', async () => {
    const { token } = (await runner('/runners', { token: await instanceRegistrationToken() })).body;
    const first = await runner('/jobs/request', { token, info: INFO });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    const stamp = first.headers.get('x-gitlab-last-update');
    expect(stamp).toMatch(/^[0-9a-f]{32}$/);
    const again = await runner('/jobs/request', { token, last_update: stamp, info: INFO });
    expect(again.status).toBe(204);
    expect(again.headers.get('x-gitlab-last-update')).toBe(stamp);
    // The runner and its contact are known to this isolate: the poll costs no round trip.
    expect(trips(again)).toBe(0);
    expect((await runner('/jobs/request', {}, { 'RUNNER-TOKEN': token })).status).toBe(204);
    expect((await runner('/jobs/request', { token: 'nope' })).body).toEqual({ message: '403 Forbidden' });
  });

  it('resets its own authentication token: the old one stops working', async () => {
    const { token, id } = (await runner('/runners', { token: await instanceRegistrationToken() })).body;
    await runner('/runners/verify', { token });
    const reset = await runner('/runners/reset_authentication_token', { token });
    expect(reset.status).toBe(201);
    expect(Object.keys(reset.body)).toEqual(['token', 'token_expires_at']);
    expect(reset.body.token).not.toBe(token);
    expect((await runner('/runners/verify', { token })).status).toBe(403);
    expect((await runner('/runners/verify', { token: reset.body.token })).body).toMatchObject({ id });
    expect((await runner('/runners/reset_authentication_token', { token: 'nope' })).status).toBe(403);
  });

  it('unregisters with its token (204); the token is refused afterwards', async () => {
    const { token } = (await runner('/runners', { token: await instanceRegistrationToken() })).body;
    await runner('/jobs/request', { token });
    const gone = await api('/runners', { method: 'DELETE', body: { token }, headers: RUNNER_HEADERS });
    expect(gone.status).toBe(204);
    expect((await runner('/runners/verify', { token })).status).toBe(403);
    expect((await runner('/jobs/request', { token })).status).toBe(403);
    expect((await api('/runners', { method: 'DELETE', body: { token }, headers: RUNNER_HEADERS })).status).toBe(403);
  });

  it('goes with a deleted project or group: its registration token, and the runners left with nothing to run for', async () => {
    const owner = await createUser();
    const keep = (await api('/projects', { token: owner.token, body: { name: unique('keep') } })).body;
    const doomed = (await api('/projects', { token: owner.token, body: { name: unique('doomed') } })).body;
    const group = (await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g') } })).body;
    const projectToken = (await api(`/projects/${doomed.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token })).body.token;
    const groupToken = (await api(`/groups/${group.id}/runners/reset_registration_token`, { method: 'POST', token: owner.token })).body.token;
    // Registered but never polled: no isolate holds them (a cached runner is trusted for up to a minute).
    const projectRunner = (await runner('/runners', { token: projectToken })).body.token;
    const groupRunner = (await runner('/runners', { token: groupToken })).body.token;
    const instanceRunner = (await runner('/runners', { token: await instanceRegistrationToken() })).body.token;
    expect((await api(`/projects/${doomed.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect((await api(`/groups/${group.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    for (const token of [projectToken, groupToken]) expect((await runner('/runners', { token })).body).toEqual({ message: '403 Forbidden' });
    for (const token of [projectRunner, groupRunner]) expect((await runner('/runners/verify', { token })).status).toBe(403);
    expect((await runner('/runners/verify', { token: instanceRunner })).status).toBe(200);
    expect((await api(`/projects/${keep.id}`, { token: owner.token })).status).toBe(200);
  });
});
