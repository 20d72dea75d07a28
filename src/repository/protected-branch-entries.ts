/**
 * The access-level entries of a protected branch as nested attributes (ProtectedRefs::AccessLevelParams,
 * accepts_nested_attributes_for): entries planned from the request, the users and groups they name,
 * the validations of ProtectedRefAccess and its EE additions, and the rows they become.
 */
import { today } from '../platform/time';
import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { accessGrants, namespaces, protectedBranchAccessLevels, users } from '../db/schema';
import { batchReads, inJson } from '../db/batch-reads';
import { ACCESS, activeGrant, type NamespaceRow, type ProjectRow, traversalIds } from '../projects/abilities';
import { ApiError, conflict } from '../platform/errors';
import { isUniqueViolation } from '../platform/unique';
import type { AccessEntry } from './protected-branches-params';
import type { AccessKind, AccessLevelRow } from './protected-branches';

/** ActiveModel's humanized association names, the prefix of nested records' full messages. */
const HUMAN_KIND: Record<AccessKind, string> = { push: 'Push access levels', merge: 'Merge access levels', unprotect: 'Unprotect access levels' };

/** Validation errors: GitLab's 422 with the full messages as a list. */
export const unprocessable = (messages: string[]) => new ApiError(422, { message: messages });

/** An entry as it will be stored: `id` for an existing row, `destroy` to remove it. */
export interface Planned {
  id?: number;
  destroy?: boolean;
  changed: boolean;
  accessLevel: number | null;
  userId: number | null;
  groupId: number | null;
  deployKeyId: number | null;
}

export const isRole = (e: Pick<Planned, 'userId' | 'groupId' | 'deployKeyId'>) => e.userId == null && e.groupId == null && e.deployKeyId == null;

/**
 * ProtectedRefs::AccessLevelParams (CE + EE) for one kind on create: the role level (given, or
 * Maintainer when `allowed_to_<kind>` has no entries), then deploy-key entries, then (Premium) the
 * user/group/role entries. Free instances take only deploy-key entries from `allowed_to_push`.
 */
export function createEntries(kind: AccessKind, roleLevel: number | undefined, allowed: AccessEntry[] | undefined, isPremium: boolean): AccessEntry[] {
  const list = allowed ?? [];
  const deployKeys = kind === 'push' ? list.filter((e) => e.deploy_key_id != null) : [];
  const granular = isPremium ? list.filter((e) => e.deploy_key_id == null) : [];
  const useDefault = deployKeys.length === 0 && granular.length === 0;
  const level = roleLevel ?? (useDefault ? ACCESS.MAINTAINER : undefined);
  return [...(level !== undefined ? [{ access_level: level }] : []), ...deployKeys, ...granular];
}

/** The nested-attributes hash of one entry applied to a new or existing row (`access_level` defaults to 40, the column default). */
export function applyEntry(base: AccessLevelRow | null, e: AccessEntry): Planned {
  const pick = <K extends keyof AccessEntry>(k: K, cur: number | null) => (e[k] !== undefined ? (e[k] as number) : cur);
  return {
    id: base?.id,
    destroy: Boolean(base && e._destroy),
    changed: !base || ['access_level', 'user_id', 'group_id', 'deploy_key_id'].some((k) => e[k as keyof AccessEntry] !== undefined),
    accessLevel: pick('access_level', base ? base.accessLevel : ACCESS.MAINTAINER),
    userId: pick('user_id', base?.userId ?? null),
    groupId: pick('group_id', base?.groupId ?? null),
    deployKeyId: pick('deploy_key_id', base?.deployKeyId ?? null),
  };
}

export interface KnownIds {
  /** Users named by entries that exist, with their level in the project (0 for non-members). */
  userLevels: Map<number, number>;
  /** Groups named by entries that exist. */
  groups: Set<number>;
  /** Of those, the groups the project is shared with at Developer or more. */
  invitedGroups: Set<number>;
}

/**
 * Looks up every user and group the entries name in a fixed number of queries, however long the
 * arrays (a request naming a thousand users must not make a thousand queries).
 */
