/**
 * Issue 14: a runner token's `token_expires_at` comes from the expiration interval of the runner's
 * type (Ci::Runner#compute_token_expiration): `runner_token_expiration_interval` for instance
 * runners, `group_runner_token_expiration_interval` for group runners and
 * `project_runner_token_expiration_interval` for project runners. The owners' own intervals
 * (namespace settings) are set by no REST endpoint, so the instance settings are all there is.
 * It applies to registration, to POST /user/runners and to both token resets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';
import { instanceToken, register, runnerWorld, type RunnerWorld } from './runner-fixtures';

const DAY = 86_400;
const INTERVALS = { runner_token_expiration_interval: 1 * DAY, group_runner_token_expiration_interval: 2 * DAY, project_runner_token_expiration_interval: 3 * DAY };
const NONE = { runner_token_expiration_interval: null, group_runner_token_expiration_interval: null, project_runner_token_expiration_interval: null };
const setIntervals = async (body: Record<string, number | null>) => expect((await api('/application/settings', { method: 'PUT', token: rootToken, body })).status).toBe(200);

/** Asserts `iso` lies `days` from the moment between `before` and now (second precision). */
function expiresIn(iso: string | null, days: number, before: number) {
  expect(iso).not.toBeNull();
  const at = Date.parse(iso!);
  expect(at).toBeGreaterThanOrEqual(before + days * DAY * 1000 - 1000);
  expect(at).toBeLessThanOrEqual(Date.now() + days * DAY * 1000 + 1000);
}

describe('token expiry by runner type', () => {
  let w: RunnerWorld;
  beforeAll(async () => {
    w = await runnerWorld();
  });
  afterAll(() => setIntervals(NONE));

  it('registers each type with its own interval, and shows the settings back', async () => {
    const instanceReg = await instanceToken();
    await setIntervals(INTERVALS);
    expect((await api('/application/settings', { token: rootToken })).body).toMatchObject(INTERVALS);
    const before = Date.now();
    const reg = (token: string) => api('/runners', { method: 'POST', body: { token } });
    expiresIn((await reg(instanceReg)).body.token_expires_at, 1, before);
    expiresIn((await reg(w.groupToken)).body.token_expires_at, 2, before);
    expiresIn((await reg(w.projectToken)).body.token_expires_at, 3, before);
  });

  it('applies to runners created with POST /user/runners', async () => {
    await setIntervals(INTERVALS);
    const before = Date.now();
    const create = (token: string, body: Record<string, unknown>) => api('/user/runners', { method: 'POST', token, body });
    expiresIn((await create(rootToken, { runner_type: 'instance_type' })).body.token_expires_at, 1, before);
    expiresIn((await create(w.owner.token, { runner_type: 'group_type', group_id: w.group.id })).body.token_expires_at, 2, before);
    expiresIn((await create(w.maintainer.token, { runner_type: 'project_type', project_id: w.project.id })).body.token_expires_at, 3, before);
  });

  it("leaves a type's tokens without expiry when only the other types' intervals are set", async () => {
    await setIntervals({ ...NONE, group_runner_token_expiration_interval: 2 * DAY });
    expect((await api('/runners', { method: 'POST', body: { token: w.projectToken } })).body.token_expires_at).toBeNull();
    expect((await api('/runners', { method: 'POST', body: { token: await instanceToken() } })).body.token_expires_at).toBeNull();
    await setIntervals({ ...NONE, project_runner_token_expiration_interval: 3 * DAY });
    expect((await api('/runners', { method: 'POST', body: { token: w.groupToken } })).body.token_expires_at).toBeNull();
  });

  it("gives a reset token the interval of the runner's type, by the runner or by its owner", async () => {
    await setIntervals(NONE);
    const group = await register(w.groupToken);
    const project = await register(w.projectToken);
    expect((await api(`/runners/${group.id}`, { token: w.owner.token })).status).toBe(200);
    await setIntervals(INTERVALS);
    const before = Date.now();
    const byRunner = await api('/runners/reset_authentication_token', { method: 'POST', body: { token: group.token } });
    expect(byRunner.status).toBe(201);
    expiresIn(byRunner.body.token_expires_at, 2, before);
    const byOwner = await api(`/runners/${project.id}/reset_authentication_token`, { method: 'POST', token: w.maintainer.token });
    expect(byOwner.status).toBe(201);
    expiresIn(byOwner.body.token_expires_at, 3, before);
    // The verify answer carries the same expiry.
    expect((await api('/runners/verify', { method: 'POST', body: { token: byOwner.body.token } })).body.token_expires_at).toBe(byOwner.body.token_expires_at);
  });
});
