/**
 * Saving a hook: WebHook's validations (public_url through the outbound guard, the branch filter),
 * the encrypted token, and GitLab's refusals (helpers/web_hooks_helpers.rb `save_hook`: 422
 * "Invalid url given" / "Invalid branch filter given").
 */
import type { Context } from 'hono';
import { webHooks } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { unprocessable } from '../platform/errors';
import { isValidBranchName } from '../platform/git-ref';
import { outboundUrlError } from '../import-export/export-upload';
import { settingsOf } from '../settings/settings';
import { COMMON_FLAGS, GROUP_FLAGS } from './hooks-params';
import { encryptToken } from './token-crypto';
import type { WebHookRow } from './hook-entity';

type HookInput = Record<string, unknown> & { url?: string; token?: string; name?: string; description?: string; push_events_branch_filter?: string; branch_filter_strategy?: string };
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

/** The columns a create or update sets from `p` (only what was given), after the checks. */
export async function hookValues(c: Context<AppEnv>, p: HookInput, before: WebHookRow | null, group: boolean): Promise<HookValues> {
  const out: HookValues = {};
  if (p.url !== undefined) {
    if (await urlError(c, p.url)) throw unprocessable('Invalid url given');
    out.url = p.url;
  }
  const strategy = p.branch_filter_strategy ?? before?.branchFilterStrategy ?? 'wildcard';
  const filter = p.push_events_branch_filter !== undefined ? p.push_events_branch_filter : before?.pushEventsBranchFilter;
  if (branchFilterError(filter, strategy)) throw unprocessable('Invalid branch filter given');
  if (p.push_events_branch_filter !== undefined) out.pushEventsBranchFilter = p.push_events_branch_filter || null;
  if (p.branch_filter_strategy !== undefined) out.branchFilterStrategy = p.branch_filter_strategy;
  // all_branches clears the filter (WebHook before_validation).
  if (strategy === 'all_branches') out.pushEventsBranchFilter = null;
  if (p.name !== undefined) out.name = p.name;
  if (p.description !== undefined) out.description = p.description;
  for (const [param, column] of Object.entries(group ? { ...COMMON_FLAGS, ...GROUP_FLAGS } : COMMON_FLAGS)) {
    if (typeof p[param] === 'boolean') (out as Record<string, unknown>)[column] = p[param];
  }
  if (p.token !== undefined) out.encryptedToken = p.token === '' ? null : await encryptToken(c.var.config, p.token);
  // A changed URL starts over (WebHook#reset_token / enable! on url change): GitLab drops the token
  // with the URL unless a new one is given, and the failure state goes with the old endpoint.
  if (before && p.url !== undefined && p.url !== before.url) {
    if (p.token === undefined) out.encryptedToken = null;
    Object.assign(out, { recentFailures: 0, disabledUntil: null });
  }
  return out;
}
