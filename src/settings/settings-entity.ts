/**
 * ApplicationSetting entity (GitLab lib/api/entities/application_setting.rb): `id`, then every
 * visible attribute in helper order, then the legacy aliases. Secrets are never exposed; paid
 * attributes only when the plan has them. Pure: settings in, JSON object out.
 *
 * The schema is derived from the catalogue (settings-catalogue.ts) that also drives the presenter,
 * so the ~270 attributes are listed once; it stays strict: a key the catalogue does not expose is
 * an error.
 */
import { z } from 'zod';
import type { Plan } from '../platform/config';
import { planAllows } from '../platform/plan';
import { int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { IMPORT_SOURCES, RAW_INPUTS, SETTINGS, type SettingDef, VISIBILITY } from './settings-catalogue';
import type { Settings } from './settings';

export interface SettingsMeta {
  plan: Plan;
  createdAt: number | null;
  updatedAt: number | null;
  /** Host name used for the `users.noreply.<host>` commit email default. */
  host: string;
}

/** What GET shows of the catalogue: secrets and hidden attributes never. */
const EXPOSED = SETTINGS.filter((d) => !d.secret && !d.hidden);

/** GitLab exposes the `*_raw` text form right after each list that has one (domain_denylist_raw, ...). */
const RAW_FORM_OF = new Map(Object.entries(RAW_INPUTS).map(([rawName, list]) => [list, rawName]));

/** `array_to_string`: the `*_raw` text forms of list settings. */
const raw = (v: unknown): string | null => (Array.isArray(v) ? v.join('\n') : null);

/** The wire type of one catalogued attribute, as PUT stores it (settings-params.ts). */
function valueSchema(d: SettingDef): z.ZodType {
  let s: z.ZodType;
  switch (d.type) {
    case 'bool':
      s = z.boolean();
      break;
    case 'int':
      s = d.values ? z.literal(d.values as number[]) : int;
      break;
    case 'float':
      s = z.number();
      break;
    case 'string':
      // enabled_git_access_protocol's `nil` is stored as null (settings-routes.ts).
      s = d.values ? z.enum((d.values as string[]).filter((v) => v !== 'nil')) : z.string();
      break;
    case 'visibility':
      s = z.enum(VISIBILITY);
      break;
    case 'csv':
      s = z.array(d.name === 'import_sources' ? z.enum(IMPORT_SOURCES) : z.string());
      break;
    case 'intArray':
      s = z.array(int);
      break;
    case 'hash':
      // Free-form, as GitLab's Hash attributes are.
      s = z.record(z.string(), z.unknown());
      break;
  }
  // commit_email_hostname's null renders as `users.noreply.<host>`.
  if (d.def === null && d.name !== 'commit_email_hostname') s = s.nullable();
  // Paid attributes are left out on a lower plan.
  return d.tier ? s.optional() : s;
}

const bool = z.boolean();
const rawForm = z.string().nullable();

export const ApplicationSettingSchema = obj({
  id: int,
  // The id of the group named by performance_bar_allowed_group_path; this server has no groups to find.
  performance_bar_allowed_group_id: int.nullable(),
  ...Object.fromEntries(
    EXPOSED.flatMap((d): [string, z.ZodType][] => {
      const rawName = RAW_FORM_OF.get(d.name);
      const own: [string, z.ZodType] = [d.name, valueSchema(d)];
      if (!rawName) return [own];
      return [own, [rawName, d.tier ? rawForm.optional() : rawForm]];
    }),
  ),
  valid_runner_registrars: z.array(z.enum(['project', 'group'])),
  throttle_unauthenticated_web_enabled: bool,
  throttle_unauthenticated_web_period_in_seconds: int,
  throttle_unauthenticated_web_requests_per_period: int,
  password_authentication_enabled: bool,
  signin_enabled: bool,
  allow_local_requests_from_hooks_and_services: bool,
  asset_proxy_whitelist: z.array(z.string()).nullable(),
  repository_storages_weighted: z.record(z.string(), int),
  created_at: timestamp.nullable(),
  updated_at: timestamp.nullable(),
}).meta({ id: 'ApplicationSetting' });
export type ApplicationSetting = z.infer<typeof ApplicationSettingSchema>;

/** The catalogued attributes the plan includes, each followed by its `*_raw` text form if it has one. */
function catalogued(st: Settings, meta: SettingsMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of EXPOSED) {
    if (def.tier && !planAllows({ plan: meta.plan }, def.tier)) continue;
    let value = st[def.name] ?? null;
    if (def.name === 'commit_email_hostname' && value == null) value = `users.noreply.${meta.host}`;
    out[def.name] = value;
    const rawName = RAW_FORM_OF.get(def.name);
    if (rawName) out[rawName] = raw(value);
  }
  return out;
}

export const applicationSetting = (st: Settings, meta: SettingsMeta): ApplicationSetting => ({
  id: 1,
  performance_bar_allowed_group_id: null,
  ...catalogued(st, meta),
  valid_runner_registrars: (st.valid_runner_registrars as ApplicationSetting['valid_runner_registrars'] | undefined) ?? ['project', 'group'],
  // Newer names of the unauthenticated web throttle columns (exposed `as:` in the entity).
  throttle_unauthenticated_web_enabled: st.throttle_unauthenticated_enabled as boolean,
  throttle_unauthenticated_web_period_in_seconds: st.throttle_unauthenticated_period_in_seconds as number,
  throttle_unauthenticated_web_requests_per_period: st.throttle_unauthenticated_requests_per_period as number,
  // Legacy names, "can be removed in v5".
  password_authentication_enabled: st.password_authentication_enabled_for_web,
  signin_enabled: st.password_authentication_enabled_for_web,
  allow_local_requests_from_hooks_and_services: st.allow_local_requests_from_web_hooks_and_services as boolean,
  asset_proxy_whitelist: (st.asset_proxy_allowlist as string[] | null | undefined) ?? null,
  repository_storages_weighted: (st.repository_storages_weighted as Record<string, number> | undefined) ?? { default: 100 },
  created_at: meta.createdAt == null ? null : iso(meta.createdAt),
  updated_at: meta.updatedAt == null ? null : iso(meta.updatedAt),
});
