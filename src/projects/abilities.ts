/**
 * Who may see and do what in projects and groups: the one place that decides (GitLab
 * app/policies/{project,group}_policy.rb, app/models/project_team.rb, lib/gitlab/access.rb).
 *
 * Access levels are GitLab's. A member of a group is a member of every descendant group and of
 * their projects, at the highest of their levels; the owner of a personal namespace owns its
 * projects. Administrators (effective admin mode) may read and administer everything.
 *
 * Shares count as memberships: a project or group shared with a group gives that group's members
 * access (share-grants.ts keeps their rows in `share_grants`), and every check here reads the view
 * `access_grants` (members UNION ALL share_grants), so shares cost no extra statement or parameter.
 *
 * Hot path: `projectAccess` is ONE indexed SELECT on `access_grants` (indexes `members_user_source`
 * and `share_grants_user_source`): the project's own rows plus the rows of its namespace and every
 * ancestor, whose ids come from the namespace's `traversal_path` already loaded with the project.
 * Level sub-selects (`bestLevel`) read the two tables separately: a `max()` over the view would
 * materialize it per row instead of searching both tables' indexes.
 */
import { and, eq, inArray, isNull, or, type Placeholder, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { accessGrants, members, namespaces, projects } from '../db/schema';
import { today } from '../platform/time';
import type { Caller, UserRow } from '../platform/context';
import { ApiError } from '../platform/errors';

export const ACCESS = { NONE: 0, MINIMAL: 5, GUEST: 10, PLANNER: 15, REPORTER: 20, DEVELOPER: 30, MAINTAINER: 40, OWNER: 50 } as const;
/** Levels a membership may be given through the API (members_helpers.rb `Gitlab::Access.all_values`). */
export const MEMBER_LEVELS = [10, 15, 20, 30, 40, 50] as const;

export type NamespaceRow = typeof namespaces.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type Visibility = 'private' | 'internal' | 'public';
export const VISIBILITY_LEVEL: Record<string, number> = { private: 0, internal: 10, public: 20 };

/** Ids of a group and its ancestors, root first (`traversal_ids`). Empty for personal namespaces. */
export function traversalIds(ns: Pick<NamespaceRow, 'traversalPath'>): number[] {
  return ns.traversalPath ? ns.traversalPath.split('/').filter(Boolean).map(Number) : [];
}

/** `members` rows still in force (Member.active: not expired). */
export const activeMember = () => or(isNull(members.expiresAt), sql`${members.expiresAt} > ${today()}`);

/** `access_grants` rows still in force (not expired): memberships and shares, for access checks over many users. */
export const activeGrant = () => or(isNull(accessGrants.expiresAt), sql`${accessGrants.expiresAt} > ${today()}`);

/** Highest level over the given sources (memberships and shares), one query. */
async function maxLevel(db: Db, userId: number, projectId: number | null, groupIds: number[]): Promise<number> {
  const sources = [];
  if (projectId != null) sources.push(and(eq(accessGrants.sourceType, 'Project'), eq(accessGrants.sourceId, projectId)));
  if (groupIds.length) sources.push(and(eq(accessGrants.sourceType, 'Namespace'), inArray(accessGrants.sourceId, groupIds)));
  if (!sources.length) return 0;
  const row = await db
    .select({ level: sql<number | null>`max(${accessGrants.accessLevel})` })
    .from(accessGrants)
    .where(and(eq(accessGrants.userId, userId), or(...sources), activeGrant()))
    .get();
  return Number(row?.level ?? 0);
}

/** The caller's access level in a project (0 none): project membership, inherited group membership, personal owner. */
export async function projectAccess(db: Db, user: UserRow | null, project: ProjectRow, ns: NamespaceRow): Promise<number> {
  if (!user) return 0;
  if (ns.kind === 'User' && ns.ownerId === user.id) return ACCESS.OWNER;
  return maxLevel(db, user.id, project.id, traversalIds(ns));
}

/** The caller's access level in a group (0 none), inherited from ancestors. */
export async function groupAccess(db: Db, user: UserRow | null, group: NamespaceRow): Promise<number> {
  if (!user) return 0;
  return maxLevel(db, user.id, null, traversalIds(group));
}

/** `groupAccess` as an unexecuted read for a batch (`[{ level }]`; no row for a missing group). */
export const groupAccessRead = (db: Db, user: UserRow | null, groupId: number) =>
  db
    .select({ level: (user ? groupLevelSql(user.id) : sql<number>`0`).as('level') })
    .from(namespaces)
    .where(eq(namespaces.id, groupId))
    .limit(1);

/** Visibility alone: public to all, internal to signed-in users who are not external. */
export function visibilityAllows(caller: Caller, visibility: string): boolean {
  if (visibility === 'public') return true;
  if (visibility === 'internal') return Boolean(caller.user && !caller.user.external);
  return false;
}

/** ProjectPolicy `read_project`: admin, any membership (guest+), or visibility. */
export const canReadProject = (caller: Caller, project: ProjectRow, level: number) =>
  caller.isAdmin || level >= ACCESS.GUEST || visibilityAllows(caller, project.visibility);

/** At least `min` in the project, or an administrator. */
export const hasProjectLevel = (caller: Caller, level: number, min: number) => caller.isAdmin || level >= min;

/**
 * GroupPolicy `read_group`: admin, visibility, membership of the group or an ancestor, and also
 * membership somewhere below it (a member of a subgroup or project sees the groups above it).
 */
export async function canReadGroup(db: Db, caller: Caller, group: NamespaceRow, level: number): Promise<boolean> {
  if (canReadGroupVisibly(caller, group, level)) return true;
  if (!caller.user) return false;
  return memberBelow(db, caller.user.id, group);
}

/** `read_group` without looking below the group: admin, membership of it or an ancestor, visibility. */
export const canReadGroupVisibly = (caller: Caller, group: NamespaceRow, level: number) =>
  caller.isAdmin || level >= ACCESS.GUEST || visibilityAllows(caller, group.visibility);

/** SQL over a `namespaces` row: 1 when the user is an active member of a descendant group or of a project in its hierarchy (`memberBelow`). */
export function memberBelowSql(userId: number) {
  const active = sql`(m.expires_at IS NULL OR m.expires_at > ${today()})`;
  const inTree = (col: SQL) => sql`${col} >= ${NS_PATH} AND ${col} < ${NS_PATH} || ':'`;
  return sql<number>`(EXISTS (SELECT 1 FROM access_grants m JOIN namespaces d ON d.id = m.source_id WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND ${active} AND ${inTree(sql`d.traversal_path`)})
    OR EXISTS (SELECT 1 FROM access_grants m JOIN projects p ON p.id = m.source_id JOIN namespaces d ON d.id = p.namespace_id WHERE m.user_id = ${userId} AND m.source_type = 'Project' AND ${active} AND ${inTree(sql`d.traversal_path`)}))`;
}

/** A membership or share in a descendant group or in a project of the group's hierarchy. */
async function memberBelow(db: Db, userId: number, group: NamespaceRow): Promise<boolean> {
  const prefix = group.traversalPath!;
  const inTree = sql`${namespaces.traversalPath} >= ${prefix} AND ${namespaces.traversalPath} < ${prefix + ':'}`;
  const viaGroup = await db
    .select({ one: sql`1` })
    .from(accessGrants)
    .innerJoin(namespaces, eq(namespaces.id, accessGrants.sourceId))
    .where(and(eq(accessGrants.userId, userId), eq(accessGrants.sourceType, 'Namespace'), activeGrant(), inTree))
    .limit(1)
    .get();
  if (viaGroup) return true;
  const viaProject = await db
    .select({ one: sql`1` })
    .from(accessGrants)
    .innerJoin(projects, eq(projects.id, accessGrants.sourceId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(eq(accessGrants.userId, userId), eq(accessGrants.sourceType, 'Project'), activeGrant(), inTree))
    .limit(1)
    .get();
  return Boolean(viaProject);
}

/** SQL range over `traversal_path` selecting a group and all its descendants ('/' and digits sort below ':'). */
export const subtreeOf = (traversalPath: string) =>
  sql`${namespaces.traversalPath} >= ${traversalPath} AND ${namespaces.traversalPath} < ${traversalPath + ':'}`;

/**
 * SQL condition: the project row (joined with its namespace `namespaces`) is visible to the caller.
 * Used by every project list so counts and pages cover only what the caller may read.
 */
export function projectVisibleSql(caller: Caller): ReturnType<typeof sql> | undefined {
  if (caller.isAdmin) return undefined;
  if (!caller.user) return sql`${projects.visibility} = 'public'`;
  const uid = caller.user.id;
  const levels = caller.user.external ? sql`('public')` : sql`('public','internal')`;
  return sql`(${projects.visibility} IN ${levels}
    OR (${namespaces.kind} = 'User' AND ${namespaces.ownerId} = ${uid})
    OR EXISTS (SELECT 1 FROM access_grants m WHERE m.user_id = ${uid} AND m.source_type = 'Project' AND m.source_id = ${PROJECT_ID} AND (m.expires_at IS NULL OR m.expires_at > ${today()}))
    OR EXISTS (SELECT 1 FROM access_grants m JOIN namespaces a ON a.id = m.source_id WHERE m.user_id = ${uid} AND m.source_type = 'Namespace' AND (m.expires_at IS NULL OR m.expires_at > ${today()}) AND ${NS_PATH} >= a.traversal_path AND ${NS_PATH} < a.traversal_path || ':'))`;
}

/** SQL condition: the group row (`namespaces`) is visible to the caller (membership of it or an ancestor, or visibility). */
export function groupVisibleSql(caller: Caller): ReturnType<typeof sql> | undefined {
  if (caller.isAdmin) return undefined;
  if (!caller.user) return sql`${namespaces.visibility} = 'public'`;
  const uid = caller.user.id;
  const levels = caller.user.external ? sql`('public')` : sql`('public','internal')`;
  return sql`(${namespaces.visibility} IN ${levels}
    OR EXISTS (SELECT 1 FROM access_grants m JOIN namespaces a ON a.id = m.source_id WHERE m.user_id = ${uid} AND m.source_type = 'Namespace' AND (m.expires_at IS NULL OR m.expires_at > ${today()}) AND ${NS_PATH} >= a.traversal_path AND ${NS_PATH} < a.traversal_path || ':'))`;
}

// Outer columns named in correlated sub-selects are written out qualified: Drizzle leaves a column
// unqualified in a one-table select, where it would bind to the sub-select's own table instead.
const NS_KIND = sql.raw('"namespaces"."kind"');
const NS_OWNER = sql.raw('"namespaces"."owner_id"');
const NS_PATH = sql.raw('"namespaces"."traversal_path"');
const PROJECT_ID = sql.raw('"projects"."id"');

/**
 * SQL: the caller's highest level in a project row (joined with `namespaces`), for `min_access_level`
 * and `membership` filters. `userId` may be a column (each user's level in one project), or with
 * `day` a placeholder in statements built once (src/db/prepared.ts).
 */
export function projectLevelSql(userId: number | SQL | Placeholder, day: string | Placeholder = today()) {
  const active = sql`m.user_id = ${userId} AND (m.expires_at IS NULL OR m.expires_at > ${day})`;
  return sql<number>`max(
    CASE WHEN ${NS_KIND} = 'User' AND ${NS_OWNER} = ${userId} THEN 50 ELSE 0 END,
    ${bestLevel(sql``, sql`${active} AND m.source_type = 'Project' AND m.source_id = ${PROJECT_ID}`)},
    ${bestLevel(ANCESTOR_JOIN, sql`${active} AND m.source_type = 'Namespace' AND ${NS_IN_ANCESTOR}`)})`;
}

/** SQL: the caller's highest level in a group row (`namespaces`), shares included. */
export function groupLevelSql(userId: number) {
  return bestLevel(ANCESTOR_JOIN, sql`m.user_id = ${userId} AND m.source_type = 'Namespace' AND (m.expires_at IS NULL OR m.expires_at > ${today()}) AND ${NS_IN_ANCESTOR}`);
}

const ANCESTOR_JOIN = sql`JOIN namespaces a ON a.id = m.source_id`;
/** The outer namespace row is the grant's group `a` or below it. */
const NS_IN_ANCESTOR = sql`${NS_PATH} >= a.traversal_path AND ${NS_PATH} < a.traversal_path || ':'`;

/**
 * SQL: the highest `access_level` of the rows `m` of `members` and of `share_grants` that `where`
 * selects (0 none). Two `max()` sub-selects, each searching its table's user index; over the
 * `access_grants` view an aggregate would materialize the view for every outer row.
 */
const bestLevel = (join: SQL, where: SQL) =>
  sql<number>`max(coalesce((SELECT max(m.access_level) FROM members m ${join} WHERE ${where}), 0), coalesce((SELECT max(m.access_level) FROM share_grants m ${join} WHERE ${where}), 0))`;

/** SQL: the caller's level from memberships of a group row or its ancestors alone, shares left out (Group#highest_group_member). */
export function groupMembershipLevelSql(userId: number) {
  return sql<number>`coalesce((SELECT max(m.access_level) FROM members m JOIN namespaces a ON a.id = m.source_id WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND (m.expires_at IS NULL OR m.expires_at > ${today()}) AND ${NS_PATH} >= a.traversal_path AND ${NS_PATH} < a.traversal_path || ':'), 0)`;
}

/**
 * Guard for project-scoped writes after `findReadableProject`: administrators pass, otherwise the
 * caller needs `min` (e.g. ACCESS.REPORTER to manage labels, ACCESS.MAINTAINER for admin_project);
 * a readable project below the level answers 403 `{"message":"403 Forbidden"}`.
 */
export function requireProjectLevel(caller: Caller, level: number, min: number): void {
  if (!hasProjectLevel(caller, level, min)) throw new ApiError(403, { message: '403 Forbidden' });
}

/** VisibilityLevelChecker: a level in `restricted_visibility_levels` is for administrators only. */
export function restrictedVisibilityError(caller: Caller, visibility: string, restricted: unknown): string | null {
  if (caller.isAdmin) return null;
  const list = Array.isArray(restricted) ? restricted.map(String) : [];
  return list.includes(visibility) ? `${visibility} has been restricted by your GitLab administrator` : null;
}

/** Project features (ProjectFeature) and their levels, stored as JSON on the project (default enabled). */
export const FEATURES = ['issues', 'repository', 'merge_requests', 'forking', 'wiki', 'builds', 'snippets', 'pages', 'operations', 'analytics', 'container_registry'] as const;
export type Feature = (typeof FEATURES)[number];

export function featureLevel(p: ProjectRow, f: Feature): string {
  const all = JSON.parse(p.features || '{}') as Record<string, string>;
  return all[f] ?? 'enabled';
}

/**
 * ProjectFeature#feature_available?: `enabled` for anyone who can read the project, `private` for
 * members (guest+) and administrators, `disabled` for nobody. Issue endpoints check `issues` with it.
 */
export function featureAvailable(p: ProjectRow, f: Feature, x: { level: number; isAdmin: boolean }): boolean {
  const lv = featureLevel(p, f);
  if (lv === 'disabled') return false;
  if (lv === 'private') return x.isAdmin || x.level >= 10;
  return true;
}

/**
 * read_merge_request: the merge requests and repository features available to the caller; a
 * private project, or a feature restricted to members, needs Reporter (ProjectFeature
 * PRIVATE_FEATURES_MIN_ACCESS_LEVEL: merge_requests and repository are Reporter features).
 */
export function canReadMergeRequests(caller: Caller, project: ProjectRow, level: number): boolean {
  const mr = featureLevel(project, 'merge_requests');
  const code = featureLevel(project, 'repository');
  if (mr === 'disabled' || code === 'disabled') return false;
  if (caller.isAdmin) return true;
  if (!canReadProject(caller, project, level)) return false;
  if (project.visibility === 'private' || mr === 'private' || code === 'private') return level >= ACCESS.REPORTER;
  // Internal projects: any signed-in non-external user (canReadProject), as for issues.
  return true;
}

/**
 * SQL over `projects` joined with `namespaces` as in lists: the caller may read merge requests of
 * the project (the list form of canReadMergeRequests; the project visibility test is separate).
 */
export function mergeRequestFeatureSql(caller: Caller): SQL {
  const mr = sql`coalesce(json_extract(${projects.features}, '$.merge_requests'), 'enabled')`;
  const code = sql`coalesce(json_extract(${projects.features}, '$.repository'), 'enabled')`;
  const enabled = sql`${mr} <> 'disabled' AND ${code} <> 'disabled'`;
  if (caller.isAdmin) return enabled;
  const restricted = sql`(${projects.visibility} = 'private' OR ${mr} = 'private' OR ${code} = 'private')`;
  if (!caller.user) return sql`(${enabled} AND NOT ${restricted})`;
  const uid = Math.trunc(caller.user.id);
  const t = today();
  const reporter = sql`(
    (${namespaces.kind} = 'User' AND ${namespaces.ownerId} = ${sql.raw(String(uid))})
    OR EXISTS (SELECT 1 FROM access_grants m WHERE m.user_id = ${sql.raw(String(uid))} AND m.source_type = 'Project' AND m.source_id = ${projects.id} AND m.access_level >= 20 AND (m.expires_at IS NULL OR m.expires_at > ${t}))
    OR EXISTS (SELECT 1 FROM access_grants m JOIN namespaces a ON a.id = m.source_id WHERE m.user_id = ${sql.raw(String(uid))} AND m.source_type = 'Namespace' AND m.access_level >= 20 AND (m.expires_at IS NULL OR m.expires_at > ${t}) AND ${namespaces.traversalPath} >= a.traversal_path AND ${namespaces.traversalPath} < a.traversal_path || ':'))`;
  return sql`(${enabled} AND (NOT ${restricted} OR ${reporter}))`;
}

/** SQL over merge_requests joined with projects and namespaces: the caller may read the merge request. */
export function mergeRequestVisibleSql(caller: Caller): SQL {
  const parts: SQL[] = [mergeRequestFeatureSql(caller)];
  if (!caller.isAdmin) {
    if (!caller.user) parts.push(sql`${projects.visibility} = 'public'`);
    else {
      const uid = Math.trunc(caller.user.id);
      const levels = caller.user.external ? sql`('public')` : sql`('public','internal')`;
      const t = today();
      parts.push(sql`(${projects.visibility} IN ${levels}
        OR (${namespaces.kind} = 'User' AND ${namespaces.ownerId} = ${sql.raw(String(uid))})
        OR EXISTS (SELECT 1 FROM access_grants m WHERE m.user_id = ${sql.raw(String(uid))} AND m.source_type = 'Project' AND m.source_id = ${projects.id} AND (m.expires_at IS NULL OR m.expires_at > ${t}))
        OR EXISTS (SELECT 1 FROM access_grants m JOIN namespaces a ON a.id = m.source_id WHERE m.user_id = ${sql.raw(String(uid))} AND m.source_type = 'Namespace' AND (m.expires_at IS NULL OR m.expires_at > ${t}) AND ${namespaces.traversalPath} >= a.traversal_path AND ${namespaces.traversalPath} < a.traversal_path || ':'))`);
    }
  }
  return and(...parts)!;
}
