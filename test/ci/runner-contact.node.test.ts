/**
 * Issue 14: a polling runner's contact is persisted at most once per 40-55 minutes (GitLab's
 * UPDATE_CONTACT_COLUMN_EVERY, a random age per write); between writes only the isolate knows it.
 * Node only: the wall clock is moved with fake timers while the isolate caches' clock stands still,
 * so the runner stays cached and each poll's round trips are the contact writes alone.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { setCacheClock } from '../../src/platform/isolate-cache';
import { api, rootToken } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const poll = (token: string) => api('/jobs/request', { method: 'POST', body: { token, info: { name: 'gitlab-runner', version: '17.5.0' } } });
const MINUTE = 60_000;

afterEach(() => {
  vi.useRealTimers();
  setCacheClock(null);
});

it('writes contacted_at on the first contact, then not before 40 minutes, always after 55', async () => {
  const reg = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token;
  const { token } = (await api('/runners', { method: 'POST', body: { token: reg } })).body;
  const t0 = Date.now();
  setCacheClock(() => t0);
  vi.useFakeTimers({ toFake: ['Date'], now: t0 });
  // First contact: the runner is read and its contact written.
  expect(trips(await poll(token))).toBe(2);
  expect(trips(await poll(token))).toBe(0);
  for (const minutes of [1, 20, 39.9]) {
    vi.setSystemTime(t0 + minutes * MINUTE);
    expect(trips(await poll(token))).toBe(0);
  }
  // Past the longest interval: written once, and the next 40 minutes are quiet again.
  vi.setSystemTime(t0 + 55.1 * MINUTE);
  expect(trips(await poll(token))).toBe(1);
  expect(trips(await poll(token))).toBe(0);
  vi.setSystemTime(t0 + (55.1 + 39.9) * MINUTE);
  expect(trips(await poll(token))).toBe(0);
});
