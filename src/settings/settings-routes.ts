/** Application settings (GitLab lib/api/settings.rb), administrators only. */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { applicationSetting, ApplicationSettingSchema } from './settings-entity';
import { ApiError, grapeError, validationFailed } from '../platform/errors';
import { requestParams } from '../platform/params';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { validateParams } from '../platform/validate';
import { requireAdmin } from '../platform/guards';
import { RAW_INPUTS, SETTINGS_BY_NAME } from './settings-catalogue';
import { GIVEN_REQUIRES, LEGACY_ALIASES, PUT_NAMES, settingsPutShape } from './settings-params';
import { ensureSettingsRow, loadSettingsRow, secretDigest, writeSettings } from './settings';
import { settingsErrors } from './settings-validation';
import { normalizeDefaultBranchName, settingsRowErrors, settingsTextErrors } from './settings-text';

export function mountSettings(r: Router) {
  r.route({ method: 'GET', path: '/application/settings', summary: 'Get the current application settings', tags: ['settings'], responses: { 200: ApplicationSettingSchema } }, async ({ c, caller }) => {
    requireAdmin(caller);
    return c.json(await present(c));
  });

  r.route({ method: 'PUT', path: '/application/settings', summary: 'Modify application settings', tags: ['settings'], responses: { 200: ApplicationSettingSchema } }, async ({ c, caller }) => {
    // `before { authenticated_as_admin! }` runs before Grape validates parameters, so the
    // parameters are checked here, after the admin check, not by the router.
    requireAdmin(caller);
    const raw = await requestParams(c);
    const given = (k: string) => Object.prototype.hasOwnProperty.call(raw, k);
    if (!PUT_NAMES.some(given)) throw grapeError(`${PUT_NAMES.join(', ')} are missing, at least one parameter must be provided`);

    const messages: string[] = [];
    let p: Record<string, unknown> = {};
    try {
      p = validateParams({ shape: settingsPutShape, rules: [{ mutuallyExclusive: ['password_authentication_enabled_for_web', 'password_authentication_enabled', 'signin_enabled'] }] }, raw);
    } catch (err) {
      const body = err instanceof ApiError ? err.body : null;
      if (!body || typeof body === 'string' || typeof body.error !== 'string') throw err;
      messages.push(body.error);
    }
    // `given X: ->(val) { val } do requires ... end`
    for (const [flag, required] of GIVEN_REQUIRES) {
      if (p[flag] !== true) continue;
      for (const name of required) if (!given(name) || raw[name] === null) messages.push(`${name} is missing`);
    }
    if (messages.length) throw grapeError(messages.join(', '));

    // Explicit nulls reset nullable attributes (the validator treats them as absent).
    const attrs: Record<string, unknown> = { ...p };
    for (const name of PUT_NAMES) if (raw[name] === null && SETTINGS_BY_NAME.get(LEGACY_ALIASES[name] ?? name)?.def === null) attrs[name] = null;

    // Text is measured as sent, before legacy names are resolved and secrets digested.
    const sent = Object.fromEntries(Object.entries(attrs).map(([name, value]) => [LEGACY_ALIASES[name] ?? name, value]));
    const changes = await translate(c, attrs);
    normalizeDefaultBranchName(changes);
    const { settings } = await loadSettingsRow(c.var.db);
    const errors = settingsErrors({ ...settings, ...changes });
    // A length the model validations already reported (e.g. `personal_access_token_prefix`) is not repeated.
    for (const [attr, messages] of Object.entries(settingsTextErrors(sent))) {
      if (!errors[attr]?.some((m) => m.startsWith('is too long'))) (errors[attr] ??= []).push(...messages);
    }
    if (Object.keys(errors).length) throw validationFailed(errors);
    const rowErrors = settingsRowErrors(settings, changes);
    if (Object.keys(rowErrors).length) throw validationFailed(rowErrors);
    await writeSettings(c.var.db, changes);
    return c.json(await present(c));
  });
  // Parameters are validated in the handler (after the admin check); the record documents them.
  const record = r.records[r.records.length - 1];
  if (record) record.params = { shape: settingsPutShape };
}

/** Legacy names, `nil` git protocol, licence filter and secret digests: what gets stored. */
async function translate(c: Context<AppEnv>, attrs: Record<string, unknown>): Promise<Record<string, unknown>> {
  // The newest name wins when a legacy alias is sent alongside it (lib/api/settings.rb order).
  for (const [legacy, current] of Object.entries(LEGACY_ALIASES)) {
    if (!(legacy in attrs)) continue;
    const value = attrs[legacy];
    delete attrs[legacy];
    if (!(current in attrs)) attrs[current] = value;
  }
  for (const [rawName, list] of Object.entries(RAW_INPUTS)) {
    if (!(rawName in attrs)) continue;
    const text = attrs[rawName];
    delete attrs[rawName];
    if (!(list in attrs)) attrs[list] = typeof text === 'string' ? text.split(/[\s,;]+/).filter(Boolean) : [];
  }
  // "since 13.0 it's not possible to disable hashed storage": the parameter is dropped.
  delete attrs.hashed_storage_enabled;
  if (attrs.enabled_git_access_protocol === 'nil') attrs.enabled_git_access_protocol = null;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(attrs)) {
    const def = SETTINGS_BY_NAME.get(name);
    if (name !== 'repository_storages_weighted' && !def) continue;
    // filter_attributes_using_license: paid attributes are silently ignored on a lower plan.
    if (def?.tier && !planAllows(c.var.config, def.tier)) continue;
    if (def?.secret && typeof value === 'string' && value !== '') out[name] = await secretDigest(value);
    else out[name] = value;
  }
  if (out.restricted_visibility_levels) out.restricted_visibility_levels = (out.restricted_visibility_levels as string[]).map(levelName);
  return out;
}

/** `Gitlab::VisibilityLevel.level_value`: numbers and names both name a level. */
function levelName(level: string): string {
  return ({ '0': 'private', '10': 'internal', '20': 'public' } as Record<string, string>)[level] ?? level;
}

async function present(c: Context<AppEnv>) {
  let row = await loadSettingsRow(c.var.db);
  if (row.createdAt == null) {
    await ensureSettingsRow(c.var.db);
    row = await loadSettingsRow(c.var.db);
  }
  const { settings, createdAt, updatedAt } = row;
  const host = c.var.config.externalUrl ? new URL(c.var.config.externalUrl).hostname : new URL(c.req.url).hostname;
  return applicationSetting(settings, { plan: c.var.config.plan, createdAt, updatedAt, host });
}
