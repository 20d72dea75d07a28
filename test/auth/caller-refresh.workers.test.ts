/**
 * A token revoked in D1 directly (as another isolate's write would leave it: nothing invalidates this
 * isolate's cache) stops working within ISOLATE_CACHE_TTL_MS, aging refreshes or not: the refresh that
 * rides on a request past half the TTL brings the revocation, and an entry is never older than the TTL.
 */
import { env } from 'cloudflare:workers';
import { afterEach, expect, it } from 'vitest';
import { ISOLATE_CACHE_TTL_MS, setCacheClock } from '../../src/platform/isolate-cache';
import { api, createUser } from '../support';

afterEach(() => setCacheClock(null));

it('a token revoked in storage by another isolate is refused within the TTL', async () => {
  const u = await createUser();
  let now = Date.now();
  setCacheClock(() => now);
  const self = await api('/personal_access_tokens/self', { token: u.token });
  expect(self.status).toBe(200);
  const cachedAt = now;
  await (env as unknown as { DB: D1Database }).DB.prepare('UPDATE personal_access_tokens SET revoked = 1 WHERE id = ?').bind(self.body.id).run();
  // Cached and young: still answered from the cache.
  now = cachedAt + ISOLATE_CACHE_TTL_MS / 4;
  expect((await api('/user', { token: u.token })).status).toBe(200);
  // Aging: answered from the cache, and the refresh riding on this request reads the revoked row.
  now = cachedAt + ISOLATE_CACHE_TTL_MS / 2 + 1;
  expect((await api('/user', { token: u.token })).status).toBe(200);
  now += 1;
  expect((await api('/user', { token: u.token })).body).toMatchObject({ error: 'invalid_token' });
  now = cachedAt + ISOLATE_CACHE_TTL_MS + 1;
  expect((await api('/user', { token: u.token })).status).toBe(401);
});
