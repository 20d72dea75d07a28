/**
 * PUT /application/settings, reference B §2.2 "Model layer": each ApplicationSetting validation answers
 * 400 `{"message":{attr:[...]}}` and stores nothing. Every PUT here is refused, so no setting another
 * test file reads ever changes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';

let original: Record<string, any>;

const put = (body: Record<string, unknown>) => api('/application/settings', { method: 'PUT', token: rootToken, body });
const current = async () => (await api('/application/settings', { token: rootToken })).body;

beforeAll(async () => {
  original = await current();
});

const CASES: [string, Record<string, unknown>, Record<string, string[]>][] = [
  ['session_expire_delay ≥ 0', { session_expire_delay: -1 }, { session_expire_delay: ['must be greater than or equal to 0'] }],
  ['two_factor_grace_period ≥ 0', { two_factor_grace_period: -5 }, { two_factor_grace_period: ['must be greater than or equal to 0'] }],
  ['max_attachment_size > 0', { max_attachment_size: 0 }, { max_attachment_size: ['must be greater than 0'] }],
  ['max_artifacts_size > 0', { max_artifacts_size: 0 }, { max_artifacts_size: ['must be greater than 0'] }],
  ['max_import_size ≥ 0', { max_import_size: -1 }, { max_import_size: ['must be greater than or equal to 0'] }],
  ['max_pages_size below the pages hard max', { max_pages_size: 1024 * 1024 }, { max_pages_size: ['must be less than 1048576'] }],
  ['container_registry_token_expire_delay > 0', { container_registry_token_expire_delay: 0 }, { container_registry_token_expire_delay: ['must be greater than 0'] }],
  [
    'housekeeping periods: full ≥ incremental, gc ≥ full',
    { housekeeping_enabled: true, housekeeping_bitmaps_enabled: true, housekeeping_incremental_repack_period: 10, housekeeping_full_repack_period: 5, housekeeping_gc_period: 200 },
    { housekeeping_full_repack_period: ['must be greater than or equal to 10'] },
  ],
  ['terminal_max_session_time ≥ 0', { terminal_max_session_time: -1 }, { terminal_max_session_time: ['must be greater than or equal to 0'] }],
  ['polling_interval_multiplier ≥ 0', { polling_interval_multiplier: -0.5 }, { polling_interval_multiplier: ['must be greater than or equal to 0'] }],
  ['storage timeouts: default ≤ 57', { storage_timeout_default: 58 }, { storage_timeout_default: ['must be less than or equal to 57'] }],
  ['storage timeouts: fast ≤ medium', { storage_timeout_fast: 40, storage_timeout_medium: 30 }, { storage_timeout_medium: ['must be greater than or equal to 40'] }],
  ['diff_max_patch_bytes within its bounds', { diff_max_patch_bytes: 100 }, { diff_max_patch_bytes: ['must be greater than or equal to 204800'] }],
  ['local_markdown_version below 65536', { local_markdown_version: 65536 }, { local_markdown_version: ['must be less than 65536'] }],
  ['snippet_size_limit > 0', { snippet_size_limit: 0 }, { snippet_size_limit: ['must be greater than 0'] }],
  ['wiki_page_max_content_bytes ≥ 1024', { wiki_page_max_content_bytes: 1023 }, { wiki_page_max_content_bytes: ['must be greater than or equal to 1024'] }],
  ['issues_create_limit ≥ 0', { issues_create_limit: -1 }, { issues_create_limit: ['must be greater than or equal to 0'] }],
  ['raw_blob_request_limit ≥ 0', { raw_blob_request_limit: -1 }, { raw_blob_request_limit: ['must be greater than or equal to 0'] }],
  ['push_event_hooks_limit ≥ 0', { push_event_hooks_limit: -1 }, { push_event_hooks_limit: ['must be greater than or equal to 0'] }],
  ['default_ci_config_path without a leading slash', { default_ci_config_path: '/ci.yml' }, { default_ci_config_path: ['cannot include leading slash or directory traversal.'] }],
  ['default_ci_config_path without traversal', { default_ci_config_path: 'a/../ci.yml' }, { default_ci_config_path: ['cannot include leading slash or directory traversal.'] }],
  ['outbound_local_requests_whitelist at most 1000 entries', { outbound_local_requests_whitelist: Array.from({ length: 1001 }, (_, i) => `h${i}.example`) }, { outbound_local_requests_whitelist: ['is too long (maximum is 1000 entries)'] }],
  ['protected_paths at most 100 entries', { protected_paths: Array.from({ length: 101 }, (_, i) => `/p${i}`) }, { protected_paths: ['is too long (maximum is 100 entries)'] }],
  ['commit_email_hostname without @', { commit_email_hostname: 'users@example.com' }, { commit_email_hostname: ['is invalid'] }],
  ['home_page_url a valid URL', { home_page_url: 'not a url' }, { home_page_url: ['must be a valid URL'] }],
  ['after_sign_out_path a valid URL', { after_sign_out_path: 'ftp://example.com' }, { after_sign_out_path: ['must be a valid URL'] }],
  ['help_page_support_url a valid URL', { help_page_support_url: 'example' }, { help_page_support_url: ['must be a valid URL'] }],
  ['abuse_notification_email a valid email', { abuse_notification_email: 'nobody' }, { abuse_notification_email: ['is invalid'] }],
  [
    'allowed_key_types not empty',
    { rsa_key_restriction: -1, dsa_key_restriction: -1, ecdsa_key_restriction: -1, ecdsa_sk_key_restriction: -1, ed25519_key_restriction: -1, ed25519_sk_key_restriction: -1 },
    { allowed_key_types: ["can't be blank"] },
  ],
  ['asset proxy URL and secret when enabled', { asset_proxy_enabled: true }, { asset_proxy_url: ["can't be blank"], asset_proxy_secret_key: ["can't be blank"] }],
  [
    'external authorization: label, URL and timeout when enabled',
    { external_authorization_service_enabled: true, external_authorization_service_url: 'nope', external_authorization_service_timeout: 11 },
    { external_authorization_service_default_label: ["can't be blank"], external_authorization_service_url: ['must be a valid URL'], external_authorization_service_timeout: ['must be less than or equal to 10'] },
  ],
  ['external_auth_client_key when a client certificate is set', { external_auth_client_cert: '-----BEGIN CERTIFICATE-----' }, { external_auth_client_key: ["can't be blank"] }],
  [
    'cluster service account id and key lengths when enabled',
    { clustersvc_integration_enabled: true, clustersvc_account_id: '123', clustersvc_access_key_id: 'short', clustersvc_secret_access_key: 'x' },
    { clustersvc_account_id: ['must be a 12-digit number'], clustersvc_access_key_id: ['is too short (minimum is 16 characters)'] },
  ],
  ['storage timeouts: medium ≤ default', { storage_timeout_medium: 56 }, { storage_timeout_medium: ['must be less than or equal to 55'] }],
  [
    'housekeeping periods: gc ≥ full',
    { housekeeping_enabled: true, housekeeping_bitmaps_enabled: true, housekeeping_incremental_repack_period: 10, housekeeping_full_repack_period: 50, housekeeping_gc_period: 20 },
    { housekeeping_gc_period: ['must be greater than or equal to 50'] },
  ],
  ['housekeeping_incremental_repack_period > 0', { housekeeping_enabled: true, housekeeping_bitmaps_enabled: true, housekeeping_incremental_repack_period: 0, housekeeping_full_repack_period: 50, housekeeping_gc_period: 200 }, { housekeeping_incremental_repack_period: ['must be greater than 0'] }],
  ['personal_access_token_prefix at most 20 characters', { personal_access_token_prefix: 'p'.repeat(21) }, { personal_access_token_prefix: ['is too long (maximum is 20 characters)'] }],
  ['personal_access_token_prefix in the Base64 alphabet with @ : .', { personal_access_token_prefix: 'pat#' }, { personal_access_token_prefix: ["can contain only letters of the Base64 alphabet (RFC4648) with the addition of '@', ':' and '.'"] }],
  ['minimum_password_length ≥ 8', { minimum_password_length: 7 }, { minimum_password_length: ['must be greater than or equal to 8'] }],
  ['max_personal_access_token_lifetime ≤ 365', { max_personal_access_token_lifetime: 366 }, { max_personal_access_token_lifetime: ['must be less than or equal to 365'] }],
  ['deletion_adjourned_period ≤ 90', { deletion_adjourned_period: 91 }, { deletion_adjourned_period: ['must be less than or equal to 90'] }],
  ['geo_node_allowed_ips a comma list of addresses', { geo_node_allowed_ips: '10.0.0.0/8, nowhere' }, { geo_node_allowed_ips: ['must be a valid IP address or CIDR'] }],
  ['rate_limiting_response_text at most 255 characters', { rate_limiting_response_text: 'x'.repeat(256) }, { rate_limiting_response_text: ['is too long (maximum is 255 characters)'] }],
  ['restricted_visibility_levels entries valid', { restricted_visibility_levels: ['hidden'] }, { restricted_visibility_levels: ["'hidden' is not a valid visibility level"] }],
  ['domain_denylist when the denylist is enabled', { domain_denylist_enabled: true, domain_denylist: [] }, { domain_denylist: ['Domain denylist cannot be empty if denylist is enabled.'] }],
];

describe('ApplicationSetting model validations (reference B §2.2)', () => {
  it.each(CASES)('%s', async (_name, body, errors) => {
    const res = await put({ ...body, after_sign_up_text: 'never stored' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: errors });
    const after = await current();
    for (const key of [...Object.keys(body), 'after_sign_up_text']) if (key in original) expect(after[key]).toEqual(original[key]);
  });
});

const GRAPE: [string, Record<string, unknown>, string][] = [
  ['cluster service keys', { clustersvc_integration_enabled: true }, 'clustersvc_account_id is missing, clustersvc_access_key_id is missing, clustersvc_secret_access_key is missing'],
  ['diagram proxy URL', { diagramproxy_enabled: true }, 'diagramproxy_url is missing'],
  ['text diagram URL', { textdiagram_enabled: true }, 'textdiagram_url is missing'],
  ['two-factor grace period', { require_two_factor_authentication: true }, 'two_factor_grace_period is missing'],
  ['shared runners text', { shared_runners_enabled: true }, 'shared_runners_text is missing'],
  ['spam check endpoint URL', { spam_check_endpoint_enabled: true }, 'spam_check_endpoint_url is missing'],
  ['password sign-in names are mutually exclusive', { password_authentication_enabled_for_web: true, signin_enabled: true }, 'password_authentication_enabled_for_web, signin_enabled are mutually exclusive'],
  ['default_project_creation ∈ 0..2', { default_project_creation: 3 }, 'default_project_creation does not have a valid value'],
  ['dsa_key_restriction sizes', { dsa_key_restriction: 4096 }, 'dsa_key_restriction does not have a valid value'],
  ['ecdsa_key_restriction sizes', { ecdsa_key_restriction: 512 }, 'ecdsa_key_restriction does not have a valid value'],
  ['default_group_visibility names', { default_group_visibility: 'everyone' }, 'default_group_visibility does not have a valid value'],
  ['spam service key', { spamsvc_enabled: true }, 'spamsvc_api_key is missing'],
  [
    'housekeeping periods',
    { housekeeping_enabled: true },
    'housekeeping_bitmaps_enabled is missing, housekeeping_full_repack_period is missing, housekeeping_gc_period is missing, housekeeping_incremental_repack_period is missing',
  ],
  ['legacy sign-in names are mutually exclusive', { password_authentication_enabled: true, signin_enabled: false }, 'password_authentication_enabled, signin_enabled are mutually exclusive'],
  ['default_branch_protection ∈ 0..2', { default_branch_protection: 5 }, 'default_branch_protection does not have a valid value'],
  ['default_snippet_visibility names', { default_snippet_visibility: 'open' }, 'default_snippet_visibility does not have a valid value'],
  ['rsa_key_restriction sizes', { rsa_key_restriction: 512 }, 'rsa_key_restriction does not have a valid value'],
  ['ed25519_sk_key_restriction sizes', { ed25519_sk_key_restriction: 384 }, 'ed25519_sk_key_restriction does not have a valid value'],
  ['ecdsa_sk_key_restriction sizes', { ecdsa_sk_key_restriction: 521 }, 'ecdsa_sk_key_restriction does not have a valid value'],
  ['enabled_git_access_protocol ∈ ssh, http, nil', { enabled_git_access_protocol: 'git' }, 'enabled_git_access_protocol does not have a valid value'],
  ['import_sources from the fixed list', { import_sources: ['github', 'svn'] }, 'import_sources does not have a valid value'],
];

describe('PUT with no known attribute (Grape at_least_one_of)', () => {
  it('answers 400 naming every attribute and stores nothing', async () => {
    const res = await put({ not_a_setting: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^abuse_notification_email, admin_mode, .* are missing, at least one parameter must be provided$/);
    expect(res.body.error).toContain(', default_projects_limit, ');
    expect(await current()).toEqual(original);
  });
});

describe('hashed_storage_enabled', () => {
  it('is dropped silently by the API (lib/api/settings.rb), so the stored value stays true', async () => {
    const res = await put({ hashed_storage_enabled: false });
    expect(res.status).toBe(200);
    expect(res.body.hashed_storage_enabled).toBe(true);
    expect((await current()).hashed_storage_enabled).toBe(true);
  });
});

describe('Grape parameter rules (reference B §2.2 "Grape layer")', () => {
  it.each(GRAPE)('%s', async (_name, body, error) => {
    const res = await put({ ...body, after_sign_up_text: 'never stored' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
    const after = await current();
    for (const key of [...Object.keys(body), 'after_sign_up_text']) if (key in original) expect(after[key]).toEqual(original[key]);
  });
});
