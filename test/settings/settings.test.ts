import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

// Instance-global state: this file only touches settings no other area reads, and puts back
// every value it changed (afterAll), so it cannot disturb other files.
const TOUCHED = [
  'after_sign_up_text',
  'help_page_text',
  'sign_in_text',
  'abuse_notification_email',
  'allow_local_requests_from_web_hooks_and_services',
  'domain_denylist',
  'disabled_oauth_sign_in_sources',
  'spamsvc_enabled',
  'terms',
  'import_sources',
  'repository_storages_weighted',
  'max_personal_access_token_lifetime',
  'admin_mode',
  'users_get_by_id_limit_allowlist',
  'restricted_visibility_levels',
] as const;

let original: Record<string, any>;
let user: TestUser;

beforeAll(async () => {
  const res = await api('/application/settings', { token: rootToken });
  expect(res.status).toBe(200);
  original = res.body;
  user = await createUser();
});

afterAll(async () => {
  const body: Record<string, unknown> = {};
  for (const k of TOUCHED) body[k] = original[k];
  const res = await api('/application/settings', { method: 'PUT', token: rootToken, body });
  expect(res.status).toBe(200);
});

const put = (body: unknown, token: string | null = rootToken) => api('/application/settings', { method: 'PUT', token, body });

describe('GET /application/settings', () => {
  it('answers 401 anonymous and 403 for a non-administrator', async () => {
    const anon = await api('/application/settings');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ message: '401 Unauthorized' });
    const normal = await api('/application/settings', { token: user.token });
    expect(normal.status).toBe(403);
    expect(normal.body).toEqual({ message: '403 Forbidden' });
    expect((await put({ after_sign_up_text: 'x' }, user.token)).status).toBe(403);
    expect((await put({ after_sign_up_text: 'x' }, null)).status).toBe(401);
  });

  it('returns the whole object with fresh-instance defaults, neutral names and no secrets', async () => {
    const res = await api('/application/settings', { token: rootToken });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(Object.keys(b).slice(0, 3)).toEqual(['id', 'performance_bar_allowed_group_id', 'abuse_notification_email']);
    expect(b.id).toBe(1);
    expect(b.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(b.updated_at).toMatch(/Z$/);
    expect(b).toMatchObject({
      default_projects_limit: 100000,
      default_branch_protection: 2,
      default_project_creation: 2,
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      signup_enabled: true,
      session_expire_delay: 10080,
      max_import_size: 0,
      issues_create_limit: 0,
      first_day_of_week: 0,
      avatarsvc_enabled: true,
      storage_timeout_default: 55,
      storage_timeout_medium: 30,
      storage_timeout_fast: 10,
      textdiagram_enabled: false,
      diagramproxy_enabled: false,
      floc_enabled: false,
      polling_interval_multiplier: 1,
      terminal_max_session_time: 0,
      snippet_size_limit: 52428800,
      wiki_page_max_content_bytes: 52428800,
      user_show_add_ssh_key_message: true,
      in_product_marketing_emails_enabled: true,
      keep_latest_artifact: true,
      domain_allowlist: null,
      repository_storages_weighted: { default: 100 },
      housekeeping_enabled: true,
      housekeeping_incremental_repack_period: 10,
      housekeeping_full_repack_period: 50,
      housekeeping_gc_period: 200,
      user_oauth_applications: true,
    });
    for (const k of ['spamsvc_enabled', 'mailsvc_events_enabled', 'clustersvc_integration_enabled', 'dashboard_enabled', 'searchsvc_indexing', 'file_template_project_id', 'geo_status_timeout']) {
      expect(b).toHaveProperty(k);
    }
    for (const k of Object.keys(b)) expect(k).not.toMatch(/akismet|gravatar|gitaly|grafana|plantuml|kroki|mailgun|elasticsearch|eks_/);
    for (const k of ['asset_proxy_secret_key', 'spamsvc_api_key', 'mailsvc_signing_key', 'clustersvc_secret_access_key', 'searchsvc_password', 'searchsvc_aws_secret_access_key', 'external_auth_client_key', 'external_auth_client_key_pass', 'external_pipeline_validation_service_token', 'spam_check_api_key']) {
      expect(b).not.toHaveProperty(k);
    }
  });
});

