/**
 * The users a merge request write names as assignees or reviewers, with their level in the project,
 * as one read for the batch that finds the project or the merge request (issuable-fields.ts
 * assignableUsers reads the users, then each one's level, one round trip apiece), and the usernames
 * the update's system notes name (the people it had before too).
 */
import { eq, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { inJson } from '../db/batch-reads';
import { namespaces, projects, users } from '../db/schema';
import type { Caller, UserRow } from '../platform/context';
import { MAX_ASSIGNEES_OR_REVIEWERS } from '../issuables/issuable-fields';
import { projectLevelSql } from '../projects/abilities';

/** The outer user's id, qualified: inside the level's sub-selects an unqualified "id" is theirs. */
const USER_ID = sql.raw('"users"."id"');

/**
 * The users `ids` (and, with `mrId`, the merge request's assignees and reviewers) with their level in
 * the project `projectId` (SQL). Only the columns the checks ask (a batch serializes every column).
 */
export const peopleNamedRead = (db: Db, projectId: SQL, ids: readonly number[], mrId?: SQL) =>
  db
    .select({ id: users.id, username: users.username, state: users.state, isAdmin: users.isAdmin, external: users.external, level: projectLevelSql(USER_ID).as('level') })
    .from(users)
    .innerJoin(projects, sql`${projects.id} = ${projectId}`)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(
      or(
        inJson(users.id, ids),
        mrId
          ? sql`${users.id} IN (SELECT a.user_id FROM merge_request_assignees a WHERE a.merge_request_id = ${mrId} UNION SELECT r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id = ${mrId})`
          : undefined,
      ),
    );

export type PersonNamed = Awaited<ReturnType<typeof peopleNamedRead>>[number];

/**
 * assignableUsers from what peopleNamedRead read: undefined when not asked (or none may be
 * assigned), [] to unassign all (`0` or an empty list), else the active users who may read
 * (`mayRead`), in the order asked.
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
