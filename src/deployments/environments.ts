/**
 * Environment rules (app/models/environment.rb, Gitlab::Slug::Environment, Gitlab::Regex):
 * name format and length, the slug made from the name, the tier guessed from the name when none is
 * given, and the external URL's scheme check.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../platform/context';
import { ACCESS, type ProjectRow, requireProjectLevel } from '../projects/abilities';

export const TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const;
export const STATES = ['available', 'stopping', 'stopped'] as const;
export type Tier = (typeof TIERS)[number];

/** Environment#guess_tier: the first pattern the name matches, in GitLab's order. */
export function guessTier(name: string): Tier {
  if (/(dev|review|trunk)/i.test(name)) return 'development';
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return 'testing';
  if (/(st(a|)g|mod(e|)l|pre|demo|non)/i.test(name)) return 'staging';
  if (/(pr(o|)d|live)/i.test(name)) return 'production';
  return 'other';
}

/**
 * Gitlab::Slug::Environment#generate: lowercase letters, digits and `-`, starting with a letter, at
 * most 24 characters; a slug that differs from the name gets a suffix from the name's SHA-256, so
 * names that slugify alike keep apart.
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-');
  if (slug.length > 24 || slug !== name) {
    slug = slug.slice(0, 17);
    if (!slug.endsWith('-')) slug += '-';
    return slug + suffix(name);
  }
  return slug.replace(/-$/, '');
}

/** `Digest::SHA2.hexdigest(name).to_i(16).to_s(36).last(6)`. */
function suffix(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return BigInt(`0x${hex}`).toString(36).slice(-6);
}

/** Gitlab::Regex.environment_name_regex: letters, digits and `_/${}. -`, not starting or ending with `/`. */
const NAME_CHARS = 'a-zA-Z0-9_\\/\\$\\{\\}\\. \\-';
const NAME_CHARS_NO_SLASH = 'a-zA-Z0-9_\\$\\{\\}\\. \\-';
const NAME_RE = new RegExp(`^[${NAME_CHARS_NO_SLASH}]([${NAME_CHARS}]*[${NAME_CHARS_NO_SLASH}])?$`);
const NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
/** Protocols Gitlab::Utils::SanitizeNodeLink refuses in a link. */
const UNSAFE_SCHEMES = ['javascript', 'data', 'vbscript'];

/** The model's validation errors for a name and an external URL, as `render_validation_error!` shows them. */
export function environmentErrors(f: { name?: string; nameTaken?: boolean; externalUrl?: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (f.name !== undefined) {
    if (f.name.trim() === '') add('name', "can't be blank");
    if (f.nameTaken) add('name', 'has already been taken');
    if ([...f.name].length > 255) add('name', 'is too long (maximum is 255 characters)');
    if (!NAME_RE.test(f.name)) add('name', NAME_MESSAGE);
  }
  const url = f.externalUrl;
  if (url) {
    if ([...url].length > 255) add('external_url', 'is too long (maximum is 255 characters)');
    // Environment#safe_external_url: Addressable's normalized scheme.
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url.trim())?.[1]?.toLowerCase();
    if (scheme && UNSAFE_SCHEMES.includes(scheme)) add('external_url', `${scheme} scheme is not allowed`);
  }
  return errors;
}

/** NullifyIfBlank on `external_url` and `description`. */
export const blankToNull = (v: string | undefined | null) => (v == null || v.trim() === '' ? null : v);

/**
 * `read_environment`: reporters and above, and everyone who can see a public project (ProjectPolicy's
 * `public_access` rule lists it beside read_pipeline and read_deployment).
 */
export function requireReadEnvironment(caller: Caller, found: { project: ProjectRow; level: number }) {
  if (found.project.visibility !== 'public') requireProjectLevel(caller, found.level, ACCESS.REPORTER);
}
