/**
 * The secret sweep itself (test/harness/secret-sweep.ts): what counts as a leak. The sweep runs
 * after every test file of both suites; these cases prove it would catch each kind of leak.
 */
import { describe, expect, it } from 'vitest';
import { SecretSweep, storedSecrets } from '../harness/secret-sweep';
import { sql } from 'drizzle-orm';
import { harnessApp } from '../harness/node';
import { api, createUser, rootToken } from '../support';

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', ...headers } });

describe('secret sweep', () => {
  it('allows a token in the response that created it, and flags it anywhere else', async () => {
    const s = new SecretSweep();
    await s.recordResponse('POST', '/api/v4/users/1/personal_access_tokens', json({ id: 1, token: 'glpat-abcdefghijklmnopqrst' }));
    await s.recordResponse('GET', '/api/v4/personal_access_tokens', json([{ id: 1, name: 'x' }]));
    expect(s.problems([])).toEqual([]);
    await s.recordResponse('GET', '/api/v4/personal_access_tokens/1', json({ id: 1, note: 'glpat-abcdefghijklmnopqrst' }));
    expect(s.problems([])).toEqual(['GET /api/v4/personal_access_tokens/1 → 200 shows a secret created by POST /api/v4/users/1/personal_access_tokens → 200']);
  });

  it('allows a response to show a secret its own request sent, and no other response', async () => {
    const s = new SecretSweep();
    await s.recordResponse('POST', '/api/v4/runners', json({ id: 1, token: 'runner-token-0123456789' }));
    await s.recordResponse('POST', '/api/v4/runners/verify', json({ id: 1, token: 'runner-token-0123456789' }), { method: 'POST', body: JSON.stringify({ token: 'runner-token-0123456789' }) });
    await s.recordResponse('POST', '/api/v4/runners/verify', json({ id: 1, token: 'runner-token-0123456789' }), { method: 'POST', headers: { 'RUNNER-TOKEN': 'runner-token-0123456789' } });
    expect(s.problems([])).toEqual([]);
    await s.recordResponse('GET', '/api/v4/runners/1', json({ id: 1, token: 'runner-token-0123456789' }), { method: 'GET', body: JSON.stringify({ token: 'another-token-0123456789' }) });
    expect(s.problems([])).toEqual(['GET /api/v4/runners/1 → 200 shows a secret created by POST /api/v4/runners → 200']);
  });

  it('flags a stored digest in any response, body or header', async () => {
    const s = new SecretSweep();
    const digest = 'a'.repeat(20) + 'digest';
    await s.recordResponse('GET', '/api/v4/user', new Response('{}', { headers: { 'content-type': 'application/json', 'x-debug': digest } }));
    expect(s.problems([digest])).toEqual(['GET /api/v4/user → 200 shows a stored secret or digest']);
  });

  it('flags a password a request sent, in JSON or form bodies', async () => {
    const s = new SecretSweep();
    s.recordRequest({ body: JSON.stringify({ user: { password: 'Sekret-Pass-123' } }) });
    s.recordRequest({ body: 'login=a&password=Form-Pass-456' });
    await s.recordResponse('GET', '/api/v4/user', json({ echo: 'Sekret-Pass-123 Form-Pass-456' }));
    expect(s.problems([])).toEqual(['GET /api/v4/user → 200 shows a password a request sent']);
  });

  it('treats cookies and the CSRF header a response sets as created there', async () => {
    const s = new SecretSweep();
    const headers = new Headers({ 'x-csrf-token': 'csrf-value-0123456789' });
    headers.append('set-cookie', '_gitlab_session=cookie-value-0123456789; Path=/; HttpOnly');
    await s.recordResponse('POST', '/users/sign_in', new Response(null, { status: 302, headers }));
    expect(s.problems([])).toEqual([]);
    await s.recordResponse('GET', '/api/v4/user', json({ a: 'cookie-value-0123456789', b: 'csrf-value-0123456789' }));
    expect(s.problems([])).toHaveLength(1);
  });

  it('reads the digests of this run from storage: a token made through the API is found by its digest', async () => {
    const user = await createUser();
    const res = await api('/user', { token: user.token });
    expect(res.status).toBe(200);
    const { db } = await harnessApp();
    const stored = await storedSecrets((q) => db.all(sql.raw(q)));
    // The root token, the user's password digest and the new token's digest at least.
    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect(stored.some((v) => v.includes(user.token))).toBe(false);
    expect(rootToken).toBeTruthy();
  });
});
