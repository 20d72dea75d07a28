/**
 * Model validations of ApplicationSetting (app/models/application_setting.rb ~15.0), reference B §2.2
 * "Model layer": pure functions over the settings as they would be after an update.
 */
type Errors = Record<string, string[]>;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const blank = (v: unknown) => v == null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);

function validUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

const VISIBILITY_LEVELS = new Set(['private', 'internal', 'public']);

/**
 * Model validations of ApplicationSetting (app/models/application_setting.rb ~15.0) over the
 * settings as they would be after the update. Messages are ActiveModel's, without the attribute name.
 */
export function settingsErrors(st: Record<string, unknown>): Errors {
  const errors: Errors = {};
  const add = (attr: string, msg: string) => (errors[attr] ??= []).push(msg);
  const num = (attr: string, o: { gte?: number; gt?: number; lte?: number; lt?: number; allowNil?: boolean; int?: boolean }) => {
    const v = st[attr];
    if (v == null) {
      if (!o.allowNil) add(attr, "can't be blank");
      return;
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) return add(attr, 'is not a number');
    if (o.int !== false && !Number.isInteger(v)) return add(attr, 'must be an integer');
    if (o.gt !== undefined && !(v > o.gt)) add(attr, `must be greater than ${o.gt}`);
    if (o.gte !== undefined && !(v >= o.gte)) add(attr, `must be greater than or equal to ${o.gte}`);
    if (o.lt !== undefined && !(v < o.lt)) add(attr, `must be less than ${o.lt}`);
    if (o.lte !== undefined && !(v <= o.lte)) add(attr, `must be less than or equal to ${o.lte}`);
  };
  const presentIf = (attr: string, cond: unknown) => {
    if (cond && blank(st[attr])) add(attr, "can't be blank");
  };
  const url = (attr: string) => {
    if (!blank(st[attr]) && !validUrl(st[attr])) add(attr, 'must be a valid URL');
  };

  num('session_expire_delay', { gte: 0 });
  num('minimum_password_length', { gte: 8, lte: 128 });
  url('home_page_url');
  url('help_page_support_url');
  url('help_page_documentation_base_url');
  url('after_sign_out_path');
  if (!blank(st.abuse_notification_email) && !/^[^@\s]+@[^@\s]+$/.test(String(st.abuse_notification_email))) add('abuse_notification_email', 'is invalid');
  num('two_factor_grace_period', { gte: 0 });
  presentIf('spamsvc_api_key', st.spamsvc_enabled);
  presentIf('spam_check_api_key', st.spam_check_endpoint_enabled);
  if (st.unique_ips_limit_enabled) {
    num('unique_ips_limit_per_user', { gte: 1 });
    num('unique_ips_limit_time_window', { gte: 0 });
  }
  presentIf('diagramproxy_url', st.diagramproxy_enabled);
  if (st.diagramproxy_enabled && !blank(st.diagramproxy_url) && !validUrl(st.diagramproxy_url)) add('diagramproxy_url', 'is not valid.');
  presentIf('textdiagram_url', st.textdiagram_enabled);
  if (st.mailsvc_events_enabled) presentIf('mailsvc_signing_key', true);
  num('max_attachment_size', { gt: 0 });
  num('max_artifacts_size', { gt: 0 });
  num('max_import_size', { gte: 0 });
  num('max_decompressed_archive_size', { gte: 0 });
  num('max_pages_size', { gte: 0, lt: 1024 * 1024 });
  if (blank(st.default_artifacts_expire_in)) add('default_artifacts_expire_in', "can't be blank");
  else if (String(st.default_artifacts_expire_in).trim() !== 'never' && durationSeconds(String(st.default_artifacts_expire_in)) == null) add('default_artifacts_expire_in', 'is not a correct duration');
  num('container_registry_token_expire_delay', { gt: 0 });
  if (st.enabled_git_access_protocol != null && st.enabled_git_access_protocol !== '' && !['ssh', 'http'].includes(String(st.enabled_git_access_protocol))) {
    add('enabled_git_access_protocol', 'is not included in the list');
  }
  if (st.domain_denylist_enabled && blank(st.domain_denylist)) add('domain_denylist', 'Domain denylist cannot be empty if denylist is enabled.');
  num('housekeeping_incremental_repack_period', { gt: 0 });
  if (isInt(st.housekeeping_incremental_repack_period)) num('housekeeping_full_repack_period', { gte: st.housekeeping_incremental_repack_period });
  if (isInt(st.housekeeping_full_repack_period)) num('housekeeping_gc_period', { gte: st.housekeeping_full_repack_period });
  num('terminal_max_session_time', { gte: 0 });
  num('polling_interval_multiplier', { gte: 0, int: false });
  // Repository storage timeouts: fast <= medium <= default <= the maximum request duration (57 s).
  num('storage_timeout_default', { gte: 0, lte: 57 });
  num('storage_timeout_medium', { gte: 0 });
  num('storage_timeout_fast', { gte: 0 });
  if (isInt(st.storage_timeout_default) && isInt(st.storage_timeout_medium) && st.storage_timeout_medium > st.storage_timeout_default) add('storage_timeout_medium', `must be less than or equal to ${st.storage_timeout_default}`);
  if (isInt(st.storage_timeout_fast) && isInt(st.storage_timeout_medium) && st.storage_timeout_medium < st.storage_timeout_fast) add('storage_timeout_medium', `must be greater than or equal to ${st.storage_timeout_fast}`);
  if (isInt(st.storage_timeout_default) && isInt(st.storage_timeout_fast) && st.storage_timeout_fast > st.storage_timeout_default) add('storage_timeout_fast', `must be less than or equal to ${st.storage_timeout_default}`);
  num('diff_max_patch_bytes', { gte: 204800, lte: 104857600 });
  num('diff_max_files', { gte: 1000, lte: 3000 });
  num('diff_max_lines', { gte: 50000, lte: 100000 });
  const prefix = st.personal_access_token_prefix;
  if (!blank(prefix)) {
    if (!/^[a-zA-Z0-9_+=/@:.-]+$/.test(String(prefix))) add('personal_access_token_prefix', "can contain only letters of the Base64 alphabet (RFC4648) with the addition of '@', ':' and '.'");
    if (String(prefix).length > 20) add('personal_access_token_prefix', 'is too long (maximum is 20 characters)');
  }
  if (st.commit_email_hostname != null && !/^[^@]+$/.test(String(st.commit_email_hostname))) add('commit_email_hostname', 'is invalid');
  if (st.archive_builds_in_human_readable != null && st.archive_builds_in_human_readable !== '') {
    const seconds = durationSeconds(String(st.archive_builds_in_human_readable));
    if (seconds == null) add('archive_builds_in_human_readable', 'is not a correct duration');
    else if (seconds < 86400) add('archive_builds_in_seconds', 'must be greater than or equal to 86400');
  }
  num('local_markdown_version', { gte: 0, lt: 65536, allowNil: true });
  if (st.asset_proxy_enabled) {
    if (blank(st.asset_proxy_url)) add('asset_proxy_url', "can't be blank");
    else if (!validUrl(st.asset_proxy_url)) add('asset_proxy_url', 'must be a valid URL');
    presentIf('asset_proxy_secret_key', true);
  }
  url('static_objects_external_storage_url');
  if (Array.isArray(st.protected_paths) && st.protected_paths.length > 100) add('protected_paths', 'is too long (maximum is 100 entries)');
  if (Array.isArray(st.outbound_local_requests_whitelist) && st.outbound_local_requests_whitelist.length > 1000) add('outbound_local_requests_whitelist', 'is too long (maximum is 1000 entries)');
  num('push_event_hooks_limit', { gte: 0 });
  num('push_event_activities_limit', { gte: 0 });
  num('snippet_size_limit', { gt: 0 });
  num('wiki_page_max_content_bytes', { gte: 1024 });
  if (st.hashed_storage_enabled !== true) add('hashed_storage_enabled', "Hashed storage can't be disabled anymore for new projects");
  num('container_registry_delete_tags_service_timeout', { gte: 0 });
  num('container_registry_cleanup_tags_service_max_list_size', { gte: 0 });
  num('container_registry_expiration_policies_worker_capacity', { gte: 0 });
  const keyTypes = ['rsa', 'dsa', 'ecdsa', 'ed25519', 'ecdsa_sk', 'ed25519_sk'];
  if (keyTypes.every((t) => st[`${t}_key_restriction`] === -1)) add('allowed_key_types', "can't be blank");
  for (const level of (st.restricted_visibility_levels as unknown[]) ?? []) {
    if (!VISIBILITY_LEVELS.has(String(level))) add('restricted_visibility_levels', `'${String(level)}' is not a valid visibility level`);
  }
  if (st.enforce_terms && blank(st.terms)) add('terms', "can't be blank");
  if (st.external_authorization_service_enabled) {
    presentIf('external_authorization_service_default_label', true);
    url('external_authorization_service_url');
    num('external_authorization_service_timeout', { gt: 0, lte: 10, int: false });
  }
  if (!blank(st.spam_check_endpoint_url) && !/^grpc:\/\/[^/\s]+/.test(String(st.spam_check_endpoint_url))) add('spam_check_endpoint_url', 'is blocked: Only allowed schemes are grpc');
  presentIf('spam_check_endpoint_url', st.spam_check_endpoint_enabled);
  if (!blank(st.external_auth_client_cert)) presentIf('external_auth_client_key', true);
  if (st.clustersvc_integration_enabled) {
    if (!/^\d{12}$/.test(String(st.clustersvc_account_id ?? ''))) add('clustersvc_account_id', 'must be a 12-digit number');
    const keyId = st.clustersvc_access_key_id;
    if (!blank(keyId)) {
      if (String(keyId).length < 16) add('clustersvc_access_key_id', 'is too short (minimum is 16 characters)');
      if (String(keyId).length > 128) add('clustersvc_access_key_id', 'is too long (maximum is 128 characters)');
      presentIf('clustersvc_secret_access_key', true);
    }
  }
  const ciPath = st.default_ci_config_path;
  if (!blank(ciPath)) {
    if (/(\.{2}|^\/)/.test(String(ciPath))) add('default_ci_config_path', 'cannot include leading slash or directory traversal.');
    if (String(ciPath).length > 255) add('default_ci_config_path', 'is too long (maximum is 255 characters)');
  }
  num('issues_create_limit', { gte: 0 });
  num('raw_blob_request_limit', { gte: 0 });
  if (!blank(st.rate_limiting_response_text) && String(st.rate_limiting_response_text).length > 255) add('rate_limiting_response_text', 'is too long (maximum is 255 characters)');
  for (const t of ['unauthenticated', 'unauthenticated_api', 'unauthenticated_packages_api', 'unauthenticated_files_api', 'unauthenticated_deprecated_api', 'authenticated_api', 'authenticated_web', 'authenticated_packages_api', 'authenticated_files_api', 'authenticated_deprecated_api', 'authenticated_git_lfs', 'protected_paths']) {
    num(`throttle_${t}_requests_per_period`, { gt: 0 });
    num(`throttle_${t}_period_in_seconds`, { gt: 0 });
  }
  num('notes_create_limit', { gte: 0 });
  if (Array.isArray(st.notes_create_limit_allowlist) && st.notes_create_limit_allowlist.length > 100) add('notes_create_limit_allowlist', 'is too long (maximum is 100 entries)');
  num('users_get_by_id_limit', { gte: 0 });
  for (const k of ['followers', 'following', 'status', 'ssh_keys', 'ssh_key', 'gpg_keys', 'gpg_key']) num(`users_api_limit_${k}`, { gte: 0 });
  if (Array.isArray(st.users_get_by_id_limit_allowlist) && st.users_get_by_id_limit_allowlist.length > 100) add('users_get_by_id_limit_allowlist', 'is too long (maximum is 100 entries)');
  // check_repository_storages_weighted: this server has one storage, `default`.
  const weights = (st.repository_storages_weighted ?? {}) as Record<string, unknown>;
  const unknownStorages = Object.keys(weights).filter((k) => k !== 'default');
  if (unknownStorages.length) add('repository_storages_weighted', `can't include: ${unknownStorages.join(', ')}`);
  for (const [k, v] of Object.entries(weights)) {
    if (typeof v === 'number' && (v < 0 || v > 100)) add('repository_storages_weighted', `value for '${k}' must be between 0 and 100`);
  }
  url('external_pipeline_validation_service_url');
  num('external_pipeline_validation_service_timeout', { gt: 0, allowNil: true });
  if (![0, 1, 6].includes(Number(st.first_day_of_week))) add('first_day_of_week', 'is not included in the list');
  num('search_rate_limit', { gte: 0 });
  num('search_rate_limit_unauthenticated', { gte: 0 });
  num('deactivate_dormant_users_period', { gte: 90 });
  num('deletion_adjourned_period', { gte: 0, lte: 90 });
  num('max_personal_access_token_lifetime', { gt: 0, lte: 365, allowNil: true });
  num('max_ssh_key_lifetime', { gt: 0, lte: 365, allowNil: true });
  if (blank(st.geo_node_allowed_ips)) add('geo_node_allowed_ips', "can't be blank");
  else if (!String(st.geo_node_allowed_ips).split(',').every((x) => /^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(x.trim()))) add('geo_node_allowed_ips', 'must be a valid IP address or CIDR');
  return errors;
}

/** ChronicDuration-style `1 day`, `2 weeks 3 days`, `36h` -> seconds; null when unreadable. */
export function durationSeconds(text: string): number | null {
  if (/^\s*\d+\s*$/.test(text)) return Number(text.trim());
  const units: Record<string, number> = { s: 1, sec: 1, second: 1, m: 60, min: 60, minute: 60, h: 3600, hr: 3600, hour: 3600, d: 86400, day: 86400, w: 604800, wk: 604800, week: 604800, mo: 2592000, month: 2592000, y: 31557600, yr: 31557600, year: 31557600 };
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+)/gi;
  let total = 0;
  let matched = '';
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const unit = m[2].toLowerCase().replace(/s$/, '');
    const factor = units[unit] ?? units[m[2].toLowerCase()];
    if (factor === undefined) return null;
    total += Number(m[1]) * factor;
    matched += m[0];
  }
  if (!matched || text.replace(/[\s,]|and/g, '').length !== matched.replace(/\s/g, '').length) return null;
  return Math.round(total);
}
