/**
 * Protected environments of a project (ProtectedEnvironments::{Create,Update,Destroy}Service and
 * BaseService, the ProtectedEnvironment model). Entries naming a user are kept only for users with
 * developer access to the project, entries naming a group only for groups the project is shared
 * with (BaseService#valid_attribute?); this server shares projects with no group, so those are
 * dropped. Validation failures are the model's full messages.
 */
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson } from '../db/batch-reads';
import type { Db } from '../db/client';
import { namespaces, projects, protectedEnvironmentEntries, protectedEnvironments, users } from '../db/schema';
import { ApiError, recordNotFound } from '../platform/errors';
import { ACCESS, projectLevelSql } from '../projects/abilities';
import type { EntryNames, EntryRow } from './protected-environment-entity';
import type { ApprovalEntryParam, DeployEntryParam } from './protected-environments-params';

export const DEPRECATED_APPROVAL_COUNT = "Parameter 'required_approval_count' is deprecated and shouldn't be used. See https://gitlab.com/groups/gitlab-org/-/epics/9662";

/** `has_deprecated_approval_rules_params?`: any positive count is refused (422). */
export function refuseApprovalCount(count: number | undefined) {
  if (count != null && count > 0) throw new ApiError(422, { message: `422 Unprocessable Entity - ${DEPRECATED_APPROVAL_COUNT}` });
}

/** The user ids the parameters name (their level in the project and their names are read beside the project). */
export const paramUserIds = (...lists: ({ user_id?: number }[] | undefined)[]) => [...new Set(lists.flatMap((l) => (l ?? []).map((e) => e.user_id).filter((x): x is number => x != null)))];

/** Each named user's name and level in the project `pid`. */
export function usersWithLevel(db: Db, pid: SQL, ids: number[]) {
  return db
    .select({ id: users.id, name: users.name, level: projectLevelSql(sql.raw('"users"."id"')).as('level') })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .innerJoin(users, inJson(users.id, ids))
    .where(sql`${projects.id} = ${pid}`);
}

/** The names of the users and groups the given entries point at. */
export function entryNameReads(db: Db, entriesOf: SQL) {
  const of = (col: 'user_id' | 'group_id') => sql`(SELECT ${sql.raw(col)} FROM ${protectedEnvironmentEntries} WHERE ${entriesOf})`;
  return [
    db.select({ id: users.id, name: users.name }).from(users).where(sql`${users.id} IN ${of('user_id')}`),
    db.select({ id: namespaces.id, name: namespaces.name }).from(namespaces).where(sql`${namespaces.id} IN ${of('group_id')}`),
  ] as const;
}

export function entryNames(userRows: { id: number; name: string }[], groupRows: { id: number; name: string }[], extra: { id: number; name: string }[] = []): EntryNames {
  return { users: new Map([...userRows, ...extra].map((u) => [u.id, u.name])), groups: new Map(groupRows.map((g) => [g.id, g.name])) };
}

type Kind = 'deploy' | 'approval';
export type NewEntry = Omit<typeof protectedEnvironmentEntries.$inferInsert, 'protectedEnvironmentId'>;

/** BaseService#valid_attribute?: a destroy always passes; a user needs developer access, a group must be shared with the project. */
function qualified(e: { user_id?: number; group_id?: number; _destroy?: boolean }, levels: Map<number, number>) {
  if (e._destroy) return true;
  if (e.group_id != null) return false;
  if (e.user_id != null) return (levels.get(e.user_id) ?? 0) >= ACCESS.DEVELOPER;
  return true;
}

/** A new entry's row. The deploy table's access_level column defaults to 40 (shown only for role entries). */
function newEntry(kind: Kind, e: DeployEntryParam | ApprovalEntryParam): NewEntry {
  return {
    kind,
    accessLevel: e.access_level ?? (kind === 'deploy' ? ACCESS.MAINTAINER : null),
    userId: e.user_id ?? null,
    groupId: e.group_id ?? null,
    groupInheritanceType: e.group_inheritance_type ?? 0,
    requiredApprovals: kind === 'approval' ? ((e as ApprovalEntryParam).required_approvals ?? 1) : null,
  };
}

export interface EntryPlan {
  inserts: NewEntry[];
  updates: { id: number; set: Partial<NewEntry> }[];
  deletes: number[];
  /** The entries as they will be, for validation. */
  result: { kind: Kind }[];
}

/**
 * accepts_nested_attributes_for over the existing entries: `id` changes (or with `_destroy` removes)
 * that entry, which must belong to this protected environment (404 otherwise); the rest are new.
 */
