/**
 * Protected branches: which branch names are protected (exact names and wildcards, GitLab
 * ProtectedRefMatcher / ProtectedBranch.matching), who may push, merge or unprotect
 * (ProtectedRefAccess#check_access, EE::ProtectedRefAccess, Gitlab::UserAccess) and the rows that
 * protect a project's default branch on its first push (Projects::ProtectDefaultBranchService).
 *
 * Contract for the repository and merge-request areas:
 * - `canPushToBranch(c, caller, level, projectId, branch, opts?)` (Gitlab::UserAccess#can_push_to_branch?),
 *   `canPushToBranches(...)` for a page of branch names
 * - `canMergeToBranch(c, caller, level, projectId, branch)` (#can_merge_to_branch?)
 * - `protectedBranchFor(db, projectId, branch)` -> matching protected branches with their levels
 * - `developersCanPush/developersCanMerge(db, projectId, branch)`, `branchProtection(db, projectId, names)`
 *   for the Branch entity (`protected`, `developers_can_push`, `developers_can_merge`)
 * - `defaultBranchProtectionStatements(db, project, branch, settings)`: batch items protecting the
 *   default branch when its first commit is pushed
 * - `protectedBranchDeletionStatements(db, projectIdsSql)`: rows removed with projects
 *
 * `level` is the caller's access level in the project (findReadableProject's `level`).
 * Protected branches per project are few; GitLab also loads them all and matches in Ruby.
 */
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { approvalProjectRulesProtectedBranches, projects, protectedBranchAccessLevels, protectedBranches } from '../db/schema';
import { ACCESS } from '../projects/abilities';
import { memo, primeMemo } from '../platform/read-memo';
import { settingsOf } from '../settings/settings';
import { groupEntryGrants } from './protected-branch-groups';

export { groupEntryGrants };

export type AccessKind = 'push' | 'merge' | 'unprotect';
export type ProtectedBranchRow = typeof protectedBranches.$inferSelect;
export type AccessLevelRow = typeof protectedBranchAccessLevels.$inferSelect;

/** A protected branch with its access levels, each list in id order (GitLab's association order). */
export interface ProtectedBranchWithLevels extends ProtectedBranchRow {
  push: AccessLevelRow[];
  merge: AccessLevelRow[];
  unprotect: AccessLevelRow[];
}

/** Gitlab::Access values a role entry may take (ProtectedRefAccess.allowed_access_levels). */
export const NO_ACCESS = 0;
export const ADMIN_ACCESS = 60;
export const ROLE_LEVELS = [ACCESS.DEVELOPER, ACCESS.MAINTAINER, ADMIN_ACCESS, NO_ACCESS] as const;
/** UnprotectAccessLevel removes NO_ACCESS so a branch can always be unprotected by someone. */
export const UNPROTECT_ROLE_LEVELS = [ACCESS.DEVELOPER, ACCESS.MAINTAINER, ADMIN_ACCESS] as const;

/** ProtectedRefAccess.human_access_levels. */
export const HUMAN_ACCESS_LEVELS: Record<number, string> = {
  30: 'Developers + Maintainers',
  40: 'Maintainers',
  60: 'Instance admins',
  0: 'No one',
};

/** ProtectedRef#wildcard?: a `*` anywhere in the name. */
export const isWildcard = (name: string) => name.includes('*');

/**
 * RefMatcher#matches?: the exact name, or the wildcard with each `*` as `.*?` and everything else
 * literal, anchored at both ends (`release/*` matches `release/1.0` and `release/`).
 */
