/**
 * Member reads sent in the same batch as their source's lookup (issue 13; ../shared/DESIGN.md "Data
 * access"): they name the project or group by SQL (its id, or a sub-select by path) and its
 * ancestors by a sub-select over its traversal path, so a members page, its count and its creators
 * cost the one round trip that finds the project or group.
 */
import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import { members, namespaces, users } from '../db/schema';
import { aliasedColumns } from '../db/aliased-columns';
import type { Caller, UserRow } from '../platform/context';
import { ACCESS, activeMember, groupVisibleSql } from './abilities';
import { today } from '../platform/time';
import { groupIdRef } from './group-queries';
import { projectIdRef } from './project-queries';
import type { SourceType } from './member-queries';

/** The project or group whose members are read, as SQL for statements batched with its lookup. */
export interface SourceRef {
  type: SourceType;
  /** Its id: the number, or a sub-select by path. */
  id: SQL;
  /**
   * The ids of the groups whose memberships it inherits (`traversal_ids`: a project's namespace and
   * its ancestors; a group's ancestors and itself, which is the same set of sources for a group).
   */
  groups: SQL;
}

/** The ids of a traversal path ('/1/5/') as a sub-select: a personal namespace's NULL path has none. */
const pathIds = (traversalPath: SQL) => sql`(SELECT value FROM json_each('[' || replace(trim(${traversalPath}, '/'), '/', ',') || ']'))`;

export function sourceRef(kind: 'projects' | 'groups', idOrPath: string): SourceRef {
  if (kind === 'projects') {
    const id = projectIdRef(idOrPath);
    return { type: 'Project', id, groups: pathIds(sql`(SELECT sn.traversal_path FROM projects sp JOIN namespaces sn ON sn.id = sp.namespace_id WHERE sp.id = ${id})`) };
  }
  const id = groupIdRef(idOrPath);
  return { type: 'Namespace', id, groups: pathIds(sql`(SELECT sg.traversal_path FROM namespaces sg WHERE sg.id = ${id})`) };
}

/** Memberships of the source itself. */
export const ownMemberships = (s: SourceRef) => and(eq(members.sourceType, s.type), sql`${members.sourceId} = ${s.id}`);

/** Memberships of the source and of the groups it inherits from (`members/all`). */
export const allMemberships = (s: SourceRef) => or(ownMemberships(s), and(eq(members.sourceType, 'Namespace'), sql`${members.sourceId} IN ${s.groups}`));

// Each table's columns named apart: a D1 batch keys rows by column name (aliased-columns.ts).
const creators = alias(users, 'creators');
const MEMBER = aliasedColumns(members, 'm_');
const USER = aliasedColumns(users, 'u_');
/** The creator's UserBasic columns only: D1 refuses a result of more than 100 columns, and two whole user rows pass it. */
const CREATOR = Object.fromEntries(
  (['id', 'username', 'name', 'state', 'avatarPath', 'email'] as const).map((k) => [k, sql`${creators[k]}`.mapWith(creators[k]).as(`c_${creators[k].name}`)]),
) as { [K in CreatorColumn]: SQL.Aliased<UserRow[K] | null> };
type CreatorColumn = 'id' | 'username' | 'name' | 'state' | 'avatarPath' | 'email';

export interface MemberWithCreator {
  member: typeof members.$inferSelect;
  user: UserRow;
  /** The user who added the membership, its UserBasic columns (a left join: all null when there is none). */
  creator: { [K in CreatorColumn]: UserRow[K] | null };
}

/** Memberships with their users and creators (`created_by`), one statement; add `.where(...)`. */
export const memberSelect = (db: Db) =>
  db
    .select({ member: MEMBER, user: USER, creator: CREATOR })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .leftJoin(creators, eq(creators.id, members.createdById))
    .$dynamic();

/** At most `limit` memberships matching `where` (with their users), counted: the `X-Total` of a members page. */
export const memberCount = (db: Db, where: SQL | undefined, limit: number) =>
  db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(members).innerJoin(users, eq(users.id, members.userId)).where(where).limit(limit).as('t'));

/** Active owners of the group or of a group above it, at most two (`Group#last_owner?`). */
export const groupOwnersRead = (db: Db, s: SourceRef) =>
  db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.sourceType, 'Namespace'), sql`${members.sourceId} IN ${s.groups}`, eq(members.accessLevel, ACCESS.OWNER), activeMember()))
    .limit(2);

/** The user's highest inherited membership of a project (ProjectMember's validation against its groups), with the group's name. */
export const inheritedMembershipRead = (db: Db, s: SourceRef, userId: SQL) =>
  db
    .select({ level: members.accessLevel, groupName: namespaces.name })
    .from(members)
    .innerJoin(namespaces, eq(namespaces.id, members.sourceId))
    .where(and(sql`${members.userId} = ${userId}`, eq(members.sourceType, 'Namespace'), sql`${members.sourceId} IN ${s.groups}`, activeMember()))
    .orderBy(sql`${members.accessLevel} desc`)
    .limit(1);

/**
 * The groups whose members are members of the source through a share, with the level the link caps
 * them at (`gid`, `cap`): members_helpers.rb `find_all_members` asks MembersFinder for a project's
 * `:invited_groups` (groups it is shared with and their ancestors) and `:shared_into_ancestors`, and
 * GroupMembersFinder for a group's `:shared_from_groups` (groups shared into it or an ancestor; those
 * groups only). Groups the caller may not read count only when the caller is a member of the source.
 */
