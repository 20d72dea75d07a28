/**
 * Text caps of application settings. GitLab keeps URLs, hosts, names and keys in `string(255)`
 * columns (`help_page_documentation_base_url`, `rate_limiting_response_text` and
 * `default_ci_config_path` validate `length: { maximum: 255 }` outright), long texts in text columns
 * held to Gitlab::Database::MAX_TEXT_SIZE_LIMIT, and EE's `email_additional_text` to 10,000
 * characters. The default branch name is a branch name, judged as git judges one.
 */
import { isValidBranchName } from '../platform/git-ref';
import { checkText, humanSize, MAX_TEXT_SIZE, NAME_MAX, type TextErrors } from '../platform/text-limits';
import { isExplicit, type Settings } from './settings';
import { RAW_INPUTS, SETTINGS } from './settings-catalogue';

/** Settings that hold prose, certificates or lists as text rather than one short value. */
const LONG_TEXT = [
  'after_sign_up_text',
  'help_page_text',
  'help_text',
  'sign_in_text',
  'shared_runners_text',
  'terms',
  'maintenance_mode_message',
  'email_restrictions',
  'external_auth_client_cert',
  'external_auth_client_key',
  'geo_node_allowed_ips',
  ...Object.keys(RAW_INPUTS),
];

const CAPS: Record<string, { max: number }> = Object.fromEntries([
  ...SETTINGS.filter((d) => d.type === 'string' && !d.values).map((d) => [d.name, { max: NAME_MAX }]),
  ...LONG_TEXT.map((name) => [name, { max: MAX_TEXT_SIZE }]),
  // EE ApplicationSetting::EMAIL_ADDITIONAL_TEXT_CHARACTER_LIMIT.
  ['email_additional_text', { max: 10_000 }],
]);

/**
 * The caps over the given attributes (current names, values as sent: secrets before their digest),
 * and the default branch name: blank means none (ApplicationSetting#normalize_default_branch_name),
 * anything else must pass `git check-ref-format --branch`.
 */
export function settingsTextErrors(attrs: Record<string, unknown>): TextErrors {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(attrs)) if (typeof value === 'string' && name in CAPS) text[name] = value;
  const errors = checkText({}, text, CAPS);
  const branch = attrs.default_branch_name;
  if (typeof branch === 'string' && branch.trim() !== '' && !errors.default_branch_name && !isValidBranchName(branch)) errors.default_branch_name = ['is invalid'];
  return errors;
}

/** `default_branch_name.presence`: a blank name is stored as none. */
export function normalizeDefaultBranchName(changes: Record<string, unknown>): void {
  const v = changes.default_branch_name;
  if (typeof v === 'string' && v.trim() === '') changes.default_branch_name = null;
}

/**
 * The settings live in one row as JSON (settings.ts), and a D1 row holds at most 2,000,000 bytes:
 * each long text may take a million characters, so together they could not be stored. GitLab keeps
 * them in separate columns and has no such check; this one answers before the write would fail.
 */
export const SETTINGS_ROW_MAX_BYTES = 1_900_000;

/** `{"base":["..."]}` when the stored values with `changes` applied would not fit in the row. */
export function settingsRowErrors(settings: Settings, changes: Record<string, unknown>): TextErrors {
  const stored: Record<string, unknown> = {};
  for (const key of Object.keys(settings)) if (isExplicit(settings, key)) stored[key] = settings[key];
  const bytes = new TextEncoder().encode(JSON.stringify({ ...stored, ...changes })).byteLength;
  if (bytes <= SETTINGS_ROW_MAX_BYTES) return {};
  return { base: [`Application settings are too large to store (${humanSize(bytes)}). The maximum size is ${humanSize(SETTINGS_ROW_MAX_BYTES)}.`] };
}