export function planEntries(existing: EntryRow[], deploy: DeployEntryParam[] | undefined, approval: ApprovalEntryParam[] | undefined, levels: Map<number, number>): EntryPlan {
  const plan: EntryPlan = { inserts: [], updates: [], deletes: [], result: existing.map((e) => ({ kind: e.kind as Kind })) };
  const removed = new Set<number>();
  for (const [kind, list] of [['deploy', deploy], ['approval', approval]] as const) {
    for (const e of (list ?? []).filter((x) => qualified(x, levels))) {
      if (e.id == null) {
        if (e._destroy) continue;
        plan.inserts.push(newEntry(kind, e));
        plan.result.push({ kind });
        continue;
      }
      const row = existing.find((x) => x.id === e.id && x.kind === kind);
      if (!row) throw recordNotFound();
      if (e._destroy) {
        if (!removed.has(row.id)) plan.deletes.push(row.id);
        removed.add(row.id);
        continue;
      }
      const set: Partial<NewEntry> = {};
      if (e.access_level != null) set.accessLevel = e.access_level;
      if (e.user_id != null) set.userId = e.user_id;
      if (e.group_id != null) set.groupId = e.group_id;
      if (e.group_inheritance_type != null) set.groupInheritanceType = e.group_inheritance_type;
      if (kind === 'approval' && (e as ApprovalEntryParam).required_approvals != null) set.requiredApprovals = (e as ApprovalEntryParam).required_approvals;
      if (Object.keys(set).length) plan.updates.push({ id: row.id, set });
    }
  }
  const gone = new Set(plan.deletes);
  plan.result = plan.result.filter((_, i) => i >= existing.length || !gone.has(existing[i].id));
  return plan;
}

/** The model's full messages (422 `{"message": [...]}`). */
export function protectedEnvironmentErrors(name: string, requiredApprovalCount: number, plan: EntryPlan): string[] {
  const errors: string[] = [];
  if (plan.result.filter((e) => e.kind === 'deploy').length < 1) errors.push('Deploy access levels is too short (minimum is 1 character)');
  if (name.trim() === '') errors.push("Name can't be blank");
  if (requiredApprovalCount < 0) errors.push('Required approval count must be greater than or equal to 0');
  if (requiredApprovalCount > 5) errors.push('Required approval count must be less than or equal to 5');
  return errors;
}

/** The statements of a plan for the protected environment `peId` (a number, or a sub-select for one created in the same batch). */
export function entryStatements(db: Db, peId: number | SQL, plan: EntryPlan): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  if (plan.deletes.length) out.push(db.delete(protectedEnvironmentEntries).where(inArray(protectedEnvironmentEntries.id, plan.deletes)));
  for (const u of plan.updates) out.push(db.update(protectedEnvironmentEntries).set(u.set).where(eq(protectedEnvironmentEntries.id, u.id)));
  if (plan.inserts.length) out.push(db.insert(protectedEnvironmentEntries).values(plan.inserts.map((e) => ({ ...e, protectedEnvironmentId: peId as number }))));
  return out;
}

/** The protected environment of this name in project `pid`, and its entries. */
export function protectedEnvironmentReads(db: Db, pid: SQL, name: string) {
  const pe = and(sql`${protectedEnvironments.projectId} = ${pid}`, eq(protectedEnvironments.name, name));
  const peId = sql`(SELECT ${protectedEnvironments.id} FROM ${protectedEnvironments} WHERE ${pe})`;
  return {
    peId,
    reads: [
      db.select().from(protectedEnvironments).where(pe).limit(1),
      db.select().from(protectedEnvironmentEntries).where(sql`${protectedEnvironmentEntries.protectedEnvironmentId} = ${peId}`).orderBy(protectedEnvironmentEntries.id),
    ] as const,
  };
}


/** The deploy entries protecting the environment named `envName` in project `pid` (none when it is not protected). */
export function deployEntriesRead(db: Db, pid: SQL, envName: SQL | string) {
  return db
    .select({ accessLevel: protectedEnvironmentEntries.accessLevel, userId: protectedEnvironmentEntries.userId, groupId: protectedEnvironmentEntries.groupId })
    .from(protectedEnvironmentEntries)
    .where(
      sql`${protectedEnvironmentEntries.kind} = 'deploy' AND ${protectedEnvironmentEntries.protectedEnvironmentId} IN (SELECT ${protectedEnvironments.id} FROM ${protectedEnvironments} WHERE ${protectedEnvironments.projectId} = ${pid} AND ${protectedEnvironments.name} = ${envName})`,
    );
}

/**
 * Environment#protected_from?(user) (Premium): the environment is protected and none of its deploy
 * entries lets the caller in (ProtectedEnvironments::Authorizable#check_access: administrators, the
 * named user, or a role at or below the caller's level; groups are never shared with a project here).
 * EE's EnvironmentPolicy then prevents stop, update, destroy and deployments.
 */
export function protectedFrom(premium: boolean, caller: { isAdmin: boolean; user?: { id: number } | null }, level: number, entries: { accessLevel: number | null; userId: number | null; groupId: number | null }[]): boolean {
  if (!premium || !entries.length) return false;
  if (!caller.user) return true;
  if (caller.isAdmin) return false;
  const uid = caller.user.id;
  return !entries.some((e) => (e.userId != null ? e.userId === uid : e.groupId != null ? false : level >= (e.accessLevel ?? ACCESS.MAINTAINER)));
}