function sharedSources(s: SourceRef, caller: Caller): SQL {
  const day = today();
  const link = sql`(l.expires_at IS NULL OR l.expires_at > ${day})`;
  // `namespaces` unaliased is the group whose members count: groupVisibleSql names it so.
  const visible = groupVisibleSql(caller);
  const shown = visible && caller.user ? sql`(${visible} OR ${memberOfSource(s, caller.user.id, day)})` : (visible ?? sql`1`);
  const intoAncestors = sql`SELECT namespaces.id AS gid, l.group_access AS cap FROM group_group_links l JOIN namespaces ON namespaces.id = l.shared_with_group_id
    WHERE l.shared_group_id IN ${s.groups} AND ${link} AND ${shown}`;
  if (s.type === 'Namespace') return intoAncestors;
  return sql`SELECT namespaces.id AS gid, l.group_access AS cap FROM project_group_links l JOIN namespaces g ON g.id = l.group_id
      JOIN namespaces ON namespaces.id IN ${pathIds(sql`g.traversal_path`)}
    WHERE l.project_id = ${s.id} AND ${link} AND ${shown}
    UNION ALL ${intoAncestors}`;
}

/** `member?(current_user)` of the source: a membership or share of it or of a group above it. */
const memberOfSource = (s: SourceRef, userId: number, day: string) =>
  sql`EXISTS (SELECT 1 FROM access_grants x WHERE x.user_id = ${userId} AND ((x.source_type = ${s.type} AND x.source_id = ${s.id})
    OR (x.source_type = 'Namespace' AND x.source_id IN ${s.groups})) AND (x.expires_at IS NULL OR x.expires_at > ${day}))`;

/**
 * One membership row per user of `members/all` (`id`) and the level shown (`lvl`): the user's own and
 * inherited memberships, and their memberships of shared groups at min(level, the link's level).
 * The level is the highest of them (a project's project_authorizations level, GroupMembersFinder's
 * distinct_on_user_with_max_access_level); the row is the project membership when there is one
 * (MembersFinder#distinct_on prefers ProjectMember), else the one with that level, oldest first.
 */
function bestMemberships(s: SourceRef, caller: Caller): SQL {
  const active = sql`(m.expires_at IS NULL OR m.expires_at > ${today()})`;
  const candidates = sql`SELECT m.id, m.user_id, m.access_level AS lvl, (m.source_type = 'Project') AS own FROM members m
      WHERE ((m.source_type = ${s.type} AND m.source_id = ${s.id}) OR (m.source_type = 'Namespace' AND m.source_id IN ${s.groups})) AND ${active}
    UNION ALL
    SELECT m.id, m.user_id, min(m.access_level, sh.cap), 0 FROM (${sharedSources(s, caller)}) sh
      JOIN members m ON m.source_type = 'Namespace' AND m.source_id = sh.gid WHERE m.access_level >= ${ACCESS.GUEST} AND ${active}`;
  return sql`SELECT id, lvl FROM (SELECT c.id, max(c.lvl) OVER (PARTITION BY c.user_id) AS lvl,
      row_number() OVER (PARTITION BY c.user_id ORDER BY c.own DESC, c.lvl DESC, c.id) AS rn FROM (${candidates}) c) WHERE rn = 1`;
}

/**
 * `bestMemberships` as CTEs at the head of the statement: the source's id and groups are sub-selects
 * (by path, over traversal paths) that, nested inside the shares and the window, would overflow
 * SQLite's parser stack; named once at the top, every use is a shallow `SELECT id FROM ...`.
 */
function bestMembershipsCtes(db: Db, s: SourceRef, caller: Caller) {
  const src = db.$with('share_src', { id: sql<number>`id` }).as(sql`SELECT ${s.id} AS id`);
  const groups = db.$with('share_groups', { id: sql<number>`id` }).as(sql`SELECT value AS id FROM ${s.groups}`);
  const flat: SourceRef = { type: s.type, id: sql`(SELECT id FROM share_src)`, groups: sql`(SELECT id FROM share_groups)` };
  const best = db.$with('share_best', { id: sql<number>`id`, lvl: sql<number>`lvl` }).as(bestMemberships(flat, caller));
  return [src, groups, best] as const;
}

/** `members/all`: the memberships `bestMemberships` picks, with their users, creators and the level shown (`level`); add `.where(...)`. */
export const allMemberSelect = (db: Db, s: SourceRef, caller: Caller) =>
  db
    .with(...bestMembershipsCtes(db, s, caller))
    .select({ member: MEMBER, user: USER, creator: CREATOR, level: sql<number>`best.lvl`.as('best_lvl') })
    .from(members)
    .innerJoin(sql`share_best best`, sql`best.id = ${members.id}`)
    .innerJoin(users, eq(users.id, members.userId))
    .leftJoin(creators, eq(creators.id, members.createdById))
    .$dynamic();

/** At most `limit` rows of `allMemberSelect` matching `where`, counted. */
export const allMemberCount = (db: Db, s: SourceRef, caller: Caller, where: SQL | undefined, limit: number) =>
  db
    .with(...bestMembershipsCtes(db, s, caller))
    .select({ n: sql<number>`count(*)` })
    .from(
      db
        .select({ one: sql`1` })
        .from(members)
        .innerJoin(sql`share_best best`, sql`best.id = ${members.id}`)
        .innerJoin(users, eq(users.id, members.userId))
        .where(where)
        .limit(limit)
        .as('t'),
    );
