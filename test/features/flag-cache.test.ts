/**
 * The one read helper (features/flags.ts): a flag check costs no round trip once this isolate holds
 * the flags, a change made here is seen by the next request, and a change made by another isolate
 * (written straight to storage with the `features` version stamp moved, bypassing this app's cache)
 * is seen from the request after the first one that checked the flag: that request carried the stamp
 * check, and the changed flags, on its own round trip.
 */
import { afterEach, expect, it } from 'vitest';
import { api, rootToken } from '../support';
import { storageSql } from '#harness';

const FLAG = 'only_positive_pagination_values';
const list = (query: string) => api(`/namespaces?${query}`, { token: rootToken });
const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

afterEach(async () => {
  expect((await api(`/features/${FLAG}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
});

it('a checked flag costs no round trip in steady state', async () => {
  await list('page=0');
  await list('page=1');
  const checked = await list('page=0');
  const unchecked = await list('page=1');
  expect(checked.status).toBe(200);
  expect(trips(checked)).toBe(trips(unchecked));
});

it("another isolate's change is seen from the second request on", async () => {
  expect((await list('page=0')).status).toBe(200);
  const now = Date.now();
  await storageSql(`insert into features (key, created_at, updated_at) values ('${FLAG}', ${now}, ${now})`);
  await storageSql(`insert into feature_gates (feature_key, key, value, created_at) values ('${FLAG}', 'boolean', 'true', ${now})`);
  // Not seen while the version stamp stands: the snapshot really is this isolate's copy.
  expect((await list('page=0')).status).toBe(200);
  expect((await list('page=0')).status).toBe(200);
  // Another isolate's write moves the stamp in its batch (flag-writes.ts).
  await storageSql(`insert into cache_versions (name, version) values ('features', 1) on conflict (name) do update set version = version + 1`);
  // This isolate still holds the old flags for one request, which brings the new ones back with it.
  expect((await list('page=0')).status).toBe(200);
  const next = await list('page=0');
  expect(next.status).toBe(400);
  expect(next.body).toEqual({ error: 'page does not have a valid value' });
});

it("this isolate's own change is seen by the very next request", async () => {
  expect((await list('per_page=-1')).status).toBe(200);
  expect((await api(`/features/${FLAG}`, { method: 'POST', token: rootToken, body: { value: 'true' } })).status).toBe(201);
  expect((await list('per_page=-1')).body).toEqual({ error: 'per_page does not have a valid value' });
});
