/**
 * Issue 14, polling that scales: a cached runner stays cached until the change log names it
 * (src/ci/runner-changes.ts). A change made "in another isolate" is written to storage directly
 * (the runner row and its ci_runner_changes row, as that isolate's batch would), bypassing this
 * app's caches; the caches' clock is moved with setCacheClock instead of sleeping.
 */
import { storageSql } from '#harness';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUNNER_CHANGES_CHECK_MS, RUNNER_CHANGES_RETENTION_MS } from '../../src/ci/runner-changes';
import { setCacheClock } from '../../src/platform/isolate-cache';
import { api, rootToken } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const poll = (token: string) => api('/jobs/request', { method: 'POST', body: { token }, headers: { 'RUNNER-TOKEN': token } });
const verify = (token: string) => api('/runners/verify', { method: 'POST', body: { token } });

let now = Date.now();
beforeEach(() => {
  // A clock well past anything earlier tests of this file left: the first request starts afresh.
  now = Date.now() + 10 * RUNNER_CHANGES_RETENTION_MS;
  setCacheClock(() => now);
});
afterEach(() => setCacheClock(null));

async function registered(): Promise<{ id: number; token: string }> {
  const reg = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token;
  const res = await api('/runners', { method: 'POST', body: { token: reg } });
  expect(res.status).toBe(201);
  return res.body;
}

/** Registered, contacted and cached: the next poll costs nothing. */
async function cached(): Promise<{ id: number; token: string }> {
  const r = await registered();
  expect((await verify(r.token)).status).toBe(200);
  expect(trips(await poll(r.token))).toBe(0);
  return r;
}

/** What another isolate's write leaves in storage: the runner changed, and the change logged. */
async function changedElsewhere(id: number, set: string) {
  await storageSql(`UPDATE ci_runners SET ${set} WHERE id = ${id}`);
  await storageSql(`INSERT INTO ci_runner_changes (runner_id, changed_at) VALUES (${id}, ${Date.now()})`);
}

describe('a runner changed in another isolate', () => {
  it('is served from the cache until the next check, then as it is now', async () => {
    const { id, token } = await cached();
    // Its token reset elsewhere: the old token still works here until this isolate checks the log.
    await changedElsewhere(id, `token_digest = 'reset-elsewhere-${id}', updated_at = updated_at + 1`);
    now += RUNNER_CHANGES_CHECK_MS - 1;
    const before = await poll(token);
    expect([before.status, trips(before)]).toEqual([204, 0]);
    now += 1;
    // The check (one round trip) drops the runner; the read that follows finds no such token.
    const after = await poll(token);
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ message: '403 Forbidden' });
    expect((await verify(token)).status).toBe(403);
  });

  it('deleted elsewhere: refused after the check', async () => {
    const { id, token } = await cached();
    await storageSql(`DELETE FROM ci_runners WHERE id = ${id}`);
    await storageSql(`INSERT INTO ci_runner_changes (runner_id, changed_at) VALUES (${id}, ${Date.now()})`);
    expect((await verify(token)).status).toBe(200);
    now += RUNNER_CHANGES_CHECK_MS;
    expect((await verify(token)).status).toBe(403);
  });

  it('updated elsewhere: the poll answers the new stamp after the check, and is cached again', async () => {
    const { id, token } = await cached();
    const stamp = (await poll(token)).headers.get('x-gitlab-last-update');
    await changedElsewhere(id, 'active = 0, updated_at = updated_at + 1000');
    expect((await poll(token)).headers.get('x-gitlab-last-update')).toBe(stamp);
    now += RUNNER_CHANGES_CHECK_MS;
    const after = await poll(token);
    // The check and the runner's read again: one round trip each.
    expect(trips(after)).toBe(2);
    expect(after.headers.get('x-gitlab-last-update')).not.toBe(stamp);
    expect(trips(await poll(token))).toBe(0);
  });

  it('an "everything" row (runner_id null) drops every cached runner', async () => {
    const a = await cached();
    const b = await cached();
    await storageSql(`INSERT INTO ci_runner_changes (runner_id, changed_at) VALUES (NULL, ${Date.now()})`);
    now += RUNNER_CHANGES_CHECK_MS;
    expect(trips(await poll(a.token))).toBe(2);
    expect(trips(await poll(b.token))).toBe(1);
  });
});

describe('the check', () => {
  it('costs one round trip per interval for the whole fleet, not one per runner', async () => {
    const fleet = [await cached(), await cached(), await cached(), await cached()];
    for (let interval = 0; interval < 3; interval++) {
      now += RUNNER_CHANGES_CHECK_MS;
      const rounds = [];
      for (const r of [...fleet, ...fleet]) rounds.push(trips(await poll(r.token)));
      // The first poll of the interval asks what changed (nothing did); every other poll is free.
      expect(rounds).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    }
  });

  it("a change to another runner leaves this one cached", async () => {
    const mine = await cached();
    const other = await cached();
    await changedElsewhere(other.id, 'updated_at = updated_at + 1');
    now += RUNNER_CHANGES_CHECK_MS;
    expect(trips(await poll(mine.token))).toBe(1);
    expect(trips(await poll(mine.token))).toBe(0);
    expect(trips(await poll(other.token))).toBe(1);
  });

  it('a write made here is logged in its own batch, and answers at once here', async () => {
    const { id, token } = await cached();
    const [before] = (await storageSql(`SELECT count(*) AS n FROM ci_runner_changes WHERE runner_id = ${id}`)) as { n: number }[];
    const paused = await api(`/runners/${id}`, { method: 'PUT', token: rootToken, body: { paused: true } });
    expect(paused.status).toBe(200);
    const [after] = (await storageSql(`SELECT count(*) AS n FROM ci_runner_changes WHERE runner_id = ${id}`)) as { n: number }[];
    expect(Number(after.n)).toBe(Number(before.n) + 1);
    // This isolate dropped it already: read again on the next poll, without waiting for the check.
    expect(trips(await poll(token))).toBe(1);
  });

  it('after a silence longer than half the log retention, starts afresh: every runner read again', async () => {
    const { token } = await cached();
    now += RUNNER_CHANGES_RETENTION_MS / 2;
    // The newest change id and the runner, in one round trip.
    expect(trips(await poll(token))).toBe(1);
    expect(trips(await poll(token))).toBe(0);
  });
});
