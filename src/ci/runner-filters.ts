/**
 * The list filters of lib/api/ci/runners.rb (`filter_params`, `deprecated_filter_params`,
 * `filter_runners`, `apply_filter`) as SQL over ci_runners. Values are Ci::Runner's constants of the
 * 14.x API: Grape refuses a value outside a route's `values:` (`scope does not have a valid value`;
 * GET /runners declares the statuses only). filter_runners' own refusal, `400 {"message":"Scope
 * contains invalid value"}`, answers a scope the route declares but does not allow.
 *
 * Statuses filter on the stored contact time, which lags a polling runner by up to 55 minutes
 * (runner-tokens.ts `heartbeat`), as GitLab's database filters lag its cached contact.
 */
import { type SQL, sql } from 'drizzle-orm';
import { ciRunners } from '../db/schema';
import { ApiError } from '../platform/errors';
import { paginationParams } from '../platform/pagination';
import { g } from '../platform/validate';
import { ONLINE_CONTACT_TIMEOUT_MS, RUNNER_TYPES } from './runner-entity';

/** Ci::Runner::AVAILABLE_STATUSES with the deprecated `active` and `paused` (14.x: `not_connected` too). */
export const STATUSES = ['active', 'paused', 'online', 'offline', 'not_connected'] as const;
/** AVAILABLE_TYPES_LEGACY + AVAILABLE_TYPES + the statuses. */
export const SCOPES = ['specific', 'shared', ...RUNNER_TYPES, ...STATUSES] as const;
type Scope = (typeof SCOPES)[number];

/** `filter_params` (type, paused, status, tag_list, pagination). */
export const filterShape = {
  type: g.enum(RUNNER_TYPES).optional(),
  paused: g.bool().optional(),
  status: g.enum(STATUSES).optional(),
  tag_list: g.csv().optional(),
  ...paginationParams,
};
/** `deprecated_filter_params`: the scope, validated against every value; the route narrows it. */
export const scopeShape = { scope: g.enum(SCOPES).optional() };

function scopeSql(scope: Scope, now: number): SQL {
  const deadline = now - ONLINE_CONTACT_TIMEOUT_MS;
  switch (scope) {
    case 'specific':
      return sql`${ciRunners.runnerType} IN ('group_type', 'project_type')`;
    case 'shared':
      return sql`${ciRunners.runnerType} = 'instance_type'`;
    case 'instance_type':
    case 'group_type':
    case 'project_type':
      return sql`${ciRunners.runnerType} = ${scope}`;
    case 'active':
      return sql`${ciRunners.active} = 1`;
    case 'paused':
      return sql`${ciRunners.active} = 0`;
    case 'online':
      return sql`${ciRunners.contactedAt} > ${deadline}`;
    case 'offline':
      return sql`${ciRunners.contactedAt} <= ${deadline}`;
    case 'not_connected':
      return sql`${ciRunners.contactedAt} IS NULL`;
  }
}

export interface FilterInput {
  scope?: Scope;
  type?: (typeof RUNNER_TYPES)[number];
  paused?: boolean;
  status?: (typeof STATUSES)[number];
  tag_list?: string[];
}

/**
 * The conditions of a runner list. `allowedScopes` is what the route accepts for `scope`
 * (undefined: no scope parameter on this route).
 */
export function runnerFilters(p: FilterInput, allowedScopes?: readonly Scope[], now = Date.now()): SQL[] {
  const out: SQL[] = [];
  if (p.scope !== undefined && allowedScopes) {
    if (!allowedScopes.includes(p.scope)) throw new ApiError(400, { message: 'Scope contains invalid value' });
    out.push(scopeSql(p.scope, now));
  }
  if (p.type !== undefined) out.push(scopeSql(p.type, now));
  if (p.status !== undefined) out.push(scopeSql(p.status, now));
  if (p.paused !== undefined) out.push(scopeSql(p.paused ? 'paused' : 'active', now));
  // tagged_with: runners having every listed tag (one JSON parameter, whatever the number of tags).
  if (p.tag_list?.length) {
    out.push(sql`NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify([...new Set(p.tag_list)])}) t WHERE t.value NOT IN (SELECT value FROM json_each(${ciRunners.tagList})))`);
  }
  return out;
}