export function refMatches(pattern: string, ref: string): boolean {
  if (!pattern) return false;
  if (pattern === ref) return true;
  if (!isWildcard(pattern)) return false;
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('.*?')}$`, 's');
  return re.test(ref);
}

/** All protected branches of a project with their access levels (two queries). */
export async function loadProtectedBranches(db: Db, projectId: number): Promise<ProtectedBranchWithLevels[]> {
  const rows = await db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).orderBy(asc(protectedBranches.id)).all();
  return attachLevels(db, rows);
}

/** Access levels for the given protected branch rows, grouped by kind. */
export async function attachLevels(db: Db, rows: ProtectedBranchRow[]): Promise<ProtectedBranchWithLevels[]> {
  const levels: AccessLevelRow[] = [];
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += 90)
    levels.push(...(await db.select().from(protectedBranchAccessLevels).where(inArray(protectedBranchAccessLevels.protectedBranchId, ids.slice(i, i + 90))).orderBy(asc(protectedBranchAccessLevels.id)).all()));
  return withLevels(rows, levels);
}

/** The rows with their access levels (`levels` in id order), grouped by kind; no storage access. */
export function withLevels(rows: ProtectedBranchRow[], levels: AccessLevelRow[]): ProtectedBranchWithLevels[] {
  const byId = new Map<number, ProtectedBranchWithLevels>(rows.map((r) => [r.id, { ...r, push: [], merge: [], unprotect: [] }]));
  for (const l of levels) {
    const pb = byId.get(l.protectedBranchId);
    if (pb && (l.kind === 'push' || l.kind === 'merge' || l.kind === 'unprotect')) pb[l.kind].push(l);
  }
  return rows.map((r) => byId.get(r.id)!);
}

/**
 * A project's protected branches and their access levels as two unexecuted reads, for a batch
 * (`projectId` may be a sub-select); `withLevels(rows, levels)` joins them.
 */
export function projectProtectedBranchReads(db: Db, projectId: SQL) {
  return [
    db.select().from(protectedBranches).where(sql`${protectedBranches.projectId} = ${projectId}`).orderBy(asc(protectedBranches.id)),
    db
      .select()
      .from(protectedBranchAccessLevels)
      .where(sql`${protectedBranchAccessLevels.protectedBranchId} IN (SELECT pb.id FROM protected_branches pb WHERE pb.project_id = ${projectId})`)
      .orderBy(asc(protectedBranchAccessLevels.id)),
  ] as const;
}

/** ProtectedBranch.matching: the project's protected branches (exact or wildcard) that cover `branchName`. */
export async function protectedBranchFor(db: Db, projectId: number, branchName: string): Promise<ProtectedBranchWithLevels[]> {
  const rows = await db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).orderBy(asc(protectedBranches.id)).all();
  return attachLevels(db, rows.filter((r) => refMatches(r.name, branchName)));
}

/** The project's protected branch rows, read once per memo (lib/read-memo.ts): the push and merge checks and the approval rules share them. */
export const memoProtectedBranchRows = (c: Context<AppEnv>, projectId: number): Promise<ProtectedBranchRow[]> =>
  memo(c, `protected-branches:${projectId}`, () => c.var.db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).orderBy(asc(protectedBranches.id)).all());

/** protectedBranchFor through the memo: can_push and can_merge of one branch read the rules once. */
async function matchingProtectedBranches(c: Context<AppEnv>, projectId: number, branchName: string): Promise<ProtectedBranchWithLevels[]> {
  const rows = (await memoProtectedBranchRows(c, projectId)).filter((r) => refMatches(r.name, branchName));
  return memo(c, `protected-branch-levels:${rows.map((r) => r.id).join(',')}`, () => attachLevels(c.var.db, rows));
}

/**
 * The protected branches (and all their access levels) of the projects `projectIds` selects, as
 * unexecuted reads for a caller's batch; `primeProtectedBranches` then seeds the read memo with them,
 * so the push and merge checks of `branches` ask storage nothing more.
 */
export const protectedBranchReads = (db: Db, projectIds: SQL) =>
  [
    db.select().from(protectedBranches).where(sql`${protectedBranches.projectId} IN ${projectIds}`).orderBy(asc(protectedBranches.id)),
    db
      .select()
      .from(protectedBranchAccessLevels)
      .where(sql`${protectedBranchAccessLevels.protectedBranchId} IN (SELECT pb.id FROM protected_branches pb WHERE pb.project_id IN ${projectIds})`)
      .orderBy(asc(protectedBranchAccessLevels.id)),
  ] as const;

export function primeProtectedBranches(c: Context<AppEnv>, rows: ProtectedBranchRow[], levels: AccessLevelRow[], branches: { projectId: number; name: string }[]): void {
  const entries: [string, unknown][] = [];
  const byProject = new Map<number, ProtectedBranchRow[]>();
  for (const r of rows) byProject.set(r.projectId, [...(byProject.get(r.projectId) ?? []), r]);
  for (const { projectId, name } of branches) {
    const own = byProject.get(projectId) ?? [];
    entries.push([`protected-branches:${projectId}`, own]);
    const matching = own.filter((r) => refMatches(r.name, name));
    const withLevels = matching.map((r) => ({ ...r, push: [] as AccessLevelRow[], merge: [] as AccessLevelRow[], unprotect: [] as AccessLevelRow[] }));
    const byId = new Map(withLevels.map((r) => [r.id, r]));
    for (const l of levels) {
      const pb = byId.get(l.protectedBranchId);
      if (pb && (l.kind === 'push' || l.kind === 'merge' || l.kind === 'unprotect')) pb[l.kind].push(l);
    }
    entries.push([`protected-branch-levels:${matching.map((r) => r.id).join(',')}`, withLevels]);
  }
  primeMemo(c, entries);
}

/** ProtectedBranch.protected? for a repository with commits. */
export async function isProtectedBranch(db: Db, projectId: number, branchName: string): Promise<boolean> {
  if (!branchName) return false;
  const rows = await db.select({ name: protectedBranches.name }).from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).all();
  return rows.some((r) => refMatches(r.name, branchName));
}

/** ProtectedRef.developers_can?: some matching rule's level of `kind` is exactly Developer (30). */
async function developersCan(db: Db, kind: 'push' | 'merge', projectId: number, branchName: string): Promise<boolean> {
  const matching = await protectedBranchFor(db, projectId, branchName);
  return matching.some((pb) => pb[kind].some((l) => l.accessLevel === ACCESS.DEVELOPER && l.userId == null && l.groupId == null && l.deployKeyId == null));
}

export const developersCanPush = (db: Db, projectId: number, branchName: string) => developersCan(db, 'push', projectId, branchName);
export const developersCanMerge = (db: Db, projectId: number, branchName: string) => developersCan(db, 'merge', projectId, branchName);

export interface BranchProtectionInfo {
  protected: boolean;
  developersCanPush: boolean;
  developersCanMerge: boolean;
}

/** Branch entity fields for a page of branches: one load of the project's rules, matched in memory. */
export async function branchProtection(db: Db, projectId: number, names: string[]): Promise<Map<string, BranchProtectionInfo>> {
  return branchProtectionOf(await loadProtectedBranches(db, projectId), names);
}

/** `branchProtection` over rules already loaded. */
export function branchProtectionOf(all: ProtectedBranchWithLevels[], names: string[]): Map<string, BranchProtectionInfo> {
  const dev = (l: AccessLevelRow) => l.accessLevel === ACCESS.DEVELOPER && l.userId == null && l.groupId == null && l.deployKeyId == null;
  const out = new Map<string, BranchProtectionInfo>();
  for (const name of names) {
    const m = all.filter((pb) => refMatches(pb.name, name));
    out.set(name, { protected: m.length > 0, developersCanPush: m.some((pb) => pb.push.some(dev)), developersCanMerge: m.some((pb) => pb.merge.some(dev)) });
  }
  return out;
}

/** ProtectedBranch.allow_force_push?: some matching rule allows force pushes. */
export async function allowForcePush(db: Db, projectId: number, branchName: string): Promise<boolean> {
  const rows = await db.select({ name: protectedBranches.name, allow: protectedBranches.allowForcePush }).from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).all();
  return rows.some((r) => r.allow && refMatches(r.name, branchName));
}

/** ProtectedBranch.branch_requires_code_owner_approval? (EE): some matching rule requires it. */
export async function codeOwnerApprovalRequired(db: Db, projectId: number, branchName: string): Promise<boolean> {
  const rows = await db.select({ name: protectedBranches.name, req: protectedBranches.codeOwnerApprovalRequired }).from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).all();
  return rows.some((r) => r.req && refMatches(r.name, branchName));
}

/** `push_code`: developers and above, or an administrator (ProjectPolicy); nothing in an archived project. */
export const canPushCode = (caller: Caller, level: number, archived = false) => Boolean(caller.user) && !archived && (caller.isAdmin || level >= ACCESS.DEVELOPER);

/**
 * ProtectedRefAccess#check_access for one entry. Role entries need `push_code` and a membership
 * level of at least the entry's (an administrator who is no member passes only `60`, "Instance
 * admins"); a user entry needs to be that user and a project member; a group entry needs the
 * group in `groups` (groupEntryGrants); deploy keys are not supported.
 */
export function checkAccess(caller: Caller, level: number, entry: AccessLevelRow, archived = false, groups?: ReadonlySet<number>): boolean {
  const user = caller.user;
  if (!user) return false;
  if (entry.userId != null) return user.id === entry.userId && level >= ACCESS.GUEST;
  if (entry.groupId != null) return Boolean(groups?.has(entry.groupId));
  if (entry.deployKeyId != null) return false;
  if (entry.accessLevel == null || entry.accessLevel === NO_ACCESS) return false;
  if (entry.accessLevel === ADMIN_ACCESS) return user.isAdmin;
  return canPushCode(caller, level, archived) && level >= entry.accessLevel;
}

export interface PushOptions {
  /** The repository has no commits yet (ProtectedBranch.protected_ref_accessible_to? special case). */
  emptyRepo?: boolean;
  /** The project is archived: nobody pushes or merges. */
  archived?: boolean;
}

/** The instance `default_branch_protection` (0..4, Gitlab::Access::PROTECTION_*). */
async function defaultBranchProtectionLevel(c: Context<AppEnv>): Promise<number> {
  const settings = await settingsOf(c);
  const n = Number((settings as Record<string, unknown>).default_branch_protection ?? 2);
  return Number.isInteger(n) ? n : 2;
}

/** Project#default_branch_protected?: full, developers-can-merge and developers-can-initial-push. */
const defaultBranchProtected = (p: number) => p === 2 || p === 3 || p === 4;
/** Project#initial_push_to_default_branch_allowed_for_developer?. */
const developerInitialPushAllowed = (p: number) => p === 0 || p === 1 || p === 4;

/**
 * Gitlab::UserAccess#can_push_to_branch?: an unprotected branch takes `push_code` (developer+);
 * a protected one takes some matching push access level. In an empty repository with a protected
 * default branch, maintainers and administrators may push, and developers when the instance's
 * default branch protection allows their initial push.
 */
export async function canPushToBranch(c: Context<AppEnv>, caller: Caller, level: number, projectId: number, branchName: string, opts: PushOptions = {}): Promise<boolean> {
  // UserAccess#can_push_to_branch? asks for push_code before any rule (a guest named in a user entry cannot push).
  if (!canPushCode(caller, level, opts.archived)) return false;
  const matching = await matchingProtectedBranches(c, projectId, branchName);
  const protection = opts.emptyRepo ? await defaultBranchProtectionLevel(c) : null;
  const isProtected = matching.length > 0 || (protection !== null && defaultBranchProtected(protection));
  if (!isProtected) return true;
  if (protection !== null) {
    // ProtectedBranch.protected_ref_accessible_to?: creating the default branch of an empty repository.
    if (caller.user!.isAdmin || caller.isAdmin || level >= ACCESS.MAINTAINER) return true;
    if (level === ACCESS.DEVELOPER && developerInitialPushAllowed(protection)) return true;
  }
  const groups = await groupEntryGrants(c, caller, projectId, matching);
  return matching.some((pb) => pb.push.some((l) => checkAccess(caller, level, l, false, groups)));
}

/**
 * canPushToBranch for a page of branches (the Branch entity's `can_push`): the project's rules are
 * loaded once and matched in memory. Same answers as calling canPushToBranch per name.
 */
export async function canPushToBranches(c: Context<AppEnv>, caller: Caller, level: number, projectId: number, names: string[], opts: PushOptions = {}): Promise<Map<string, boolean>> {
  if (!canPushCode(caller, level, opts.archived)) return new Map(names.map((n) => [n, false]));
  const all = await loadProtectedBranches(c.var.db, projectId);
  const protection = opts.emptyRepo ? await defaultBranchProtectionLevel(c) : null;
  return canPushToBranchesOf(caller, level, all, names, { archived: opts.archived, protection, groups: await groupEntryGrants(c, caller, projectId, all) });
}

/** `canPushToBranches` over rules (and, for an empty repository, the instance's default branch protection) already loaded. */
export function canPushToBranchesOf(
  caller: Caller,
  level: number,
  all: ProtectedBranchWithLevels[],
  names: string[],
  opts: { archived?: boolean; protection?: number | null; groups?: ReadonlySet<number> } = {},
): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const protection = opts.protection ?? null;
  for (const name of names) {
    const matching = all.filter((pb) => refMatches(pb.name, name));
    const isProtected = matching.length > 0 || (protection !== null && defaultBranchProtected(protection));
    let ok: boolean;
    if (!canPushCode(caller, level, opts.archived)) ok = false;
    else if (!isProtected) ok = true;
    else if (protection !== null && (caller.user!.isAdmin || caller.isAdmin || level >= ACCESS.MAINTAINER)) ok = true;
    else if (protection !== null && level === ACCESS.DEVELOPER && developerInitialPushAllowed(protection)) ok = true;
    else ok = matching.some((pb) => pb.push.some((l) => checkAccess(caller, level, l, false, opts.groups)));
    out.set(name, ok);
  }
  return out;
}

/** Gitlab::UserAccess#can_merge_to_branch?: `push_code` when unprotected, else some matching merge access level. */
export async function canMergeToBranch(c: Context<AppEnv>, caller: Caller, level: number, projectId: number, branchName: string, opts: { archived?: boolean } = {}): Promise<boolean> {
  if (!caller.user || opts.archived) return false;
  const matching = await matchingProtectedBranches(c, projectId, branchName);
  if (!matching.length) return canPushCode(caller, level);
  const groups = await groupEntryGrants(c, caller, projectId, matching);
  return matching.some((pb) => pb.merge.some((l) => checkAccess(caller, level, l, false, groups)));
}

/** ProtectedBranch#can_unprotect? (EE): no unprotect levels, or one that grants the caller access. */
export function canUnprotect(caller: Caller, level: number, pb: ProtectedBranchWithLevels, groups?: ReadonlySet<number>): boolean {
  if (!pb.unprotect.length) return true;
  return pb.unprotect.some((l) => checkAccess(caller, level, l, false, groups));
}

/**
 * Projects::ProtectDefaultBranchService: the batch items that protect `branchName` when the first
 * commit lands, per the instance `default_branch_protection` (Gitlab::Access::BranchProtection):
 * 0 none (no rows), 1 push developers / merge maintainers, 2 maintainers both, 3 push maintainers /
 * merge developers, 4 maintainers both (developers may make the initial push). Nothing when a rule
 * (exact or wildcard) already covers the branch: `existingNames` (the project's rule names, if the
 * caller has them) skips the statements; otherwise the inserts check it themselves, and a rule
 * created concurrently is left alone (ON CONFLICT DO NOTHING), so the caller's batch never fails here.
 */
export function defaultBranchProtectionStatements(
  db: Db,
  project: { id: number },
  branchName: string,
  settings: Record<string, unknown>,
  opts: { now?: number; existingNames?: string[] } = {},
): BatchItem<'sqlite'>[] {
  const protection = Number(settings.default_branch_protection ?? 2);
  if (!branchName || protection === 0 || ![1, 2, 3, 4].includes(protection)) return [];
  if (opts.existingNames?.some((n) => refMatches(n, branchName))) return [];
  const push = protection === 1 ? ACCESS.DEVELOPER : ACCESS.MAINTAINER;
  const merge = protection === 3 ? ACCESS.DEVELOPER : ACCESS.MAINTAINER;
  const now = opts.now ?? Date.now();
  return [
    // ProtectedBranch.protected?: no rule when one (exact or wildcard) covers the branch already. GLOB
    // is the wildcard match once the rule's `[` and `?` are made literal (`*` means the same).
    db
      .insert(protectedBranches)
      .select(
        db
          .select({
            id: sql<number>`NULL`.as('id'),
            projectId: projects.id,
            name: sql<string>`${branchName}`.as('name'),
            allowForcePush: sql<boolean>`0`.as('allow_force_push'),
            codeOwnerApprovalRequired: sql<boolean>`0`.as('code_owner_approval_required'),
            createdAt: sql<number>`${now}`.as('created_at'),
            updatedAt: sql<number>`${now}`.as('updated_at'),
          })
          .from(projects)
          .where(
            and(
              eq(projects.id, project.id),
              sql`NOT EXISTS (SELECT 1 FROM protected_branches pb WHERE pb.project_id = ${project.id} AND ${branchName} GLOB replace(replace(pb.name, '[', '[[]'), '?', '[?]'))`,
            ),
          ),
      )
      .onConflictDoNothing(),
    // A rule that already existed keeps its own levels: only a branch without levels of a kind gets them.
    ...(
      [
        ['push', push],
        ['merge', merge],
      ] as const
    ).map(([kind, accessLevel]) =>
      db.insert(protectedBranchAccessLevels).select(
        db
          .select({
            id: sql<number>`NULL`.as('id'),
            protectedBranchId: protectedBranches.id,
            kind: sql<string>`${kind}`.as('kind'),
            accessLevel: sql<number>`${accessLevel}`.as('access_level'),
            userId: sql<number>`NULL`.as('user_id'),
            groupId: sql<number>`NULL`.as('group_id'),
            deployKeyId: sql<number>`NULL`.as('deploy_key_id'),
            createdAt: sql<number>`${now}`.as('created_at'),
            updatedAt: sql<number>`${now}`.as('updated_at'),
          })
          .from(protectedBranches)
          .where(
            and(
              eq(protectedBranches.projectId, project.id),
              eq(protectedBranches.name, branchName),
              sql`NOT EXISTS (SELECT 1 FROM protected_branch_access_levels l WHERE l.protected_branch_id = ${protectedBranches.id} AND l.kind = ${kind})`,
            ),
          ),
      ),
    ),
  ];
}

type IdSelect = SQL | ReturnType<Db['select']> | { getSQL(): SQL };
const within = (col: SQLiteColumn, ids: IdSelect) => inArray(col, ids as never);

/** Protected branches (and their access levels) of the projects selected by `projectIds` (a sub-select or list SQL). */
export function protectedBranchDeletionStatements(db: Db, projectIds: IdSelect): BatchItem<'sqlite'>[] {
  const pbIds = db.select({ id: protectedBranches.id }).from(protectedBranches).where(within(protectedBranches.projectId, projectIds));
  return [
    db.delete(protectedBranchAccessLevels).where(within(protectedBranchAccessLevels.protectedBranchId, pbIds)),
    db.delete(approvalProjectRulesProtectedBranches).where(within(approvalProjectRulesProtectedBranches.protectedBranchId, pbIds)),
    db.delete(protectedBranches).where(within(protectedBranches.projectId, projectIds)),
  ];
}

/** Access-level entries naming deleted users (GitLab's foreign key cascades them away). */
export function protectedBranchUserDeletionStatements(db: Db, userIds: IdSelect): BatchItem<'sqlite'>[] {
  return [db.delete(protectedBranchAccessLevels).where(within(protectedBranchAccessLevels.userId, userIds))];
}

/** Access-level entries naming deleted groups. */
export function protectedBranchGroupDeletionStatements(db: Db, groupIds: IdSelect): BatchItem<'sqlite'>[] {
  return [db.delete(protectedBranchAccessLevels).where(within(protectedBranchAccessLevels.groupId, groupIds))];
}

/** Whether the project has a protected branch named exactly `name` (the API's `find_by!(name:)`). */
export async function findProtectedBranch(db: Db, projectId: number, name: string): Promise<ProtectedBranchWithLevels | null> {
  const row = await db.select().from(protectedBranches).where(and(eq(protectedBranches.projectId, projectId), eq(protectedBranches.name, name))).get();
  if (!row) return null;
  return (await attachLevels(db, [row]))[0];
}
