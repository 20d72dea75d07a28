/**
 * Issue 13: a request costs exactly its route's warm round trips, also when its cached caller is
 * getting old. Past half ISOLATE_CACHE_TTL_MS the entry still answers and its lookup rides on the
 * request's own next round trip (src/db/riders.ts), so the entry is renewed and never expires under
 * a busy caller. The caches' clock is moved instead of sleeping.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ISOLATE_CACHE_TTL_MS, setCacheClock } from '../../src/platform/isolate-cache';
import { api, createUser, rootToken, unique } from '../support';

let now = Date.now();
afterEach(() => setCacheClock(null));

const roundTrips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

/** The round trips of `request` once everything it reads is cached (it is sent until two answers agree). */
async function warmCost(request: () => Promise<{ status: number; headers: Headers }>) {
  let last = -1;
  for (let i = 0; i < 4; i++) {
    const res = await request();
    expect(res.status).toBe(200);
    if (roundTrips(res) === last) return last;
    last = roundTrips(res);
  }
  return last;
}

describe('a cached caller past half its TTL', () => {
  it('GET /user: costs the warm round trips, and the next request past the old TTL too (the entry was renewed)', async () => {
    const u = await createUser();
    now = Date.now();
    setCacheClock(() => now);
    const user = () => api('/user', { token: u.token });
    const warm = await warmCost(user);
    const cachedAt = now;
    now = cachedAt + ISOLATE_CACHE_TTL_MS / 2 + 1;
    const aging = await user();
    expect([aging.status, roundTrips(aging), aging.body.id]).toEqual([200, warm, u.id]);
    // Past the TTL of the entry first cached: renewed by the request above, so still no lookup.
    now = cachedAt + ISOLATE_CACHE_TTL_MS + 1;
    const renewed = await user();
    expect([renewed.status, roundTrips(renewed)]).toEqual([200, warm]);
    // And an entry left alone past its TTL is looked up again: one round trip more.
    now += ISOLATE_CACHE_TTL_MS;
    const expired = await user();
    expect([expired.status, roundTrips(expired)]).toEqual([200, warm + 1]);
  });

  it('a project issue list (a batch first): the warm round trips, renewed', async () => {
    const u = await createUser();
    // The clock stands still from the caller's first request on: its entry is cached at `now`.
    now = Date.now();
    setCacheClock(() => now);
    const p = await api('/projects', { token: u.token, body: { name: unique('p') } });
    expect(p.status).toBe(201);
    expect((await api(`/projects/${p.body.id}/issues`, { token: u.token, body: { title: 'one' } })).status).toBe(201);
    const list = () => api(`/projects/${p.body.id}/issues`, { token: u.token });
    const warm = await warmCost(list);
    const cachedAt = now;
    now = cachedAt + ISOLATE_CACHE_TTL_MS - 1;
    const aging = await list();
    expect([aging.status, roundTrips(aging), aging.body.length]).toEqual([200, warm, 1]);
    now = cachedAt + ISOLATE_CACHE_TTL_MS + 1;
    const renewed = await list();
    expect([renewed.status, roundTrips(renewed), renewed.body[0].title]).toEqual([200, warm, 'one']);
  });

  it('a write whose caller is aging: the same answer and round trips, and the settings are renewed with the caller', async () => {
    const u = await createUser();
    now = Date.now();
    setCacheClock(() => now);
    const p = await api('/projects', { token: u.token, body: { name: unique('p') } });
    const create = (title: string) => api(`/projects/${p.body.id}/issues`, { token: u.token, body: { title } });
    const first = await create('a');
    const second = await create('b');
    expect([first.status, second.status]).toEqual([201, 201]);
    const cachedAt = now;
    now = cachedAt + ISOLATE_CACHE_TTL_MS / 2 + 1;
    const aging = await create('c');
    expect([aging.status, aging.body.title, roundTrips(aging)]).toEqual([201, 'c', roundTrips(second)]);
    now = cachedAt + ISOLATE_CACHE_TTL_MS + 1;
    const renewed = await create('d');
    expect([renewed.status, roundTrips(renewed)]).toEqual([201, roundTrips(second)]);
  });

  it('a token revoked through the API is refused at once, aging entry or not', async () => {
    const u = await createUser();
    now = Date.now();
    setCacheClock(() => now);
    expect((await api('/user', { token: u.token })).status).toBe(200);
    now += ISOLATE_CACHE_TTL_MS / 2 + 1;
    const tokens = await api('/personal_access_tokens', { token: rootToken, headers: {} });
    expect(tokens.status).toBe(200);
    const self = await api('/personal_access_tokens/self', { token: u.token });
    expect(self.status).toBe(200);
    expect((await api(`/personal_access_tokens/${self.body.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api('/user', { token: u.token })).status).toBe(401);
  });
});