describe('PUT /application/settings', () => {
  it('needs at least one known attribute (Grape at_least_one_of, every attribute listed)', async () => {
    const res = await put({ unknown_thing: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^abuse_notification_email, admin_mode, after_sign_out_path, /);
    expect(res.body.error).toMatch(/, personal_access_token_prefix, .*, throttle_authenticated_api_enabled, .* are missing, at least one parameter must be provided$/);
  });

  it('updates from the body and from the query string, answers the full object, and reads back', async () => {
    const text = unique('after-sign-up ');
    const res = await put({ after_sign_up_text: text });
    expect(res.status).toBe(200);
    expect(res.body.after_sign_up_text).toBe(text);
    expect(res.body.id).toBe(1);
    expect(res.body.default_projects_limit).toBe(100000);
    const help = unique('help');
    const q = await api(`/application/settings?help_page_text=${encodeURIComponent(help)}`, { method: 'PUT', token: rootToken });
    expect(q.status).toBe(200);
    const back = await api('/application/settings', { token: rootToken });
    expect(back.body.after_sign_up_text).toBe(text);
    expect(back.body.help_page_text).toBe(help);
    expect(Date.parse(back.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(back.body.created_at));
  });

  it('keeps both of two concurrent PUTs of different keys', async () => {
    for (let round = 0; round < 3; round++) {
      const a = unique('a');
      const s = unique('s');
      const [r1, r2] = await Promise.all([put({ after_sign_up_text: a }), put({ sign_in_text: s })]);
      expect(r1.status).toBe(200);
      expect(r2.status).toBe(200);
      const back = await api('/application/settings', { token: rootToken });
      expect(back.body.after_sign_up_text).toBe(a);
      expect(back.body.sign_in_text).toBe(s);
    }
  });

  it('rejects a value of the wrong type with Grape wording and writes nothing', async () => {
    const before = (await api('/application/settings', { token: rootToken })).body;
    const res = await put({ default_projects_limit: 'many', after_sign_up_text: 'never stored' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'default_projects_limit is invalid' });
    const after = (await api('/application/settings', { token: rootToken })).body;
    expect(after.after_sign_up_text).toBe(before.after_sign_up_text);
  });

  it('rejects values outside an enumeration', async () => {
    expect((await put({ default_branch_protection: 7 })).body).toEqual({ error: 'default_branch_protection does not have a valid value' });
    expect((await put({ default_project_visibility: 'secret' })).body).toEqual({ error: 'default_project_visibility does not have a valid value' });
    expect((await put({ rsa_key_restriction: 1000 })).body).toEqual({ error: 'rsa_key_restriction does not have a valid value' });
    expect((await put({ ed25519_key_restriction: 2048 })).body).toEqual({ error: 'ed25519_key_restriction does not have a valid value' });
    expect((await put({ enabled_git_access_protocol: 'ftp' })).body).toEqual({ error: 'enabled_git_access_protocol does not have a valid value' });
    expect((await put({ import_sources: 'github,nowhere' })).body).toEqual({ error: 'import_sources does not have a valid value' });
  });

  it('requires the companion attributes of an enabled feature ("given ... requires")', async () => {
    const res = await put({ spamsvc_enabled: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'spamsvc_api_key is missing' });
    const house = await put({ housekeeping_enabled: true, housekeeping_gc_period: 300 });
    expect(house.body).toEqual({ error: 'housekeeping_bitmaps_enabled is missing, housekeeping_full_repack_period is missing, housekeeping_incremental_repack_period is missing' });
    // Turning the feature off needs nothing else.
    expect((await put({ spamsvc_enabled: false })).status).toBe(200);
  });

  it('stores a secret but never returns it', async () => {
    const res = await put({ spamsvc_enabled: true, spamsvc_api_key: 'very-secret-key-123' });
    expect(res.status).toBe(200);
    expect(res.body.spamsvc_enabled).toBe(true);
    expect(res.body).not.toHaveProperty('spamsvc_api_key');
    expect(res.text).not.toContain('very-secret-key-123');
    const back = await api('/application/settings', { token: rootToken });
    expect(back.text).not.toContain('very-secret-key-123');
    expect(back.body.spamsvc_enabled).toBe(true);
    expect((await put({ spamsvc_enabled: false })).status).toBe(200);
  });

  it('answers model validation errors as {"message": {attr: [...]}} and writes nothing', async () => {
    const res = await put({ minimum_password_length: 4, after_sign_up_text: 'not stored either' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { minimum_password_length: ['must be greater than or equal to 8'] } });
    expect((await put({ minimum_password_length: 129 })).body).toEqual({ message: { minimum_password_length: ['must be less than or equal to 128'] } });
    expect((await put({ personal_access_token_prefix: 'a-prefix-that-is-way-too-long' })).body).toEqual({ message: { personal_access_token_prefix: ['is too long (maximum is 20 characters)'] } });
    expect((await put({ personal_access_token_prefix: 'éñ' })).body).toEqual({
      message: { personal_access_token_prefix: ["can contain only letters of the Base64 alphabet (RFC4648) with the addition of '@', ':' and '.'"] },
    });
    expect((await put({ domain_denylist_enabled: true, domain_denylist: [] })).body).toEqual({ message: { domain_denylist: ['Domain denylist cannot be empty if denylist is enabled.'] } });
    expect((await put({ enforce_terms: true })).body).toEqual({ message: { terms: ["can't be blank"] } });
    expect((await put({ restricted_visibility_levels: ['secret'] })).body).toEqual({ message: { restricted_visibility_levels: ["'secret' is not a valid visibility level"] } });
    expect((await put({ rate_limiting_response_text: 'x'.repeat(256) })).body).toEqual({ message: { rate_limiting_response_text: ['is too long (maximum is 255 characters)'] } });
    expect((await put({ archive_builds_in_human_readable: '2 hours' })).body).toEqual({ message: { archive_builds_in_seconds: ['must be greater than or equal to 86400'] } });
    expect((await put({ archive_builds_in_human_readable: 'whenever' })).body).toEqual({ message: { archive_builds_in_human_readable: ['is not a correct duration'] } });
    expect((await put({ default_artifacts_expire_in: 'soonish' })).body).toEqual({ message: { default_artifacts_expire_in: ['is not a correct duration'] } });
    expect((await put({ hashed_storage_enabled: false })).status).toBe(200);
    const back = await api('/application/settings', { token: rootToken });
    expect(back.body.after_sign_up_text).not.toBe('not stored either');
    expect(back.body.minimum_password_length).toBe(original.minimum_password_length);
    expect(back.body.hashed_storage_enabled).toBe(true);
  });

  it('translates legacy names and splits comma-separated lists', async () => {
    const email = `${unique('abuse')}@example.com`;
    const res = await put({ admin_notification_email: email, allow_local_requests_from_hooks_and_services: true, domain_denylist: 'a.example, b.example', disabled_oauth_sign_in_sources: ['x', 'y'] });
    expect(res.status).toBe(200);
    expect(res.body.abuse_notification_email).toBe(email);
    expect(res.body.allow_local_requests_from_web_hooks_and_services).toBe(true);
    expect(res.body.allow_local_requests_from_hooks_and_services).toBe(true);
    expect(res.body.domain_denylist).toEqual(['a.example', 'b.example']);
    expect(res.body.domain_denylist_raw).toBe('a.example\nb.example');
    expect(res.body.disabled_oauth_sign_in_sources).toEqual(['x', 'y']);
    const levels = await put({ restricted_visibility_levels: [10] });
    expect(levels.status).toBe(200);
    expect(levels.body.restricted_visibility_levels).toEqual(['internal']);
    expect((await put({ restricted_visibility_levels: [] })).body.restricted_visibility_levels).toEqual([]);
    const form = await api('/application/settings', { method: 'PUT', token: rootToken, form: { 'import_sources[]': ['github', 'gitlab_project'] } });
    expect(form.status).toBe(200);
    expect(form.body.import_sources).toEqual(['github', 'gitlab_project']);
  });

  it('weights repository storages by name, with integer values between 0 and 100', async () => {
    const ok = await put({ repository_storages_weighted: { default: '50' } });
    expect(ok.status).toBe(200);
    expect(ok.body.repository_storages_weighted).toEqual({ default: 50 });
    expect((await put({ repository_storages_weighted: { default: 'lots' } })).body).toEqual({ error: 'repository_storages_weighted is invalid' });
    expect((await put({ repository_storages_weighted: { elsewhere: 10 } })).body).toEqual({ message: { repository_storages_weighted: ["can't include: elsewhere"] } });
    expect((await put({ repository_storages_weighted: { default: 101 } })).body).toEqual({ message: { repository_storages_weighted: ["value for 'default' must be between 0 and 100"] } });
    expect((await api('/application/settings', { token: rootToken })).body.repository_storages_weighted).toEqual({ default: 50 });
  });

  it('sets a nullable attribute back to null and moves updated_at', async () => {
    const before = (await api('/application/settings', { token: rootToken })).body;
    const set = await put({ max_personal_access_token_lifetime: 30 });
    expect(set.status).toBe(200);
    expect(set.body.max_personal_access_token_lifetime).toBe(30);
    expect(Date.parse(set.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect(set.body.created_at).toBe(before.created_at);
    const reset = await put({ max_personal_access_token_lifetime: null });
    expect(reset.status).toBe(200);
    expect(reset.body.max_personal_access_token_lifetime).toBeNull();
    expect((await api('/application/settings', { token: rootToken })).body.max_personal_access_token_lifetime).toBeNull();
  });

  it('with admin_mode on, refuses an administrator whose token lacks the admin_mode scope', async () => {
    const plainAdmin = await createUser({ admin: true, scopes: ['api'] });
    expect((await api('/application/settings', { token: plainAdmin.token })).status).toBe(200);
    const on = await put({ admin_mode: true });
    expect(on.status).toBe(200);
    expect(on.body.admin_mode).toBe(true);
    const refused = await api('/application/settings', { token: plainAdmin.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: '403 Forbidden' });
    expect((await put({ after_sign_up_text: 'x' }, plainAdmin.token)).status).toBe(403);
    const off = await put({ admin_mode: false });
    expect(off.status).toBe(200);
    expect((await api('/application/settings', { token: plainAdmin.token })).status).toBe(200);
  });

  it('accepts the text form of a list setting (*_raw)', async () => {
    const res = await put({ users_get_by_id_limit_allowlist_raw: 'alice\nbob, carol;dave' });
    expect(res.status).toBe(200);
    expect(res.body.users_get_by_id_limit_allowlist).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(res.body.users_get_by_id_limit_allowlist_raw).toBe('alice\nbob\ncarol\ndave');
    expect((await api('/application/settings', { token: rootToken })).body.users_get_by_id_limit_allowlist).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  it('is documented with its parameters in the OpenAPI document', async () => {
    const doc = await api('/-/openapi.json');
    expect(doc.status).toBe(200);
    const op = doc.body.paths['/api/v4/application/settings'].put;
    const names = JSON.stringify(op);
    for (const n of ['admin_mode', 'personal_access_token_prefix', 'rsa_key_restriction', 'throttle_authenticated_api_enabled']) expect(names).toContain(`"${n}"`);
  });
});