export async function lookupIds(c: Context<AppEnv>, project: ProjectRow, ns: NamespaceRow, planned: Planned[]): Promise<KnownIds> {
  const db = c.var.db;
  const touched = planned.filter((p) => p.changed && !p.destroy);
  const userIds = [...new Set(touched.map((p) => p.userId).filter((x): x is number => x != null))];
  const groupIds = [...new Set(touched.map((p) => p.groupId).filter((x): x is number => x != null))];
  const userLevels = new Map<number, number>();
  if (!userIds.length && !groupIds.length) return { userLevels, groups: new Set(), invitedGroups: new Set() };
  const ancestors = traversalIds(ns);
  // lib/abilities.ts projectAccess for many users: project membership, inherited group membership,
  // personal owner. The ids go as one JSON parameter each (inJson), so the three reads are one batch.
  const sources = [and(eq(accessGrants.sourceType, 'Project'), eq(accessGrants.sourceId, project.id))];
  if (ancestors.length) sources.push(and(eq(accessGrants.sourceType, 'Namespace'), inJson(accessGrants.sourceId, ancestors)));
  const [found, levels, groupRows] = await batchReads(db, [
    userIds.length ? db.select({ id: users.id }).from(users).where(inJson(users.id, userIds)) : undefined,
    userIds.length
      ? db
          .select({ userId: accessGrants.userId, level: sql<number>`max(${accessGrants.accessLevel})`.as('level') })
          .from(accessGrants)
          .where(and(inJson(accessGrants.userId, userIds), or(...sources), activeGrant()))
          .groupBy(accessGrants.userId)
      : undefined,
    groupIds.length
      ? db
          .select({
            id: namespaces.id,
            // EE ProtectedRefAccess#group_has_developer_access_to_project?: shared with the project at Developer or more.
            invited: sql<number>`EXISTS (SELECT 1 FROM project_group_links l WHERE l.project_id = ${project.id} AND l.group_id = ${sql.raw('"namespaces"."id"')} AND l.group_access >= ${ACCESS.DEVELOPER} AND (l.expires_at IS NULL OR l.expires_at > ${today()}))`.as('invited'),
          })
          .from(namespaces)
          .where(and(inJson(namespaces.id, groupIds), eq(namespaces.kind, 'Group')))
      : undefined,
  ]);
  for (const u of found ?? []) userLevels.set(u.id, 0);
  for (const r of levels ?? []) if (userLevels.has(r.userId)) userLevels.set(r.userId, Number(r.level));
  if (ns.kind === 'User' && ns.ownerId != null && userLevels.has(ns.ownerId)) userLevels.set(ns.ownerId, ACCESS.OWNER);
  const groups = new Set((groupRows ?? []).map((g) => g.id));
  const invitedGroups = new Set((groupRows ?? []).filter((g) => Number(g.invited)).map((g) => g.id));
  return { userLevels, groups, invitedGroups };
}

/**
 * Validations of ProtectedRefAccess / EE::ProtectedRefAccess / PushAccessLevel for the new or
 * changed entries of one kind: role level unique per branch, user and group unique, the user a
 * project member, the group one the project is shared with at Developer or more, deploy keys
 * enabled for the project (none are).
 */
export function entryErrors(kind: AccessKind, planned: Planned[], existing: AccessLevelRow[], known: KnownIds): string[] {
  const errors: string[] = [];
  const add = (attr: string, msg: string) => {
    const line = `${HUMAN_KIND[kind]} ${attr} ${msg}`;
    if (!errors.includes(line)) errors.push(line);
  };
  const touched = planned.filter((p) => p.changed && !p.destroy);
  for (const p of touched) {
    // Uniqueness is checked against every other entry (stored or new), like the unique indexes.
    const others = [...existing.filter((r) => r.id !== p.id), ...touched.filter((q) => q !== p && q.id === undefined)];
    if (isRole(p)) {
      if (others.some((o) => isRole(o) && o.accessLevel === p.accessLevel)) add('access level', 'has already been taken');
    }
    if (p.userId != null) {
      if (others.some((o) => o.userId === p.userId)) add('user', 'has already been taken');
      const lv = known.userLevels.get(p.userId);
      if (lv == null) add('user', "can't be blank");
      else if (lv < ACCESS.GUEST) add('user', 'is not a member of the project');
    }
    if (p.groupId != null) {
      if (others.some((o) => o.groupId === p.groupId)) add('group', 'has already been taken');
      if (!known.groups.has(p.groupId)) add('group', "can't be blank");
      else if (!known.invitedGroups.has(p.groupId)) add('group', 'does not have access to the project');
    }
    if (p.deployKeyId != null) add('deploy key', 'is not enabled for this project');
  }
  return errors;
}

export const levelRow = (p: Planned) => ({ accessLevel: p.accessLevel, userId: p.userId, groupId: p.groupId, deployKeyId: p.deployKeyId });

/**
 * New access-level rows as multi-row inserts of at most 9 rows (9 x 10 bound values stays under D1's
 * 100), so a long entry list is a few statements of the batch, not one per entry.
 */
export function insertLevels(c: Context<AppEnv>, pbId: number | SQL, rows: { kind: AccessKind; p: Planned }[], now: number): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  for (let i = 0; i < rows.length; i += 9)
    out.push(
      c.var.db
        .insert(protectedBranchAccessLevels)
        .values(rows.slice(i, i + 9).map(({ kind, p }) => ({ protectedBranchId: pbId as number, kind, ...levelRow(p), createdAt: now, updatedAt: now }))),
    );
  return out;
}

/** A lost race on a unique index: the branch name (409) or an entry (422, as the validation would have said). */
export function raceError(err: unknown, name: string): ApiError | null {
  if (!isUniqueViolation(err)) return null;
  if (isUniqueViolation(err, 'protected_branches')) return conflict(`Protected branch '${name}' already exists`);
  return unprocessable(['Access levels access level has already been taken']);
}

