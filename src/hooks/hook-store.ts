/**
 * Saving a hook: WebHook's validations (public_url through the outbound guard, the branch filter,
 * URL variables and custom headers), the encrypted secrets, and GitLab's refusals (helpers/web_hooks_helpers.rb `save_hook`: 422
 * "Invalid url given" / "Invalid branch filter given").
 */
import type { Context } from 'hono';
import { and, eq, isNull, type SQL } from 'drizzle-orm';
import { webHooks } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { ApiError, unprocessable } from '../platform/errors';
import { isValidBranchName } from '../platform/git-ref';
import { outboundUrlError } from '../import-export/export-upload';
import { settingsOf } from '../settings/settings';
import { COMMON_FLAGS, GROUP_FLAGS } from './hooks-params';
import { encryptToken } from './token-crypto';
import { interpolatedUrl, mergeVars, missingVariables, openVars, sameVars, sealVars, varsValid, type VarMap } from './hook-variables';
import type { WebHookRow } from './hook-entity';

type KeyValues = { key: string; value: string }[];
type HookInput = Record<string, unknown> & {
  url?: string;
  token?: string;
  name?: string;
  description?: string;
  push_events_branch_filter?: string;
  branch_filter_strategy?: string;
  url_variables?: KeyValues;
  custom_headers?: KeyValues;
};
type HookValues = Partial<typeof webHooks.$inferInsert>;

