/**
 * Issue 14: `online` and `status` follow the contact window (Ci::Runner::ONLINE_CONTACT_TIMEOUT, 2
 * hours): a runner silent for longer is offline (paused wins over offline), and the list filters
 * see it the same way. Node only: the clock is moved with fake timers.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../support';
import { register, runnerWorld } from './runner-fixtures';

afterEach(() => vi.useRealTimers());

it('turns offline two hours after the last contact, paused when paused', async () => {
  const w = await runnerWorld();
  const active = await register(w.projectToken);
  const paused = await register(w.projectToken, { paused: true });
  for (const r of [active, paused]) expect((await api('/runners/verify', { method: 'POST', body: { token: r.token } })).status).toBe(200);
  const ids = async (q: string) => (await api(`/runners?${q}`, { token: w.owner.token })).body.map((r: { id: number }) => r.id);
  expect(await ids('status=online')).toEqual([active.id, paused.id]);
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2 * 3600_000 + 1000 });
  expect((await api(`/runners/${active.id}`, { token: w.owner.token })).body).toMatchObject({ online: false, status: 'offline' });
  expect((await api(`/runners/${paused.id}`, { token: w.owner.token })).body).toMatchObject({ online: false, status: 'paused' });
  expect(await ids('status=online')).toEqual([]);
  expect(await ids('status=offline')).toEqual([active.id, paused.id]);
  // A new contact brings it back.
  expect((await api('/jobs/request', { method: 'POST', body: { token: active.token } })).status).toBe(204);
  expect((await api(`/runners/${active.id}`, { token: w.owner.token })).body).toMatchObject({ online: true, status: 'online' });
});
