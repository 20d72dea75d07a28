/** What the project and merge request approval rule routes share: the refusal, validations, presenter extras and batches. */
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { type RuleExtras } from './approvals-entity';
import { groupEntity } from '../projects/group-entity';
import { userBasic } from '../users/user-entity';
import { ACCESS, type NamespaceRow, traversalIds } from '../projects/abilities';
import { peekMemo } from '../platform/read-memo';
import { ApiError, validationFailed } from '../platform/errors';
import { NAME_MAX, tooLong } from '../platform/text-limits';
import { baseUrl } from '../platform/pagination';
import { isUniqueViolation } from '../platform/unique';
import {
  APPROVALS_REQUIRED_MAX,
  type LoadedRule,
  visibleGroupIds,
} from './rules';
import { loadFullNames } from '../projects/groups';
import { settingsOf } from '../settings/settings';

/** ServiceResponse.error(message: %w[Prohibited], reason: :access_denied) (ApprovalRules::BaseService). */
export const prohibited = () => new ApiError(403, { message: ['Prohibited'] });

/** Presenters shared by the rule entities of a request: users, groups (full names loaded once) and hidden groups. */
export async function ruleExtras(c: Context<AppEnv>, caller: Caller, rules: LoadedRule[], level: number): Promise<RuleExtras> {
  const base = baseUrl(c);
  const groups = [...new Map(rules.flatMap((r) => [...r.groups, ...(r.source?.groups ?? [])]).map((g) => [g.id, g])).values()];
  // The instance settings give the values a group inherits (project_creation_level,
  // default_branch_protection), as GET /groups/:id shows them; they rode the caller's first batch.
  const [fullNames, visible, settings] = await Promise.all([groupFullNames(c, groups), groupsVisible(c, caller, groups.map((g) => g.id)), groups.length ? settingsOf(c) : undefined]);
  return {
    user: (u: UserRow) => userBasic(u, { base }),
    group: (g: NamespaceRow) => groupEntity(g, { base, fullName: fullNames.get(g.id) ?? g.name, settings }),
    visibleGroupIds: visible,
    member: level >= ACCESS.GUEST,
  };
}

/** Full names of groups, from the names the approval state read (state-reads.ts) when they cover every ancestor. */
async function groupFullNames(c: Context<AppEnv>, groups: NamespaceRow[]): Promise<Map<number, string>> {
  const names = await peekMemo<Map<number, string>>(c, 'rule-groups:names');
  if (!names || !groups.every((g) => [...traversalIds(g), g.id].every((id) => names.has(id)))) return loadFullNames(c.var.db, groups);
  return new Map(groups.map((g) => [g.id, traversalIds(g).length ? traversalIds(g).map((id) => names.get(id)).join(' / ') : g.name]));
}

/** Which groups the caller may see, from the approval state's batch when it covered them. */
async function groupsVisible(c: Context<AppEnv>, caller: Caller, ids: number[]): Promise<Set<number>> {
  const known = peekMemo<{ ids: Set<number>; visible: Set<number> }>(c, 'rule-groups:visible');
  const v = known && (await known);
  if (v && ids.every((id) => v.ids.has(id))) return v.visible;
  return visibleGroupIds(c.var.db, caller, ids);
}

export type ErrorMap = Record<string, string[]>;

export const addError = (e: ErrorMap, k: string, m: string) => {
  (e[k] ??= []).push(m);
};

/** ApprovalRuleLike validations shared by project and merge request rules. */
export function ruleLikeErrors(f: { name: string; approvalsRequired: number; ruleType: string; reportType: string | null }): ErrorMap {
  const e: ErrorMap = {};
  if (!f.name.trim()) addError(e, 'name', "can't be blank");
  // `approval_*_rules.name` is a `string(255)` column.
  const long = tooLong(f.name, NAME_MAX);
  if (long) addError(e, 'name', long);
  if (f.approvalsRequired > APPROVALS_REQUIRED_MAX) addError(e, 'approvals_required', `must be less than or equal to ${APPROVALS_REQUIRED_MAX}`);
  if (f.approvalsRequired < 0) addError(e, 'approvals_required', 'must be greater than or equal to 0');
  if (f.ruleType === 'report_approver' && !f.reportType) addError(e, 'report_type', "can't be blank");
  return e;
}

/** A duplicate rule (unique indexes on name and on the one any_approver rule) as GitLab's validation body. */
export const uniqueRuleError = (err: unknown, scope: 'project' | 'merge request') => {
  if (isUniqueViolation(err, 'any_approver')) return validationFailed({ rule_type: [`any-approver for the ${scope} already exists`] });
  if (isUniqueViolation(err)) return validationFailed({ name: ['has already been taken'] });
  return null;
};

export const runBatch = (db: Db, stmts: BatchItem<'sqlite'>[]) => db.batch(stmts as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
