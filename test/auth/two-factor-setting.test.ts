/**
 * Issue 17 item 2: `require_two_factor_authentication` and `two_factor_grace_period` are stored only.
 * GitLab enforces them once a user's grace period has run out (TwoFactorAuthVerifier
 * `two_factor_authentication_enforced?`: the API ignores such a user's web session, api_guard.rb
 * `two_factor_required_but_not_setup?`; the OAuth password grant refuses them, doorkeeper.rb), and the
 * grace period starts only when the user opens the web page that sets up 2FA
 * (Profiles::TwoFactorAuthsController#show sets `otp_grace_period_started_at`). This server has no web
 * UI, so no grace period ever starts: with the setting on and no grace at all, a user without 2FA
 * still signs in, uses the session on the API and gets a password-grant token, as on GitLab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, rootToken } from '../support';

describe('require_two_factor_authentication with two_factor_grace_period 0', () => {
  let original: Record<string, unknown>;
  beforeAll(async () => {
    const current = await api('/application/settings', { token: rootToken });
    original = { require_two_factor_authentication: current.body.require_two_factor_authentication, two_factor_grace_period: current.body.two_factor_grace_period };
    const res = await api('/application/settings', { method: 'PUT', token: rootToken, body: { require_two_factor_authentication: true, two_factor_grace_period: 0 } });
    expect([res.status, res.body.require_two_factor_authentication, res.body.two_factor_grace_period]).toEqual([200, true, 0]);
  });
  afterAll(async () => {
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: original })).status).toBe(200);
  });

  it('leaves a user without 2FA their web session on the API, the password grant and their tokens', async () => {
    const u = await createUser();
    const me = await api('/user', { token: u.token });
    expect([me.status, me.body.two_factor_enabled]).toEqual([200, false]);
    const web = await fetchApi('/users/sign_in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'user[login]': u.username, 'user[password]': u.password }).toString(),
      redirect: 'manual',
    });
    expect([web.status, new URL(web.headers.get('location')!, 'http://x').pathname]).toEqual([302, '/']);
    const cookie = web.headers.get('set-cookie')!.split(';')[0];
    const viaSession = await fetchApi('/api/v4/user', { headers: { Cookie: cookie } });
    expect(viaSession.status).toBe(200);
    expect(((await viaSession.json()) as { id: number }).id).toBe(u.id);
    const grant = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } });
    expect(grant.status).toBe(200);
    expect((await api('/user', { headers: { Authorization: `Bearer ${grant.body.access_token}` } })).body.id).toBe(u.id);
  });
});
