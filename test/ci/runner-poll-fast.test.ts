/**
 * Issue 14: a known runner's `POST /jobs/request` and `POST /runners/verify` take a fast path
 * before the generic chain (src/ci/runner-poll-fast.ts). It answers with the routes' headers, and
 * everything outside its plain case reaches the routes with the body it already read, so the
 * answers are the generic path's.
 */
import { describe, expect, it } from 'vitest';
import { api, fetchApi, rootToken } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

async function knownRunner(): Promise<{ id: number; token: string }> {
  const reg = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token;
  const res = await api('/runners', { method: 'POST', body: { token: reg } });
  expect((await api('/runners/verify', { method: 'POST', body: { token: res.body.token } })).status).toBe(200);
  return res.body;
}

/** A raw request, body as given. */
const send = (path: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) => fetchApi(`/api/v4${path}`, { method: 'POST', headers, body });

describe('the fast path', () => {
  it("answers with the generic chain's headers: the request id echoed, the security headers", async () => {
    const { id, token } = await knownRunner();
    const polled = await send('/jobs/request', JSON.stringify({ token }), { 'Content-Type': 'application/json', 'X-Request-Id': 'runner-poll-1' });
    expect(polled.status).toBe(204);
    expect(trips(polled)).toBe(0);
    expect(polled.headers.get('x-request-id')).toBe('runner-poll-1');
    expect(polled.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(polled.headers.get('x-content-type-options')).toBe('nosniff');
    expect(polled.headers.get('x-gitlab-last-update')).toMatch(/^[0-9a-f]{32}$/);
    const verified = await send('/runners/verify', JSON.stringify({ token }));
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({ id, token, token_expires_at: null });
    expect(verified.headers.get('x-request-id')).toMatch(/^[0-9a-f]{26}$/);
    // The same Content-Type as the route's own answer (a form body takes the generic path).
    const generic = await send('/runners/verify', `token=${token}`, { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(await generic.json()).toEqual({ id, token, token_expires_at: null });
    expect(verified.headers.get('content-type')).toBe(generic.headers.get('content-type'));
  });

  it('refuses an unknown token with the 403 body and one read', async () => {
    const res = await send('/jobs/request', JSON.stringify({ token: 'no-such-runner-token' }), { 'Content-Type': 'application/json', 'X-Request-Id': 'unknown-runner' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: '403 Forbidden' });
    expect(res.headers.get('x-request-id')).toBe('unknown-runner');
    expect(res.headers.get('x-storage-repeated-reads') ?? '0').toBe('0');
  });
});

describe('outside the plain case, the routes answer as before', () => {
  it('a form body, a token in the query string, the token in the header alone', async () => {
    const { token } = await knownRunner();
    expect((await send('/jobs/request', `token=${token}`, { 'Content-Type': 'application/x-www-form-urlencoded' })).status).toBe(204);
    expect((await send(`/jobs/request?token=${token}`, '{}')).status).toBe(204);
    expect((await send('/runners/verify', '{}', { 'Content-Type': 'application/json', 'RUNNER-TOKEN': token })).status).toBe(200);
  });

  it("Grape's errors: a parameter of the wrong type, a NUL byte, malformed JSON, no token", async () => {
    const { token } = await knownRunner();
    const wrongType = await send('/jobs/request', JSON.stringify({ token, info: 'linux' }));
    expect([wrongType.status, await wrongType.json()]).toEqual([400, { error: 'info is invalid' }]);
    const nul = await send('/jobs/request', JSON.stringify({ token, system_id: 's_\u0000' }));
    expect([nul.status, await nul.json()]).toEqual([400, { error: 'system_id contains a null byte' }]);
    const malformed = await send('/runners/verify', `{"token":"${token}"`);
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toContain('message body does not match declared format');
    const missing = await send('/jobs/request', JSON.stringify({ system_id: 's_1' }));
    expect([missing.status, await missing.json()]).toEqual([400, { error: 'token is missing' }]);
  });
});
