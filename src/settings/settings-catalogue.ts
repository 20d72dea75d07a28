/**
 * The catalogue of application settings: one entry per attribute, in the order GitLab's
 * ApplicationSetting entity exposes them (ApplicationSettingsHelper.visible_attributes, ~15.0),
 * with vendor names replaced by the spec's neutral words (document 2 'ApplicationSettings').
 * From it come the fresh-instance defaults (settings.ts), the PUT parameter types
 * (settings-params.ts) and the GET shape and its schema (settings-entity.ts).
 */
import type { Plan } from '../platform/config';

export type SettingType =
  | 'bool'
  | 'int'
  | 'float'
  | 'string'
  /** `Array[String]` with CommaSeparatedToArray (`a,b` or `x[]=a&x[]=b`). */
  | 'csv'
  | 'intArray'
  | 'hash'
  | 'visibility';

export interface SettingDef {
  name: string;
  type: SettingType;
  def: unknown;
  /** Plan that includes the attribute (spec marks them "(premium)" / "(ultimate)"). */
  tier?: Plan;
  /** Accepted by PUT, never returned (stored as a digest). */
  secret?: boolean;
  /** Grape `values:` */
  values?: readonly (string | number)[];
  /** Readable and writable but kept out of the entity (GitLab deletes them from exposed_attributes). */
  hidden?: boolean;
}

export const VISIBILITY = ['private', 'internal', 'public'] as const;
// spec: "a fixed set of eleven values" (lib/api/settings.rb ~13.8 values list).
export const IMPORT_SOURCES = ['github', 'bitbucket', 'bitbucket_server', 'gitlab', 'google_code', 'fogbugz', 'git', 'gitlab_project', 'gitea', 'manifest', 'phabricator'] as const;
// KeyRestrictionValidator.supported_key_restrictions: 0 (allowed), supported sizes, -1 (forbidden).
export const KEY_RESTRICTIONS: Record<string, readonly number[]> = {
  rsa: [0, 1024, 2048, 3072, 4096, -1],
  dsa: [0, 1024, 2048, 3072, -1],
  ecdsa: [0, 256, 384, 521, -1],
  ecdsa_sk: [0, 256, -1],
  ed25519: [0, 256, -1],
  ed25519_sk: [0, 256, -1],
};
export const PROTECTED_PATHS_DEFAULT = [
  '/users/password',
  '/users/sign_in',
  '/api/v3/session.json',
  '/api/v3/session',
  '/api/v4/session.json',
  '/api/v4/session',
  '/users',
  '/users/confirmation',
  '/unsubscribes/',
  '/import/github/personal_access_token',
  '/admin/session',
];

const b = (name: string, def: boolean, o: Partial<SettingDef> = {}): SettingDef => ({ name, type: 'bool', def, ...o });
const i = (name: string, def: number | null, o: Partial<SettingDef> = {}): SettingDef => ({ name, type: 'int', def, ...o });
const s = (name: string, def: string | null, o: Partial<SettingDef> = {}): SettingDef => ({ name, type: 'string', def, ...o });
const f = (name: string, def: number | null, o: Partial<SettingDef> = {}): SettingDef => ({ name, type: 'float', def, ...o });
const arr = (name: string, def: string[] | null, o: Partial<SettingDef> = {}): SettingDef => ({ name, type: 'csv', def, ...o });
const secret = (name: string, o: Partial<SettingDef> = {}): SettingDef => ({ name, type: 'string', def: null, secret: true, ...o });
const vis = (name: string): SettingDef => ({ name, type: 'visibility', def: 'private', values: VISIBILITY });
const throttle = (name: string, requests: number, period: number): SettingDef[] => [
  b(`throttle_${name}_enabled`, false),
  i(`throttle_${name}_period_in_seconds`, period),
  i(`throttle_${name}_requests_per_period`, requests),
];
const key = (type: string) => i(`${type}_key_restriction`, 0, { values: KEY_RESTRICTIONS[type] });

