/**
 * ApplicationSetting entity (GitLab lib/api/entities/application_setting.rb): `id`, then every
 * visible attribute in helper order, then the legacy aliases. Secrets are never exposed; paid
 * attributes only when the plan has them. Pure: settings in, JSON object out.
 */
import type { Plan } from '../platform/config';
import { planAllows } from '../platform/plan';
import { iso } from '../platform/time';
import { SETTINGS } from './settings-params';
import type { Settings } from './settings';

export interface SettingsMeta {
  plan: Plan;
  createdAt: number | null;
  updatedAt: number | null;
  /** Host name used for the `users.noreply.<host>` commit email default. */
  host: string;
}

/** `array_to_string`: the `*_raw` text forms of list settings. */
const raw = (v: unknown): string | null => (Array.isArray(v) ? v.join('\n') : null);

export function applicationSetting(st: Settings, meta: SettingsMeta): Record<string, unknown> {
  // The id of the group named by performance_bar_allowed_group_path; this server has no groups to find.
  const out: Record<string, unknown> = { id: 1, performance_bar_allowed_group_id: null };
  for (const def of SETTINGS) {
    if (def.secret || def.hidden) continue;
    if (def.tier && !planAllows({ plan: meta.plan }, def.tier)) continue;
    let value = st[def.name] ?? null;
    if (def.name === 'commit_email_hostname' && value == null) value = `users.noreply.${meta.host}`;
    out[def.name] = value;
    // GitLab exposes the text forms next to the lists (domain_denylist_raw, ...).
    if (def.name === 'domain_denylist' || def.name === 'domain_allowlist') out[`${def.name}_raw`] = raw(value);
    if (def.name === 'outbound_local_requests_whitelist') out.outbound_local_requests_allowlist_raw = raw(value);
    if (def.name === 'protected_paths') out.protected_paths_raw = raw(value);
    if (def.name === 'notes_create_limit_allowlist') out.notes_create_limit_allowlist_raw = raw(value);
    if (def.name === 'users_get_by_id_limit_allowlist') out.users_get_by_id_limit_allowlist_raw = raw(value);
  }
  out.valid_runner_registrars = st.valid_runner_registrars ?? ['project', 'group'];
  // Newer names of the unauthenticated web throttle columns (exposed `as:` in the entity).
  out.throttle_unauthenticated_web_enabled = st.throttle_unauthenticated_enabled;
  out.throttle_unauthenticated_web_period_in_seconds = st.throttle_unauthenticated_period_in_seconds;
  out.throttle_unauthenticated_web_requests_per_period = st.throttle_unauthenticated_requests_per_period;
  // Legacy names, "can be removed in v5".
  out.password_authentication_enabled = st.password_authentication_enabled_for_web;
  out.signin_enabled = st.password_authentication_enabled_for_web;
  out.allow_local_requests_from_hooks_and_services = st.allow_local_requests_from_web_hooks_and_services;
  out.asset_proxy_whitelist = st.asset_proxy_allowlist ?? null;
  out.repository_storages_weighted = st.repository_storages_weighted ?? { default: 100 };
  out.created_at = meta.createdAt == null ? null : iso(meta.createdAt);
  out.updated_at = meta.updatedAt == null ? null : iso(meta.updatedAt);
  return out;
}
