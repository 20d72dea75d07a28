/**
 * A hook's URL variables and custom headers (WebHooks::Hook): ordered maps of secrets, stored
 * sealed with the token's key (GitLab's attr_encrypted), shown only by key, interpolated into the URL
 * (`interpolated_url`) and sent as headers at delivery.
 * Stored form (web_hooks.url_variables / custom_headers): null, or `{"keys":[…],"sealed":"v1:…"}`.
 */
import type { Config } from '../platform/config';
import { decryptToken, encryptToken } from './token-crypto';

export type VarMap = [key: string, value: string][];
type Keyed = Pick<Config, 'webhookTokenKey' | 'tokenPepper'>;

/** WebHooks::Hook::VARIABLE_REFERENCE_RE: a `{name}` placeholder of the URL. */
const REFERENCE = /\{([A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*)\}/g;
/** app/validators/json_schemas/web_hooks_url_variables.json. */
const URL_VARIABLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** app/validators/json_schemas/web_hooks_custom_headers.json. */
const HEADER_KEY = /^[A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*$/;
/** Both schemas' `maxProperties`. */
export const MAX_ENTRIES = 20;
/**
 * WebHook::MAX_CUSTOM_HEADER_NAME_LENGTH, the Grape `limit:` on the custom header route's `:key`.
 * GitLab's constant was not in the sources at hand; 255 is assumed, and the JSON schema's key
 * pattern applies besides.
 */
export const MAX_HEADER_NAME_LENGTH = 255;

/** The keys shown by the entities (`masked_url_variables`, `masked_custom_headers`), in stored order. */
export function storedKeys(stored: string | null): { key: string }[] {
  if (!stored) return [];
  try {
    const keys = (JSON.parse(stored) as { keys?: unknown }).keys;
    return Array.isArray(keys) ? keys.map((key) => ({ key: String(key) })) : [];
  } catch {
    return [];
  }
}

/** The map, or empty when there is none or it cannot be opened (a rotated key, as for the token). */
export async function openVars(config: Keyed, stored: string | null): Promise<VarMap> {
  if (!stored) return [];
  try {
    const plain = await decryptToken(config, (JSON.parse(stored) as { sealed?: string }).sealed ?? null);
    const pairs = plain ? (JSON.parse(plain) as unknown) : [];
    return Array.isArray(pairs) ? pairs.filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string') : [];
  } catch {
    return [];
  }
}

export async function sealVars(config: Keyed, vars: VarMap): Promise<string | null> {
  if (!vars.length) return null;
  return JSON.stringify({ keys: vars.map(([k]) => k), sealed: await encryptToken(config, JSON.stringify(vars)) });
}

/** Ruby's Hash#merge: existing keys keep their place with the new value, new keys go last. */
export function mergeVars(base: VarMap, extra: VarMap): VarMap {
  const out = new Map(base);
  for (const [k, v] of extra) out.set(k, v);
  return [...out];
}

export const sameVars = (a: VarMap, b: VarMap) => JSON.stringify(a) === JSON.stringify(b);

/** The json_schema validators: at most 20 entries, keys by pattern, values 1–100 (variables) or 1–2048 (headers) characters. */
export function varsValid(vars: VarMap, kind: 'url_variables' | 'custom_headers'): boolean {
  if (vars.length > MAX_ENTRIES) return false;
  const [pattern, max] = kind === 'url_variables' ? [URL_VARIABLE_KEY, 100] : [HEADER_KEY, 2048];
  return vars.every(([k, v]) => pattern.test(k) && v.length >= 1 && [...v].length <= max);
}

/** The placeholders `url` uses that `vars` lacks (`no_missing_url_variables`). */
export function missingVariables(url: string, vars: VarMap): string[] {
  const have = new Set(vars.map(([k]) => k));
  return [...new Set([...url.matchAll(REFERENCE)].map((m) => m[1]))].filter((k) => !have.has(k));
}

/** WebHooks::Hook#interpolated_url, or null when a placeholder has no variable (InterpolationError). */
export function interpolatedUrl(url: string, vars: VarMap): string | null {
  if (!url.includes('{')) return url;
  const map = new Map(vars);
  let missing = false;
  const out = url.replace(REFERENCE, (_m, key: string) => {
    const v = map.get(key);
    if (v === undefined) missing = true;
    return v ?? '';
  });
  return missing ? null : out;
}

/**
 * WebHookLog's masking of what a delivery logged: variable values in the response headers become
 * `{key}` (LogExecutionService#mask_response_headers), basic-auth credentials of the URL become
 * `*****` (WebHookLog#obfuscate_basic_auth, Gitlab::UrlSanitizer.sanitize_masked_url).
 */
export function maskHeaderValues(headers: Record<string, string>, vars: VarMap): Record<string, string> {
  const usable = vars.filter(([, v]) => v.length > 0);
  if (!usable.length) return headers;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    let masked = value;
    for (const [k, v] of usable) masked = masked.split(v).join(`{${k}}`);
    out[name] = masked;
  }
  return out;
}

/** Gitlab::UrlSanitizer::MASKED_USERINFO_REGEX: URI userinfo characters plus `{}`. */
const MASKED_USERINFO = /\/\/(?:[-\\_.!~*'()a-zA-Z\d;:&=+$,{}]|%[a-fA-F\d]{2})*@/g;
export const maskBasicAuth = (url: string) => url.replace(MASKED_USERINFO, '//*****:*****@');
