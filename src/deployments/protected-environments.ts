/**
 * Protected environments of a project (ProtectedEnvironments::{Create,Update,Destroy}Service and
 * BaseService, the ProtectedEnvironment model). Entries naming a user are kept only for users with
 * developer access to the project, entries naming a group only for groups the project is shared
 * with (BaseService#valid_attribute?, `project.invited_groups`: any link in force, whatever its
 * `group_access`); the others are dropped. Validation failures are the model's full messages.
 */
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson } from '../db/batch-reads';
import type { Db } from '../db/client';
import { namespaces, projectGroupLinks, projects, protectedEnvironmentEntries, protectedEnvironments, users } from '../db/schema';
import { ApiError, recordNotFound } from '../platform/errors';
import { ACCESS, groupLevelSql, projectLevelSql } from '../projects/abilities';
import { today } from '../platform/time';
import type { EntryNames, EntryRow } from './protected-environment-entity';
import type { ApprovalEntryParam, DeployEntryParam } from './protected-environments-params';

export const DEPRECATED_APPROVAL_COUNT = "Parameter 'required_approval_count' is deprecated and shouldn't be used. See https://gitlab.com/groups/gitlab-org/-/epics/9662";

/** `has_deprecated_approval_rules_params?`: any positive count is refused (422). */
export function refuseApprovalCount(count: number | undefined) {
  if (count != null && count > 0) throw new ApiError(422, { message: `422 Unprocessable Entity - ${DEPRECATED_APPROVAL_COUNT}` });
}

/** The user ids the parameters name (their level in the project and their names are read beside the project). */
export const paramUserIds = (...lists: ({ user_id?: number }[] | undefined)[]) => [...new Set(lists.flatMap((l) => (l ?? []).map((e) => e.user_id).filter((x): x is number => x != null)))];

/** The group ids the parameters name. */
export const paramGroupIds = (...lists: ({ group_id?: number }[] | undefined)[]) => [...new Set(lists.flatMap((l) => (l ?? []).map((e) => e.group_id).filter((x): x is number => x != null)))];

/**
 * Of the named groups, those project `pid` is shared with (`project.invited_groups`), with their
 * names: a link whatever its `group_access`, not expired (GitLab deletes expired links; here they
 * are compared with today, as memberships are).
 */
export function sharedGroupsRead(db: Db, pid: SQL, ids: number[]) {
  return db
    .select({ id: namespaces.id, name: namespaces.name })
    .from(projectGroupLinks)
    .innerJoin(namespaces, eq(namespaces.id, projectGroupLinks.groupId))
    .where(and(sql`${projectGroupLinks.projectId} = ${pid}`, inJson(projectGroupLinks.groupId, ids), sql`(${projectGroupLinks.expiresAt} IS NULL OR ${projectGroupLinks.expiresAt} > ${today()})`));
}

/**
 * SQL, on a `protected_environment_entries` row naming a group: 1 when user `uid` is in that group
 * as Authorizable#check_access counts it. `group_inheritance_type` ALL (1) asks `group.member?`: a
 * level of Guest or more in the group, from it, an ancestor, or a group it is shared with; DIRECT (0)
 * asks `group.users.exists?`: a direct membership of the group (minimal access is no membership).
 * Any level will do: unlike protected branches, the group's role is not looked at.
 */
export function inGroupSql(uid: number | null | undefined) {
  if (uid == null) return sql<number>`0`;
  const entry = sql.raw('"protected_environment_entries"');
  return sql<number>`CASE WHEN ${entry}."group_id" IS NULL THEN 0 WHEN ${entry}."group_inheritance_type" = 1
    THEN coalesce((SELECT ${groupLevelSql(uid)} FROM ${namespaces} WHERE ${namespaces.id} = ${entry}."group_id"), 0) >= ${ACCESS.GUEST}
    ELSE EXISTS (SELECT 1 FROM members m WHERE m.source_type = 'Namespace' AND m.source_id = ${entry}."group_id" AND m.user_id = ${uid} AND m.access_level >= ${ACCESS.GUEST} AND (m.expires_at IS NULL OR m.expires_at > ${today()})) END`;
}

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

