/**
 * Presenting project approval rules (ProjectApprovalRule entity) and who may read or change them
 * (ee/lib/api/project_approval_rules.rb's helpers). The protected branches' access levels and the
 * names they show can be read in the batch that reads the rules (ruleBranchReads); otherwise they
 * are read here.
 */
import { asc, inArray, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { namespaces, protectedBranchAccessLevels, users } from '../db/schema';
import { type ProjectApprovalRule, projectApprovalRuleEntity } from './approvals-entity';
import { type ProtectedBranch, protectedBranchEntity } from '../repository/protected-branch-entity';
import { ACCESS, featureAvailable, type ProjectRow } from '../projects/abilities';
import { forbidden } from '../platform/errors';
import { attachLevels, withLevels } from '../repository/protected-branches';
import { approvalsFeature, type LoadedRule, multipleRulesFeature } from './rules';
import { ruleExtras } from './rule-support';
import { projectRuleReads, type ProjectRuleReads } from './state-reads';
import { isMaintainer } from './project-rules';

/** The access levels of the project's protected branches and the names of the users and groups they name, for one batch (`projectId` may be a sub-select). */
export function ruleBranchReads(db: Db, projectId: SQL) {
  const branchIds = sql`(SELECT pb.id FROM protected_branches pb WHERE pb.project_id = ${projectId})`;
  return [
    db.select().from(protectedBranchAccessLevels).where(sql`${protectedBranchAccessLevels.protectedBranchId} IN ${branchIds}`).orderBy(asc(protectedBranchAccessLevels.id)),
    db.select({ id: users.id, name: users.name }).from(users).where(sql`${users.id} IN (SELECT l.user_id FROM protected_branch_access_levels l WHERE l.protected_branch_id IN ${branchIds})`),
    db.select({ id: namespaces.id, name: namespaces.name }).from(namespaces).where(sql`${namespaces.id} IN (SELECT l.group_id FROM protected_branch_access_levels l WHERE l.protected_branch_id IN ${branchIds})`),
  ] as const;
}

export type RuleBranchReads = { [K in keyof ReturnType<typeof ruleBranchReads>]: Awaited<ReturnType<typeof ruleBranchReads>[K]> };

/** The project's rules (state-reads.ts projectRuleReads) and their branches' access levels, for one batch. */
export const rulesWithBranchReads = (db: Db, caller: Caller, projectId: SQL) => [...projectRuleReads(db, caller, projectId), ...ruleBranchReads(db, projectId)] as const;

/** What rulesWithBranchReads read, typed: the rules' reads, then the branches'. */
export function splitRuleReads(reads: readonly unknown[]): [ProjectRuleReads, RuleBranchReads] {
  const n = reads.length - 3;
  return [reads.slice(0, n) as unknown as ProjectRuleReads, reads.slice(n) as unknown as RuleBranchReads];
}

export async function presentProjectRules(c: Context<AppEnv>, caller: Caller, rules: LoadedRule[], level: number, read?: RuleBranchReads): Promise<ProjectApprovalRule[]> {
  const x = await ruleExtras(c, caller, rules, level);
  const multiple = multipleRulesFeature(c);
  const rows = [...new Map(rules.flatMap((r) => r.protectedBranches).map((b) => [b.id, b])).values()].sort((a, b) => a.id - b.id);
  const branches = new Map<number, ProtectedBranch>();
  if (multiple && rows.length) {
    const withAccess = read ? withLevels(rows, read[0]) : await attachLevels(c.var.db, rows);
    const ext = read
      ? { userNames: new Map(read[1].map((u) => [u.id, u.name])), groupNames: new Map(read[2].map((g) => [g.id, g.name])) }
      : await accessNames(c.var.db, withAccess.flatMap((b) => [...b.push, ...b.merge, ...b.unprotect]));
    for (const b of withAccess) branches.set(b.id, protectedBranchEntity(b, { premium: true, ...ext }));
  }
  return rules.map((r) => projectApprovalRuleEntity(r, { ...x, multiple, protectedBranch: (id) => branches.get(id)! }));
}

/** Names for the access levels' descriptions. */
async function accessNames(db: Db, levels: { userId: number | null; groupId: number | null }[]) {
  const userIds = [...new Set(levels.map((l) => l.userId).filter((x): x is number => x != null))];
  const groupIds = [...new Set(levels.map((l) => l.groupId).filter((x): x is number => x != null))];
  const userNames = new Map<number, string>();
  const groupNames = new Map<number, string>();
  if (userIds.length) for (const u of await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, userIds)).all()) userNames.set(u.id, u.name);
  if (groupIds.length) for (const g of await db.select({ id: namespaces.id, name: namespaces.name }).from(namespaces).where(inArray(namespaces.id, groupIds)).all()) groupNames.set(g.id, g.name);
  return { userNames, groupNames };
}

/** `check_feature_availability`: 403 without the merge_request_approvers feature. */
export function checkFeature(c: Context<AppEnv>) {
  if (!approvalsFeature(c)) throw forbidden();
}

/** `authorize_read_project_approval_rule!`: manage_merge_request_settings, else create_merge_request_in (Developer+ with merge requests available). */
export function authorizeReadRules(caller: Caller, project: ProjectRow, level: number) {
  if (isMaintainer(caller, level)) return;
  if (level >= ACCESS.DEVELOPER && featureAvailable(project, 'merge_requests', { level, isAdmin: caller.isAdmin })) return;
  throw forbidden();
}

/** manage_merge_request_settings and modify_approvers_rules: Maintainer+ (not on archived projects). */
export function authorizeWriteRules(caller: Caller, project: ProjectRow, level: number) {
  if (!isMaintainer(caller, level) || project.archived) throw forbidden();
}
