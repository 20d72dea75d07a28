/**
 * Audit of GET /application/settings on a fresh instance (issue 17 item 2): every attribute of the
 * spec's ApplicationSettings list (doc 001) is answered, with GitLab's fresh-instance default
 * (reference B §2.3; the spec's own "default ..." notes win where the two differ), secrets never.
 *
 * The list is copied from the spec's attribute table (doc 001 "ApplicationSettings", comma-separated
 * rows split, tier notes dropped) plus the attributes its prose names; the harness runs in workerd
 * too, where the spec files cannot be read, so it is a literal. Each test file has its own storage,
 * so this file sees the instance as created.
 */
import { describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';

// doc 001 "ApplicationSettings": the table's attributes, in the table's order.
const SPEC_TABLE = `admin_mode admin_notification_email abuse_notification_email after_sign_out_path after_sign_up_text
spamsvc_api_key spamsvc_enabled allow_group_owners_to_manage_ldap allow_local_requests_from_hooks_and_services
allow_local_requests_from_system_hooks allow_local_requests_from_web_hooks_and_services archive_builds_in_human_readable
asset_proxy_enabled asset_proxy_secret_key asset_proxy_url asset_proxy_whitelist asset_proxy_allowlist authorized_keys_enabled
auto_devops_domain auto_devops_enabled automatic_purchased_storage_allocation check_namespace_plan commit_email_hostname
container_expiration_policies_enable_historic_entries container_registry_cleanup_tags_service_max_list_size
container_registry_delete_tags_service_timeout container_registry_expiration_policies_caching
container_registry_expiration_policies_worker_capacity container_registry_token_expire_delay deactivate_dormant_users
default_artifacts_expire_in default_branch_name default_branch_protection default_ci_config_path default_group_visibility
default_project_creation default_project_visibility default_projects_limit default_snippet_visibility delayed_project_deletion
deletion_adjourned_period diff_max_patch_bytes diff_max_files diff_max_lines disable_feed_token disabled_oauth_sign_in_sources
dns_rebinding_protection_enabled domain_denylist_enabled domain_denylist domain_allowlist dsa_key_restriction
ecdsa_key_restriction ecdsa_sk_key_restriction ed25519_key_restriction ed25519_sk_key_restriction clustersvc_access_key_id
clustersvc_account_id clustersvc_secret_access_key clustersvc_integration_enabled searchsvc_aws_access_key searchsvc_aws_region
searchsvc_aws_secret_access_key searchsvc_aws searchsvc_indexed_field_length_limit searchsvc_indexed_file_size_limit_kb
searchsvc_indexing searchsvc_limit_indexing searchsvc_search searchsvc_max_bulk_concurrency searchsvc_max_bulk_size_mb
searchsvc_namespace_ids searchsvc_project_ids searchsvc_url searchsvc_username searchsvc_password email_additional_text
email_author_in_body enabled_git_access_protocol enforce_namespace_storage_limit enforce_terms external_auth_client_cert
external_auth_client_key external_auth_client_key_pass external_authorization_service_enabled
external_authorization_service_default_label external_authorization_service_timeout external_authorization_service_url
external_pipeline_validation_service_url external_pipeline_validation_service_token external_pipeline_validation_service_timeout
file_template_project_id first_day_of_week geo_node_allowed_ips geo_status_timeout git_two_factor_session_expiry
storage_timeout_default storage_timeout_fast storage_timeout_medium dashboard_enabled dashboard_url avatarsvc_enabled
hashed_storage_enabled help_page_hide_commercial_content help_page_support_url help_page_text help_text hide_third_party_offers
home_page_url housekeeping_enabled housekeeping_bitmaps_enabled housekeeping_full_repack_period housekeeping_gc_period
housekeeping_incremental_repack_period html_emails_enabled import_sources in_product_marketing_emails_enabled
invisible_captcha_enabled issues_create_limit keep_latest_artifact local_markdown_version mailsvc_signing_key
mailsvc_events_enabled maintenance_mode_message maintenance_mode max_artifacts_size max_attachment_size max_pages_size
max_import_size max_personal_access_token_lifetime max_ssh_key_lifetime metrics_method_call_threshold mirror_available
mirror_capacity_threshold mirror_max_capacity mirror_max_delay npm_package_requests_forwarding pypi_package_requests_forwarding
outbound_local_requests_whitelist pages_domain_verification_enabled password_authentication_enabled_for_git
password_authentication_enabled_for_web performance_bar_allowed_group_id`.split(/\s+/);

// doc 001 "ApplicationSettings", the prose before the table ("Besides the attributes in the table below it carries: ...").
const SPEC_PROSE = `id created_at updated_at signup_enabled restricted_visibility_levels user_oauth_applications session_expire_delay
sign_in_text repository_storages_weighted terminal_max_session_time polling_interval_multiplier terms user_show_add_ssh_key_message
snippet_size_limit raw_blob_request_limit wiki_page_max_content_bytes require_admin_approval_after_user_signup
personal_access_token_prefix rate_limiting_response_text floc_enabled textdiagram_enabled textdiagram_url diagramproxy_enabled
diagramproxy_url`.split(/\s+/);

/**
 * Never returned (reference B §2.1 "Secrets never exposed"; GitLab's entity leaves out every
 * `*_secret_*`, key, password and token attribute). `performance_bar_allowed_group_path` is the
 * input form of `performance_bar_allowed_group_id` and is not in the entity either.
 */
const SECRETS = [
  'spamsvc_api_key',
  'asset_proxy_secret_key',
  'clustersvc_secret_access_key',
  'searchsvc_aws_secret_access_key',
  'searchsvc_password',
  'external_auth_client_key',
  'external_auth_client_key_pass',
  'external_pipeline_validation_service_token',
  'mailsvc_signing_key',
];

/** The deprecated names GET still answers, each equal to the attribute it stands for (reference B §2.1). */
const ALIASES: [string, string][] = [
  ['password_authentication_enabled', 'password_authentication_enabled_for_web'],
  ['signin_enabled', 'password_authentication_enabled_for_web'],
  ['allow_local_requests_from_hooks_and_services', 'allow_local_requests_from_web_hooks_and_services'],
  ['asset_proxy_whitelist', 'asset_proxy_allowlist'],
];

/**
 * Input names only: the spec lists `admin_notification_email` as "deprecated, use
 * abuse_notification_email"; PUT translates it (reference B §2.1) and GitLab's entity has no such
 * key, so GET answers `abuse_notification_email` alone.
 */
const INPUT_ONLY = ['admin_notification_email'];

/**
 * Fresh-instance values. Spec notes first (doc 001: "default 2", "default null (no restriction)",
 * "disabled by default", ...), then reference B §2.3 for what the spec leaves open. Where §2.3 gives
 * two values the newer GitLab one is taken (max_attachment_size 100, personal_access_token_prefix
 * `glpat-`, require_admin_approval_after_user_signup false as the API documentation shows).
 */
const DEFAULTS: Record<string, unknown> = {
  // doc 001 notes
  default_branch_protection: 2,
  default_group_visibility: 'private',
  default_project_visibility: 'private',
  default_snippet_visibility: 'private',
  default_projects_limit: 100000,
  delayed_project_deletion: false,
  domain_allowlist: null,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ecdsa_sk_key_restriction: 0,
  ed25519_key_restriction: 0,
  ed25519_sk_key_restriction: 0,
  first_day_of_week: 0,
  in_product_marketing_emails_enabled: true,
  invisible_captcha_enabled: false,
  issues_create_limit: 0,
  keep_latest_artifact: true,
  max_import_size: 0,
  password_authentication_enabled_for_git: true,
  password_authentication_enabled_for_web: true,
  // reference B §2.3
  id: 1,
  default_project_creation: 2,
  restricted_visibility_levels: [],
  signup_enabled: true,
  session_expire_delay: 10080,
  max_attachment_size: 100,
  max_artifacts_size: 100,
  max_pages_size: 100,
  container_registry_token_expire_delay: 5,
  terminal_max_session_time: 0,
  polling_interval_multiplier: 1,
  rsa_key_restriction: 0,
  home_page_url: null,
  after_sign_out_path: null,
  sign_in_text: null,
  help_page_text: null,
  after_sign_up_text: null,
  domain_denylist_enabled: false,
  domain_denylist: [],
  outbound_local_requests_whitelist: [],
  allow_local_requests_from_web_hooks_and_services: false,
  allow_local_requests_from_system_hooks: true,
  dns_rebinding_protection_enabled: true,
  housekeeping_enabled: true,
  housekeeping_bitmaps_enabled: true,
  housekeeping_incremental_repack_period: 10,
  housekeeping_full_repack_period: 50,
  housekeeping_gc_period: 200,
  snippet_size_limit: 52428800,
  wiki_page_max_content_bytes: 52428800,
  raw_blob_request_limit: 300,
  local_markdown_version: 0,
  user_show_add_ssh_key_message: true,
  require_admin_approval_after_user_signup: false,
  personal_access_token_prefix: 'glpat-',
  rate_limiting_response_text: null,
  floc_enabled: false,
  repository_storages_weighted: { default: 100 },
  authorized_keys_enabled: true,
  default_artifacts_expire_in: '30 days',
  storage_timeout_default: 55,
  storage_timeout_medium: 30,
  storage_timeout_fast: 10,
  asset_proxy_enabled: false,
  mirror_available: true,
  textdiagram_enabled: false,
  diagramproxy_enabled: false,
  hashed_storage_enabled: true,
  admin_mode: false,
  abuse_notification_email: null,
  enforce_terms: false,
  archive_builds_in_human_readable: null,
  max_personal_access_token_lifetime: null,
  max_ssh_key_lifetime: null,
};

const get = async () => {
  const res = await api('/application/settings', { token: rootToken });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
};

describe('GET /application/settings on a fresh instance', () => {
  it('answers every attribute of the spec list, secrets excepted', async () => {
    const body = await get();
    const missing = [...SPEC_TABLE, ...SPEC_PROSE].filter((k) => !SECRETS.includes(k) && !INPUT_ONLY.includes(k) && !(k in body));
    expect(missing).toEqual([]);
  });

  it('never answers a secret', async () => {
    const body = await get();
    expect(SECRETS.filter((k) => k in body)).toEqual([]);
    // No other secret-looking key slipped in (disable_feed_token is a switch, not a token).
    expect(Object.keys(body).filter((k) => k !== 'disable_feed_token' && /secret|password$|_token$|signing_key|client_key/.test(k))).toEqual([]);
  });

  it('answers the fresh-instance default of each attribute', async () => {
    const body = await get();
    const wrong = Object.entries(DEFAULTS)
      .filter(([k, v]) => JSON.stringify(body[k]) !== JSON.stringify(v))
      .map(([k, v]) => `${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(body[k])}`);
    expect(wrong).toEqual([]);
  });

  it('answers the legacy aliases with the values of the attributes they stand for', async () => {
    const body = await get();
    for (const [alias, name] of ALIASES) expect([alias, body[alias]]).toEqual([alias, body[name]]);
    for (const name of INPUT_ONLY) expect(name in body).toBe(false);
  });

  it('answers id first and the legacy aliases after the attributes (the entity order)', async () => {
    const keys = Object.keys(await get());
    expect(keys[0]).toBe('id');
    const lastAttribute = Math.max(...['password_authentication_enabled_for_web', 'default_projects_limit', 'signup_enabled'].map((k) => keys.indexOf(k)));
    expect(keys.indexOf('password_authentication_enabled')).toBeGreaterThan(lastAttribute);
  });

  it('answers the import sources GitLab enables on a new instance, gitlab_project among them', async () => {
    const body = await get();
    expect(body.import_sources).toEqual(expect.arrayContaining(['github', 'bitbucket', 'gitlab_project', 'git', 'manifest']));
  });
});
