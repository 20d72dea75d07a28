/**
 * The settings cache (issue 17 item 2, issue 13): each isolate keeps its copy while the version stamp
 * it was read at is current. A change written straight to storage with the stamp moved, as another
 * isolate's PUT writes it, is seen by the request after the first one that went to storage (that one
 * carried the stamp check on its own round trip); a change without the stamp is not seen at all,
 * which shows the copy really is cached. Warm requests cost the same round trips either way.
 *
 * default_projects_limit is observed through what it governs: a new user's projects_limit.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { storageSql } from '#harness';
import { api, rootToken } from '../support';

const roundTrips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let n = 0;
async function newUsersLimit(): Promise<number> {
  const username = `cache${Date.now().toString(36)}${n++}`;
  const res = await api('/users', { token: rootToken, body: { username, email: `${username}@example.com`, name: username, password: 'Secret-pass-123', skip_confirmation: true } });
  expect(res.status).toBe(201);
  return res.body.projects_limit;
}

/** What another isolate's PUT writes: the value, and (when `stamp`) the settings' version stamp moved on, in one go. */
async function writeElsewhere(limit: number, stamp: boolean): Promise<void> {
  await storageSql(`UPDATE application_settings SET data = json_set(data, '$.default_projects_limit', ${limit}) WHERE id = 1`);
  if (stamp) await storageSql(`INSERT INTO cache_versions (name, version) VALUES ('settings', 1) ON CONFLICT (name) DO UPDATE SET version = version + 1`);
}

afterAll(async () => {
  expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { default_projects_limit: 100000 } })).status).toBe(200);
});

describe('the settings copy of an isolate', () => {
  it('is kept while the stamp stands, and replaced on the request after a moved stamp was seen', async () => {
    // The row exists from the first read on; the copy is warm after two requests.
    expect((await api('/application/settings', { token: rootToken })).status).toBe(200);
    expect(await newUsersLimit()).toBe(100000);

    await writeElsewhere(11, false);
    expect(await newUsersLimit()).toBe(100000);
    expect(await newUsersLimit()).toBe(100000);

    await writeElsewhere(12, true);
    // This request answers from its copy and carries the check; every later one has the new row.
    await newUsersLimit();
    expect(await newUsersLimit()).toBe(12);
    expect(await newUsersLimit()).toBe(12);
  });

  it('sees a PUT through the API at once', async () => {
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { default_projects_limit: 21 } })).status).toBe(200);
    expect(await newUsersLimit()).toBe(21);
  });

  it('costs a warm request no round trip of its own, stamp moved or not', async () => {
    await api('/user', { token: rootToken });
    const warm = await api('/user', { token: rootToken });
    expect(warm.status).toBe(200);
    await writeElsewhere(31, true);
    const checking = await api('/user', { token: rootToken });
    const after = await api('/user', { token: rootToken });
    expect([checking.status, after.status]).toEqual([200, 200]);
    expect([roundTrips(checking), roundTrips(after)]).toEqual([roundTrips(warm), roundTrips(warm)]);
    expect(await newUsersLimit()).toBe(31);
  });
});
