/**
 * Application settings that govern user creation, changed through PUT /application/settings and
 * observed through the Users and Projects APIs. Each test file has its own database; every test still
 * puts back what it changed (finally), since the tests of this file share the instance.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, withSettings } from '../support';

/** POST /users as the administrator, with a fresh username and email unless given. */
function newUser(attrs: Record<string, unknown> = {}) {
  const username = unique('set');
  return api('/users', { token: rootToken, body: { email: `${username}@example.com`, name: username, username, password: 'a-long-enough-password', skip_confirmation: true, ...attrs } });
}

describe('minimum_password_length', () => {
  it('refuses shorter passwords on create and modify, accepts them again once lowered', async () => {
    const short = 'twelve-chars'; // 12 characters: fine under the default 8, too short under 16
    await withSettings({ minimum_password_length: 16 }, async () => {
      const refused = await newUser({ password: short });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ message: { password: ['is too short (minimum is 16 characters)'] } });
      const created = await newUser({ password: 'sixteen-chars-ok' });
      expect(created.status).toBe(201);
      const modify = await api(`/users/${created.body.id}`, { method: 'PUT', token: rootToken, body: { password: short } });
      expect(modify.status).toBe(400);
      expect(modify.body).toEqual({ message: { password: ['is too short (minimum is 16 characters)'] } });
    });
    expect((await newUser({ password: short })).status).toBe(201);
  });
});

describe('default_projects_limit', () => {
  it("sets a new user's projects_limit, and project creation stops at it", async () => {
    await withSettings({ default_projects_limit: 1 }, async () => {
      const u = await createUser();
      expect((await api(`/users/${u.id}`, { token: rootToken })).body.projects_limit).toBe(1);
      expect((await api('/projects', { token: u.token, body: { name: unique('p') } })).status).toBe(201);
      const second = await api('/projects', { token: u.token, body: { name: unique('p') } });
      expect(second.status).toBe(403);
      expect(second.body).toEqual({ message: ['Your project limit is 1 projects! Please contact your administrator to increase it'] });
      // An explicit projects_limit still wins over the default.
      expect((await newUser({ projects_limit: 5 })).body.projects_limit).toBe(5);
    });
    expect((await newUser()).body.projects_limit).toBe(100000);
  });
});

describe('user_default_external', () => {
  it('makes new users external (no projects, no groups) unless the request says otherwise', async () => {
    await withSettings({ user_default_external: true }, async () => {
      const res = await newUser();
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false });
      const token = await api(`/users/${res.body.id}/personal_access_tokens`, { token: rootToken, body: { name: 't', scopes: ['api'] } });
      const project = await api('/projects', { token: token.body.token, body: { name: unique('p') } });
      expect(project.status).toBe(403);
      expect(project.body).toEqual({ message: ['Personal project creation is not allowed. Please contact your administrator with questions'] });
      const path = unique('g');
      const group = await api('/groups', { token: token.body.token, body: { name: path, path } });
      expect(group.status).toBe(403);
      expect((await newUser({ external: false })).body).toMatchObject({ external: false, can_create_group: true });
    });
    expect((await newUser()).body.external).toBe(false);
  });

  it('with user_default_internal_regex, only emails matching the regex make internal users', async () => {
    const internalDomain = `${unique('corp')}.example`;
    await withSettings({ user_default_external: true, user_default_internal_regex: `@${internalDomain.replace(/\./g, '\\.')}\\z` }, async () => {
      const username = unique('in');
      const inside = await newUser({ username, email: `${username}@${internalDomain.toUpperCase()}` });
      expect(inside.status).toBe(201);
      expect(inside.body).toMatchObject({ external: false, projects_limit: 100000, can_create_group: true });
      expect((await newUser()).body.external).toBe(true);
      // An explicit `external` is not overridden by the regex.
      const forced = unique('fx');
      expect((await newUser({ username: forced, email: `${forced}@${internalDomain}`, external: true })).body.external).toBe(true);
    });
  });

  it('the regex is ignored while user_default_external is off', async () => {
    await withSettings({ user_default_internal_regex: '@nowhere\\.example\\z' }, async () => {
      expect((await newUser()).body.external).toBe(false);
    });
  });
});

describe('sign-up settings do not restrict users an administrator creates', () => {
  // User#signup_domain_valid? and #check_email_restrictions run only `if: !created_by_id`, and
  // Users::BuildService applies signup_enabled / send_user_confirmation_email to self sign-up only,
  // which this server does not offer: POST /users is administrator-only.
  it('creates the user despite a denylisted domain, disabled sign-up and approval required', async () => {
    const domain = `${unique('deny')}.example`;
    await withSettings(
      { domain_denylist_enabled: true, domain_denylist: [domain], domain_allowlist: ['allowed.example'], signup_enabled: false, require_admin_approval_after_user_signup: true, send_user_confirmation_email: true },
      async () => {
        const username = unique('dn');
        const res = await newUser({ username, email: `${username}@${domain}`, skip_confirmation: false });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ state: 'active', confirmed_at: null });
      },
    );
  });
});