/** WebHook validates `url` with public_url (UrlBlocker, local requests per the hooks setting). */
async function urlError(c: Context<AppEnv>, url: string): Promise<boolean> {
  if (url.length > 2048 || !/^https?:\/\//i.test(url)) return true;
  return (await outboundUrlError(url, await settingsOf(c))) !== null;
}

/** BranchFilterValidator: a wildcard must make a valid ref once `*` is taken as a name character; a regex must compile. */
function branchFilterError(filter: string | null | undefined, strategy: string): boolean {
  if (!filter || strategy === 'all_branches') return false;
  if (strategy === 'regex') {
    try {
      new RegExp(filter);
      return false;
    } catch {
      return true;
    }
  }
  return !isValidBranchName(filter.replaceAll('*', 'x'));
}

type Errors = Record<string, string[]>;

/** A hook as it would be saved: what WebHooks::Hook's callbacks and validations look at. */
export interface HookDraft {
  url: string;
  vars: VarMap;
  headers: VarMap;
}

/**
 * WebHooks::Hook's before_validation on update (`reset_url_variables`, `reset_custom_headers`):
 * when the interpolated URL changes, variables that were there before are dropped (so a changed URL
 * cannot carry old secrets to a new host; the save then fails if the URL still needs them), and the
 * custom headers go too.
 */
export function applyResets(before: HookDraft, next: HookDraft): HookDraft {
  const was = interpolatedUrl(before.url, before.vars);
  let vars = next.vars;
  const changed = (v: VarMap) => interpolatedUrl(next.url, v) !== was;
  if (before.vars.length && changed(vars)) {
    const keys = new Set(before.vars.map(([k]) => k));
    if (vars.some(([k]) => keys.has(k))) vars = [];
  }
  // reset_custom_headers rescues InterpolationError: an uninterpolatable URL keeps the headers (the save fails anyway).
  const now = interpolatedUrl(next.url, vars);
  const headers = now !== null && now !== was ? [] : next.headers;
  return { url: next.url, vars, headers };
}

/**
 * The validations WebHooks::Hook runs on save, in its order, as `errors.messages`: `url` public
 * unless variables are set, the variables' JSON schema, no placeholder without its variable, the
 * interpolated URL public, the custom headers' schema. `checkUrl` false skips the outbound checks
 * of a URL nothing changed (they resolve names).
 */
export async function draftErrors(c: Context<AppEnv>, d: HookDraft, checkUrl: boolean): Promise<Errors> {
  const errors: Errors = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (checkUrl && !d.vars.length && (await urlError(c, d.url))) add('url', 'is blocked');
  if (!varsValid(d.vars, 'url_variables')) add('url_variables', 'must be a valid json schema');
  const missing = missingVariables(d.url, d.vars);
  if (missing.length) add('url', `Invalid URL template. Missing keys: [${missing.map((k) => JSON.stringify(k)).join(', ')}]`);
  if (checkUrl && d.vars.length && !Object.keys(errors).length) {
    // AddressableUrlValidator's words: `is blocked: <UrlBlocker's reason>`.
    const reason = await outboundUrlError(interpolatedUrl(d.url, d.vars)!, await settingsOf(c));
    if (reason) add('interpolated_url', `is blocked: ${reason}`);
  }
  if (!varsValid(d.headers, 'custom_headers')) add('custom_headers', 'must be a valid json schema');
  return errors;
}

/** Whether the URL a delivery would go to differs from the saved hook's (a create has none saved). */
export const urlMoved = (was: HookDraft | null, draft: HookDraft) => !was || interpolatedUrl(was.url, was.vars) !== interpolatedUrl(draft.url, draft.vars);

const pairs = (list: { key: string; value: string }[] | undefined): VarMap => mergeVars([], (list ?? []).map((e) => [e.key, e.value]));

/** The columns a create or update sets from `p` (only what was given), after the checks. */
export async function hookValues(c: Context<AppEnv>, p: HookInput, before: WebHookRow | null, group: boolean): Promise<HookValues> {
  const out: HookValues = {};
  const config = c.var.config;
  const givenVars = pairs(p.url_variables);
  const givenHeaders = pairs(p.custom_headers);
  const was: HookDraft | null = before ? { url: before.url, vars: await openVars(config, before.urlVariables), headers: await openVars(config, before.customHeaders) } : null;
  // web_hooks_helpers.rb: create takes the lists as given; update merges them into the hook's (Hash#merge).
  let draft: HookDraft = {
    url: p.url ?? before?.url ?? '',
    vars: was ? mergeVars(was.vars, givenVars) : givenVars,
    headers: was ? mergeVars(was.headers, givenHeaders) : givenHeaders,
  };
  if (was) draft = applyResets(was, draft);
  const errors = await draftErrors(c, draft, p.url !== undefined || urlMoved(was, draft));
  const strategy = p.branch_filter_strategy ?? before?.branchFilterStrategy ?? 'wildcard';
  const filter = p.push_events_branch_filter !== undefined ? p.push_events_branch_filter : before?.pushEventsBranchFilter;
  // save_hook's answers, in its order; other failures are the model's messages.
  if (errors.url) throw unprocessable('Invalid url given');
  if (branchFilterError(filter, strategy)) throw unprocessable('Invalid branch filter given');
  if (errors.custom_headers) throw unprocessable('Custom headers validation failed');
  if (Object.keys(errors).length) throw new ApiError(422, { message: errors });
  if (p.url !== undefined) out.url = p.url;
  if (p.push_events_branch_filter !== undefined) out.pushEventsBranchFilter = p.push_events_branch_filter || null;
  if (p.branch_filter_strategy !== undefined) out.branchFilterStrategy = p.branch_filter_strategy;
  // all_branches clears the filter (WebHook before_validation).
  if (strategy === 'all_branches') out.pushEventsBranchFilter = null;
  if (p.name !== undefined) out.name = p.name;
  if (p.description !== undefined) out.description = p.description;
  for (const [param, column] of Object.entries(group ? { ...COMMON_FLAGS, ...GROUP_FLAGS } : COMMON_FLAGS)) {
    if (typeof p[param] === 'boolean') (out as Record<string, unknown>)[column] = p[param];
  }
  if (p.token !== undefined) out.encryptedToken = p.token === '' ? null : await encryptToken(config, p.token);
  // A changed URL starts over (WebHook#reset_token / enable! on url change): GitLab drops the token
  // with the URL unless a new one is given, and the failure state goes with the old endpoint.
  if (before && p.url !== undefined && p.url !== before.url) {
    if (p.token === undefined) out.encryptedToken = null;
    Object.assign(out, { recentFailures: 0, disabledUntil: null });
  }
  Object.assign(out, await varColumns(c, was, draft));
  return out;
}

/** The sealed columns for `draft`, only those that differ from `was` (a create sets what it has). */
export async function varColumns(c: Context<AppEnv>, was: HookDraft | null, draft: HookDraft): Promise<HookValues> {
  const out: HookValues = {};
  if (!was ? draft.vars.length : !sameVars(was.vars, draft.vars)) out.urlVariables = await sealVars(c.var.config, draft.vars);
  if (!was ? draft.headers.length : !sameVars(was.headers, draft.headers)) out.customHeaders = await sealVars(c.var.config, draft.headers);
  return out;
}

/**
 * The row to write `values` to: `before`'s id, and, when the sealed maps are among the values, only
 * while they are still what was read (they are merged read-modify-write: a concurrent change of the
 * same map must not be overwritten unseen).
 */
export function unchangedSince(before: WebHookRow, values: HookValues): SQL {
  const same = (column: typeof webHooks.urlVariables | typeof webHooks.customHeaders, was: string | null) => (was === null ? isNull(column) : eq(column, was));
  return and(
    eq(webHooks.id, before.id),
    'urlVariables' in values ? same(webHooks.urlVariables, before.urlVariables) : undefined,
    'customHeaders' in values ? same(webHooks.customHeaders, before.customHeaders) : undefined,
  )!;
}
