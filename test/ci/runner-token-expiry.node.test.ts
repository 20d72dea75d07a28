/**
 * Issue 14: a runner token past its `token_expires_at` is refused like an unknown one, even while
 * this isolate has the runner cached, and it cannot reset itself either (gitlab-runner resets its
 * token before 75 % of the lifetime has passed). Node only: the clock is moved with fake timers.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { api, rootToken } from '../support';
import { runnerWorld } from './runner-fixtures';

const runner = (path: string, body: Record<string, unknown>) => api(path, { method: 'POST', body });

afterEach(() => vi.useRealTimers());

it('refuses an expired authentication token everywhere, cached or not', async () => {
  const reg = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token;
  await api('/application/settings', { method: 'PUT', token: rootToken, body: { runner_token_expiration_interval: 86400 } });
  let token: string;
  try {
    token = (await runner('/runners', { token: reg })).body.token;
  } finally {
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { runner_token_expiration_interval: null } });
  }
  // Known to this isolate (cached) before it expires.
  expect((await runner('/runners/verify', { token })).status).toBe(200);
  expect((await runner('/jobs/request', { token })).status).toBe(204);
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86400_000 + 1000 });
  expect((await runner('/runners/verify', { token })).body).toEqual({ message: '403 Forbidden' });
  expect((await runner('/jobs/request', { token })).status).toBe(403);
  expect((await runner('/runners/reset_authentication_token', { token })).status).toBe(403);
});

it("refuses a group or project runner's token once its type's interval has passed, not before", async () => {
  const w = await runnerWorld();
  await api('/application/settings', { method: 'PUT', token: rootToken, body: { group_runner_token_expiration_interval: 2 * 86400, project_runner_token_expiration_interval: 3 * 86400 } });
  let group: string;
  let project: string;
  try {
    group = (await runner('/runners', { token: w.groupToken })).body.token;
    project = (await runner('/runners', { token: w.projectToken })).body.token;
  } finally {
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { group_runner_token_expiration_interval: null, project_runner_token_expiration_interval: null } });
  }
  const start = Date.now();
  expect((await runner('/jobs/request', { token: group })).status).toBe(204);
  expect((await runner('/jobs/request', { token: project })).status).toBe(204);
  // Past the group interval, before the project one.
  vi.useFakeTimers({ toFake: ['Date'], now: start + 2 * 86400_000 + 1000 });
  expect((await runner('/runners/verify', { token: group })).body).toEqual({ message: '403 Forbidden' });
  expect((await runner('/jobs/request', { token: group })).status).toBe(403);
  expect((await runner('/runners/verify', { token: project })).status).toBe(200);
  vi.setSystemTime(start + 3 * 86400_000 + 1000);
  expect((await runner('/jobs/request', { token: project })).status).toBe(403);
});
