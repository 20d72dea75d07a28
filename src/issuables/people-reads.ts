/**
 * The users an issue or merge request write names as assignees or reviewers, with their level in
 * the project, as ONE read for the batch that finds the project (or the issuable): no per-user
 * level look-up, so naming 1 or 200 users costs the same round trips. The same rows give the
 * usernames the update's system notes name (pass the people it had before as `also`).
 */
import { eq, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { inJson } from '../db/batch-reads';
import { namespaces, projects, users } from '../db/schema';
import type { Caller, UserRow } from '../platform/context';
import { projectLevelSql } from '../projects/abilities';
import { MAX_ASSIGNEES_OR_REVIEWERS } from './issuable-fields';

/** The outer user's id, qualified: inside the level's sub-selects an unqualified "id" is theirs. */
const USER_ID = sql.raw('"users"."id"');

/**
 * The users `ids` (and those of the sub-select `also`, e.g. an issuable's current assignees) with
 * their level in the project `projectId` (SQL). Only the columns the checks ask (a batch serializes
 * every column).
 */
export const peopleNamedRead = (db: Db, projectId: SQL, ids: readonly number[], also?: SQL) =>
  db
    .select({ id: users.id, username: users.username, state: users.state, isAdmin: users.isAdmin, external: users.external, level: projectLevelSql(USER_ID).as('level') })
    .from(users)
    .innerJoin(projects, sql`${projects.id} = ${projectId}`)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(or(inJson(users.id, ids), also ? sql`${users.id} IN (${also})` : undefined));

export type PersonNamed = Awaited<ReturnType<typeof peopleNamedRead>>[number];

/**
 * IssuableBaseService#filter_assignees_using_checks over what peopleNamedRead read: an empty list
 * or exactly `[0]` (IssuableFinder::Params::NONE) unassigns everybody ([]); otherwise only active
 * users who exist and `mayRead` the issuable are kept, in the order asked, and when none is left
 * the parameter is dropped (undefined: on create nobody is assigned, on update they stay as they are).
 */
export function assignableFrom(rows: readonly PersonNamed[], ids: number[] | undefined, mayRead: (user: Caller, level: number) => boolean): number[] | undefined {
  if (ids === undefined) return undefined;
  if (ids.length === 0 || (ids.length === 1 && ids[0] === 0)) return [];
  const wanted = [...new Set(ids)].filter((id) => id > 0).slice(0, MAX_ASSIGNEES_OR_REVIEWERS);
  const byId = new Map(rows.map((u) => [u.id, u]));
  const out = wanted.filter((id) => {
    const u = byId.get(id);
    return u !== undefined && u.state === 'active' && mayRead({ user: u as unknown as UserRow, sudoer: null, credential: null, isAdmin: Boolean(u.isAdmin) }, Number(u.level));
  });
  return out.length ? out : undefined;
}