/** What an entry is judged on: the named users' levels in the project, the named groups it is shared with. */
export interface Qualifiers {
  levels: Map<number, number>;
  shared: ReadonlySet<number>;
}

/** BaseService#valid_attribute?: a destroy always passes; a user needs developer access, a group must be shared with the project. */
function qualified(e: { user_id?: number; group_id?: number; _destroy?: boolean }, { levels, shared }: Qualifiers) {
  if (e._destroy) return true;
  if (e.group_id != null) return shared.has(e.group_id);
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
export function planEntries(existing: EntryRow[], deploy: DeployEntryParam[] | undefined, approval: ApprovalEntryParam[] | undefined, q: Qualifiers): EntryPlan {
  const plan: EntryPlan = { inserts: [], updates: [], deletes: [], result: existing.map((e) => ({ kind: e.kind as Kind })) };
  const removed = new Set<number>();
  for (const [kind, list] of [['deploy', deploy], ['approval', approval]] as const) {
    for (const e of (list ?? []).filter((x) => qualified(x, q))) {
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


/**
 * What guards the environment named `envName` in project `pid`: one row per deploy entry, each with
 * whether user `uid` is in the group it names, or a single row without `id` for a protected
 * environment left with no deploy entry (unsharing a group can do that); no row when it is not protected.
 */
export function deployEntriesRead(db: Db, pid: SQL, envName: SQL | string, uid: number | null | undefined) {
  return db
    .select({
      id: protectedEnvironmentEntries.id,
      accessLevel: protectedEnvironmentEntries.accessLevel,
      userId: protectedEnvironmentEntries.userId,
      groupId: protectedEnvironmentEntries.groupId,
      inGroup: inGroupSql(uid).as('in_group'),
    })
    .from(protectedEnvironments)
    .leftJoin(protectedEnvironmentEntries, and(eq(protectedEnvironmentEntries.protectedEnvironmentId, protectedEnvironments.id), eq(protectedEnvironmentEntries.kind, 'deploy')))
    .where(sql`${protectedEnvironments.projectId} = ${pid} AND ${protectedEnvironments.name} = ${envName}`);
}

/** `deployEntriesRead`'s rows as `protectedFrom` takes them. */
export function deployGuard(rows: (Omit<GuardEntry, 'accessLevel'> & { id: number | null; accessLevel: number | null })[]) {
  return { isProtected: rows.length > 0, entries: rows.filter((r) => r.id != null) };
}

/** An entry as access is checked on it; `inGroup` is `inGroupSql` for the caller, read with the entry. */
export interface GuardEntry {
  accessLevel: number | null;
  userId: number | null;
  groupId: number | null;
  inGroup: number | boolean | null;
}

/**
 * ProtectedEnvironments::Authorizable#check_access: administrators, the named user, a member of the
 * named group (as `inGroupSql` counts), or a role at or below the caller's level.
 */
export function entryAdmits(e: GuardEntry, caller: { isAdmin: boolean; user?: { id: number } | null }, level: number): boolean {
  if (!caller.user) return false;
  if (caller.isAdmin) return true;
  if (e.userId != null) return e.userId === caller.user.id;
  if (e.groupId != null) return !!Number(e.inGroup);
  return level >= (e.accessLevel ?? ACCESS.MAINTAINER);
}

/**
 * Environment#protected_from?(user) (Premium): the environment is protected and none of its deploy
 * entries lets the caller in (`entryAdmits`: with none left, nobody, administrators included, as
 * `accessible_to?` is an `any?`). EE's EnvironmentPolicy then prevents stop, update, destroy and deployments.
 */
export function protectedFrom(premium: boolean, caller: { isAdmin: boolean; user?: { id: number } | null }, level: number, guard: { isProtected: boolean; entries: GuardEntry[] }): boolean {
  if (!premium || !guard.isProtected) return false;
  return !guard.entries.some((e) => entryAdmits(e, caller, level));
}
