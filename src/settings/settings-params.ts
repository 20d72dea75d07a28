/**
 * Parameters of PUT /application/settings (lib/api/settings.rb): every catalogued attribute
 * (settings-catalogue.ts) typed as Grape coerces it, the text forms of lists, and the legacy names.
 */
import { z } from 'zod';
import { g } from '../platform/validate';
import { RAW_INPUTS, SETTINGS, SETTINGS_BY_NAME, type SettingType } from './settings-catalogue';

/** Input-only legacy names and what they mean (lib/api/settings.rb "support legacy names"). */
export const LEGACY_ALIASES: Record<string, string> = {
  admin_notification_email: 'abuse_notification_email',
  allow_local_requests_from_hooks_and_services: 'allow_local_requests_from_web_hooks_and_services',
  asset_proxy_whitelist: 'asset_proxy_allowlist',
  password_authentication_enabled: 'password_authentication_enabled_for_web',
  signin_enabled: 'password_authentication_enabled_for_web',
  performance_bar_allowed_group_id: 'performance_bar_allowed_group_path',
  throttle_unauthenticated_web_enabled: 'throttle_unauthenticated_enabled',
  throttle_unauthenticated_web_period_in_seconds: 'throttle_unauthenticated_period_in_seconds',
  throttle_unauthenticated_web_requests_per_period: 'throttle_unauthenticated_requests_per_period',
};
const LEGACY_TYPES: Record<string, SettingType> = { performance_bar_allowed_group_id: 'string' };

/** Grape `given X: true { requires ... }` blocks (lib/api/settings.rb), neutral names. */
export const GIVEN_REQUIRES: [string, string[]][] = [
  ['spamsvc_enabled', ['spamsvc_api_key']],
  ['clustersvc_integration_enabled', ['clustersvc_account_id', 'clustersvc_access_key_id', 'clustersvc_secret_access_key']],
  ['housekeeping_enabled', ['housekeeping_bitmaps_enabled', 'housekeeping_full_repack_period', 'housekeeping_gc_period', 'housekeeping_incremental_repack_period']],
  ['diagramproxy_enabled', ['diagramproxy_url']],
  ['textdiagram_enabled', ['textdiagram_url']],
  ['require_two_factor_authentication', ['two_factor_grace_period']],
  ['shared_runners_enabled', ['shared_runners_text']],
  ['spam_check_endpoint_enabled', ['spam_check_endpoint_url']],
];

const float = () =>
  z
    .unknown()
    .transform((v, ctx): number => {
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      if (typeof v === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) return Number(v);
      ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
      return z.NEVER;
    })
    .meta({ grapeType: 'Float', jsonType: 'number' });

/**
 * Lists an administrator sets hold up to 1,000 entries by model validation (protected_paths 100,
 * outbound_local_requests_whitelist 1000): the parameter cap sits above them so those messages speak.
 */
const LIST_CAP = { max: 10_000 };

/** `Array[Integer]` with CommaSeparatedToArray. */
const intCsv = () =>
  z
    .unknown()
    .transform((v, ctx): number[] => {
      const list = (Array.isArray(v) ? v : [v]).flatMap((x) => (typeof x === 'string' ? x.split(',') : [x])).filter((x) => x !== '');
      if (list.length > LIST_CAP.max) {
        ctx.addIssue({ code: 'custom', message: `must contain at most ${LIST_CAP.max} items`, input: v });
        return z.NEVER;
      }
      const out: number[] = [];
      for (const x of list) {
        const n = typeof x === 'number' ? x : typeof x === 'string' && /^\s*[+-]?\d+\s*$/.test(x) ? Number(x) : NaN;
        if (!Number.isSafeInteger(n)) {
          ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
          return z.NEVER;
        }
        out.push(n);
      }
      return out;
    })
    .meta({ grapeType: 'Array[Integer]', jsonType: 'array' });

/** `Hash` with `HashOfIntegerValues` coercion: every value must read as an integer. */
const hashOfIntegers = () =>
  z
    .unknown()
    .transform((v, ctx): Record<string, number> => {
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const out: Record<string, number> = {};
        for (const [k, x] of Object.entries(v)) {
          const n = typeof x === 'number' ? x : typeof x === 'string' && /^\s*[+-]?\d+\s*$/.test(x) ? Number(x) : NaN;
          if (!Number.isSafeInteger(n)) break;
          out[k] = n;
        }
        if (Object.keys(out).length === Object.keys(v).length) return out;
      }
      ctx.addIssue({ code: 'custom', message: 'is invalid', input: v });
      return z.NEVER;
    })
    .meta({ grapeType: 'Hash', jsonType: 'object' });

/** String array whose items must come from `values` (Grape `values:` on an Array param). */
const csvOf = (values: readonly string[]) =>
  g.csv(LIST_CAP).pipe(
    z.array(z.string()).refine((list) => list.every((x) => values.includes(x)), { message: 'does not have a valid value' }),
  );

function paramType(type: SettingType, values?: readonly (string | number)[]): z.ZodType {
  switch (type) {
    case 'bool':
      return g.bool();
    case 'int':
      return values ? g.intEnum(values as number[]) : g.int();
    case 'float':
      return float();
    case 'string':
      return values ? g.enum(values as string[]) : g.string();
    case 'visibility':
      return g.enum(values as string[]);
    case 'csv':
      // Grape coerces array items to String: `[20]` reads as `["20"]`.
      return z
        .preprocess((v) => (Array.isArray(v) ? v.map((x) => (typeof x === 'number' ? String(x) : x)) : typeof v === 'number' ? String(v) : v), values ? csvOf(values as string[]) : g.csv(LIST_CAP))
        .meta({ grapeType: 'Array[String]', jsonType: 'array' });
    case 'intArray':
      return intCsv();
    case 'hash':
      return g.hash();
  }
}

/** Names PUT accepts, in the order Grape's at_least_one_of lists them. */
export const PUT_NAMES: string[] = [...SETTINGS.map((d) => d.name), ...Object.keys(RAW_INPUTS), 'repository_storages_weighted', ...Object.keys(LEGACY_ALIASES), 'hashed_storage_enabled'].filter(
  (n, idx, all) => all.indexOf(n) === idx,
);

/** Parameter shape of PUT /application/settings: every attribute optional. */
export const settingsPutShape: Record<string, z.ZodType> = Object.fromEntries(
  PUT_NAMES.map((name) => {
    const def = SETTINGS_BY_NAME.get(name) ?? SETTINGS_BY_NAME.get(LEGACY_ALIASES[name] ?? '');
    if (name === 'repository_storages_weighted') return [name, hashOfIntegers().optional()];
    if (name in RAW_INPUTS) return [name, g.string().optional()];
    const type = LEGACY_TYPES[name] ?? def?.type ?? 'bool';
    return [name, paramType(type, def?.values).optional()];
  }),
);