/** Every attribute, in entity order. Attributes with `tier` come last, as GitLab's EE entity appends them. */
export const SETTINGS: SettingDef[] = [
  s('abuse_notification_email', null),
  b('admin_mode', false),
  s('after_sign_out_path', null),
  s('after_sign_up_text', null),
  secret('spamsvc_api_key'),
  b('spamsvc_enabled', false),
  b('allow_local_requests_from_web_hooks_and_services', false),
  b('allow_local_requests_from_system_hooks', true),
  b('dns_rebinding_protection_enabled', true),
  s('archive_builds_in_human_readable', null),
  b('asset_proxy_enabled', false),
  secret('asset_proxy_secret_key'),
  s('asset_proxy_url', null),
  arr('asset_proxy_allowlist', []),
  s('static_objects_external_storage_url', null),
  b('authorized_keys_enabled', true),
  b('auto_devops_enabled', true),
  s('auto_devops_domain', null),
  b('automatic_purchased_storage_allocation', false),
  b('container_expiration_policies_enable_historic_entries', false),
  b('container_registry_expiration_policies_caching', true),
  i('container_registry_token_expire_delay', 5),
  s('default_artifacts_expire_in', '30 days'),
  s('default_branch_name', null),
  i('default_branch_protection', 2, { values: [0, 1, 2] }),
  s('default_ci_config_path', null),
  vis('default_group_visibility'),
  i('default_project_creation', 2, { values: [0, 1, 2] }),
  vis('default_project_visibility'),
  i('default_projects_limit', 100000),
  vis('default_snippet_visibility'),
  b('delete_inactive_projects', false),
  b('disable_feed_token', false),
  arr('disabled_oauth_sign_in_sources', []),
  arr('domain_denylist', []),
  b('domain_denylist_enabled', false),
  // spec: "default null (no restriction)"
  arr('domain_allowlist', null),
  arr('outbound_local_requests_whitelist', []),
  key('dsa'),
  key('ecdsa'),
  key('ecdsa_sk'),
  key('ed25519'),
  key('ed25519_sk'),
  b('clustersvc_integration_enabled', false),
  s('clustersvc_account_id', null),
  s('clustersvc_access_key_id', null),
  secret('clustersvc_secret_access_key'),
  b('email_author_in_body', false),
  s('enabled_git_access_protocol', null, { values: ['ssh', 'http', 'nil'] }),
  b('enforce_namespace_storage_limit', false),
  b('enforce_terms', false),
  i('external_pipeline_validation_service_timeout', null),
  secret('external_pipeline_validation_service_token'),
  s('external_pipeline_validation_service_url', null),
  i('first_day_of_week', 0),
  b('floc_enabled', false),
  b('force_pages_access_control', false),
  i('storage_timeout_default', 55),
  i('storage_timeout_medium', 30),
  i('storage_timeout_fast', 10),
  b('dashboard_enabled', false),
  // GitLab's default points at its bundled dashboard under /-/; the vendor name stays out.
  s('dashboard_url', '/-/dashboard'),
  b('avatarsvc_enabled', true),
  b('hashed_storage_enabled', true),
  b('help_page_hide_commercial_content', false),
  s('help_page_support_url', null),
  s('help_page_documentation_base_url', null),
  s('help_page_text', null),
  b('hide_third_party_offers', false),
  s('home_page_url', null),
  b('housekeeping_enabled', true),
  b('housekeeping_bitmaps_enabled', true),
  i('housekeeping_full_repack_period', 50),
  i('housekeeping_gc_period', 200),
  i('housekeeping_incremental_repack_period', 10),
  b('html_emails_enabled', true),
  { name: 'import_sources', type: 'csv', def: [...IMPORT_SOURCES], values: IMPORT_SOURCES },
  b('in_product_marketing_emails_enabled', true),
  i('inactive_projects_delete_after_months', 2),
  i('inactive_projects_min_size_mb', 0),
  i('inactive_projects_send_warning_email_after_months', 1),
  b('invisible_captcha_enabled', false),
  i('max_artifacts_size', 100),
  i('max_attachment_size', 100),
  i('max_decompressed_archive_size', 25600),
  i('max_export_size', 0),
  i('max_import_size', 0),
  i('max_pages_size', 100),
  i('max_yaml_size_bytes', 1048576),
  i('max_yaml_depth', 100),
  i('metrics_method_call_threshold', 10),
  i('minimum_password_length', 8),
  b('mirror_available', true),
  b('notify_on_unknown_sign_in', true),
  b('pages_domain_verification_enabled', true),
  b('password_authentication_enabled_for_web', true),
  b('password_authentication_enabled_for_git', true),
  s('performance_bar_allowed_group_path', null, { hidden: true }),
  s('personal_access_token_prefix', 'glpat-'),
  b('diagramproxy_enabled', false),
  s('diagramproxy_url', null),
  b('textdiagram_enabled', false),
  s('textdiagram_url', null),
  f('polling_interval_multiplier', 1),
  b('project_export_enabled', true),
  i('receive_max_input_size', null),
  b('repository_checks_enabled', true),
  b('require_admin_approval_after_user_signup', false),
  b('require_personal_access_token_expiry', true),
  b('require_two_factor_authentication', false),
  { name: 'restricted_visibility_levels', type: 'csv', def: [] },
  key('rsa'),
  b('send_user_confirmation_email', false),
  i('session_expire_delay', 10080),
  b('shared_runners_enabled', true),
  s('shared_runners_text', null),
  s('sign_in_text', null),
  b('signup_enabled', true),
  b('spam_check_endpoint_enabled', false),
  s('spam_check_endpoint_url', null),
  secret('spam_check_api_key'),
  i('terminal_max_session_time', 0),
  s('terms', null),
  ...throttle('authenticated_api', 7200, 3600),
  ...throttle('authenticated_git_lfs', 1000, 60),
  ...throttle('authenticated_web', 7200, 3600),
  ...throttle('authenticated_packages_api', 1000, 15),
  ...throttle('authenticated_files_api', 500, 15),
  ...throttle('authenticated_deprecated_api', 3600, 3600),
  ...throttle('unauthenticated_api', 3600, 3600),
  ...throttle('unauthenticated', 3600, 3600),
  ...throttle('unauthenticated_packages_api', 800, 15),
  ...throttle('unauthenticated_files_api', 125, 15),
  ...throttle('unauthenticated_deprecated_api', 1800, 3600),
  ...throttle('protected_paths', 60, 10),
  arr('protected_paths', PROTECTED_PATHS_DEFAULT),
  b('time_tracking_limit_to_hours', false),
  i('two_factor_grace_period', 48),
  b('unique_ips_limit_enabled', false),
  i('unique_ips_limit_per_user', 10),
  i('unique_ips_limit_time_window', 3600),
  b('usage_ping_enabled', true),
  b('usage_ping_features_enabled', false),
  b('user_default_external', false),
  b('user_defaults_to_private_profile', false),
  b('user_show_add_ssh_key_message', true),
  s('user_default_internal_regex', null),
  b('user_oauth_applications', true),
  // Which registration tokens besides the instance's may register runners (Ci::Runners::RegisterRunnerService).
  { name: 'valid_runner_registrars', type: 'csv', def: ['project', 'group'], values: ['project', 'group'] },
  b('version_check_enabled', true),
  b('web_ide_clientside_preview_enabled', false),
  i('diff_max_patch_bytes', 204800),
  i('diff_max_files', 1000),
  i('diff_max_lines', 50000),
  // null renders as `users.noreply.<host>` (ApplicationSettingImplementation defaults).
  s('commit_email_hostname', null),
  b('protected_ci_variables', true),
  i('local_markdown_version', 0),
  secret('mailsvc_signing_key'),
  b('mailsvc_events_enabled', false),
  i('push_event_hooks_limit', 3),
  i('push_event_activities_limit', 3),
  s('custom_http_clone_url_root', null),
  i('snippet_size_limit', 52428800),
  b('email_restrictions_enabled', false),
  s('email_restrictions', null),
  // spec (Document 1 Limits): "disabled by default" — 0 means disabled.
  i('issues_create_limit', 0),
  i('notes_create_limit', 300),
  arr('notes_create_limit_allowlist', []),
  i('raw_blob_request_limit', 300),
  i('project_import_limit', 6),
  i('project_export_limit', 6),
  i('project_download_export_limit', 1),
  i('group_import_limit', 6),
  i('group_export_limit', 6),
  i('group_download_export_limit', 1),
  i('wiki_page_max_content_bytes', 52428800),
  i('container_registry_delete_tags_service_timeout', 250),
  s('rate_limiting_response_text', null),
  i('container_registry_expiration_policies_worker_capacity', 4),
  i('container_registry_cleanup_tags_service_max_list_size', 200),
  b('keep_latest_artifact', true),
  s('whats_new_variant', 'all_tiers', { values: ['all_tiers', 'current_tier', 'disabled'] }),
  b('user_deactivation_emails_enabled', true),
  b('suggest_pipeline_enabled', true),
  i('search_rate_limit', 30),
  i('search_rate_limit_unauthenticated', 10),
  i('users_get_by_id_limit', 300),
  arr('users_get_by_id_limit_allowlist', []),
  // Users API limits (GitLab 17.10 settings), requests per minute per user or IP; 0 disables.
  i('users_api_limit_followers', 100),
  i('users_api_limit_following', 100),
  i('users_api_limit_status', 240),
  i('users_api_limit_ssh_keys', 120),
  i('users_api_limit_ssh_key', 120),
  i('users_api_limit_gpg_keys', 120),
  i('users_api_limit_gpg_key', 120),
  // Webhook test and resend limits (GitLab 19.3 settings), requests per minute per user for a given project or group; 0 disables.
  i('web_hook_test_limit', 5),
  i('web_hook_event_resend_limit', 5),
  i('runner_token_expiration_interval', null),
  i('group_runner_token_expiration_interval', null),
  i('project_runner_token_expiration_interval', null),
  i('pipeline_limit_per_project_user_sha', 0),
  b('deactivate_dormant_users', false),
  i('deactivate_dormant_users_period', 90),
  // ApplicationSettingsHelper.external_authorization_service_attributes
  s('external_auth_client_cert', null),
  secret('external_auth_client_key'),
  secret('external_auth_client_key_pass'),
  s('external_authorization_service_default_label', null),
  b('external_authorization_service_enabled', false),
  f('external_authorization_service_timeout', 0.5),
  s('external_authorization_service_url', null),
  // Paid attributes (spec marks them premium / ultimate; EE entity and helper append them).
  b('allow_group_owners_to_manage_ldap', true, { tier: 'premium' }),
  b('check_namespace_plan', false, { tier: 'premium' }),
  b('searchsvc_aws', false, { tier: 'premium' }),
  s('searchsvc_aws_access_key', null, { tier: 'premium' }),
  s('searchsvc_aws_region', 'us-east-1', { tier: 'premium' }),
  secret('searchsvc_aws_secret_access_key', { tier: 'premium' }),
  i('searchsvc_indexed_field_length_limit', 0, { tier: 'premium' }),
  i('searchsvc_indexed_file_size_limit_kb', 1024, { tier: 'premium' }),
  b('searchsvc_indexing', false, { tier: 'premium' }),
  b('searchsvc_limit_indexing', false, { tier: 'premium' }),
  i('searchsvc_max_bulk_concurrency', 10, { tier: 'premium' }),
  i('searchsvc_max_bulk_size_mb', 10, { tier: 'premium' }),
  { name: 'searchsvc_namespace_ids', type: 'intArray', def: [], tier: 'premium' },
  { name: 'searchsvc_project_ids', type: 'intArray', def: [], tier: 'premium' },
  b('searchsvc_search', false, { tier: 'premium' }),
  s('searchsvc_url', 'http://localhost:9200', { tier: 'premium' }),
  s('searchsvc_username', null, { tier: 'premium' }),
  secret('searchsvc_password', { tier: 'premium' }),
  s('email_additional_text', null, { tier: 'premium' }),
  i('git_two_factor_session_expiry', 15, { tier: 'premium' }),
  s('help_text', null, { tier: 'premium' }),
  b('maintenance_mode', false, { tier: 'premium' }),
  s('maintenance_mode_message', null, { tier: 'premium' }),
  i('mirror_capacity_threshold', 50, { tier: 'premium' }),
  i('mirror_max_capacity', 100, { tier: 'premium' }),
  i('mirror_max_delay', 300, { tier: 'premium' }),
  b('npm_package_requests_forwarding', true, { tier: 'premium' }),
  b('pypi_package_requests_forwarding', true, { tier: 'premium' }),
  i('max_personal_access_token_lifetime', null, { tier: 'ultimate' }),
  i('max_ssh_key_lifetime', null, { tier: 'ultimate' }),
  // spec: "Premium and ultimate add file_template_project_id, delayed_project_deletion, deletion_adjourned_period, geo_node_allowed_ips, geo_status_timeout".
  i('file_template_project_id', null, { tier: 'premium' }),
  b('delayed_project_deletion', false, { tier: 'premium' }),
  i('deletion_adjourned_period', 7, { tier: 'premium' }),
  s('geo_node_allowed_ips', '0.0.0.0/0, ::/0', { tier: 'premium' }),
  i('geo_status_timeout', 10, { tier: 'premium' }),
];

export const SETTINGS_BY_NAME = new Map(SETTINGS.map((d) => [d.name, d]));

/** Text forms of list settings: newline, comma, semicolon or space separated (`domain_strings_to_array`). */
export const RAW_INPUTS: Record<string, string> = {
  domain_denylist_raw: 'domain_denylist',
  domain_allowlist_raw: 'domain_allowlist',
  outbound_local_requests_allowlist_raw: 'outbound_local_requests_whitelist',
  protected_paths_raw: 'protected_paths',
  notes_create_limit_allowlist_raw: 'notes_create_limit_allowlist',
  users_get_by_id_limit_allowlist_raw: 'users_get_by_id_limit_allowlist',
};
