/**
 * Who takes part in a merge request (lib/api/merge_requests.rb `participants`, `reviewers`). The
 * merge request, its comments and its participants with their levels in the project are read in the
 * round trip that finds the project; users only mentioned in comments take a second.
 */
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import { inJson } from '../db/batch-reads';
import { mergeRequestAssignees, mergeRequestReviewers, namespaces, notes, projects, users } from '../db/schema';
import type { AppEnv, UserRow } from '../platform/context';
import { baseUrl, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { canReadMergeRequests, projectLevelSql, type ProjectRow } from '../projects/abilities';
import { userBasic, UserBasicSchema } from '../users/user-entity';
import { findReadableMergeRequestWith } from './merge-request-access';
import { type MergeRequestReviewerRow, mergeRequestReviewerEntity, MergeRequestReviewerSchema, type MergeRequestRow } from './merge-request-entity';
import { mergeRequestPageParams } from './merge-requests-params';

const TAGS = ['merge_requests'];

export function mountMergeRequestParticipants(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/participants', summary: 'List merge request participants', tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(UserBasicSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId, projectId) => {
        const list = participantReads(db, mrId, projectId);
        return { list: [...list], unflatten: (results) => results as unknown as Awaited<(typeof list)[number]>[] };
      });
      const [noteRows, assignees, reviewers, known] = found.loaded as unknown as ParticipantReads;
      const list = await participants(db, found.mr, found.project, noteRows, assignees, reviewers, known);
      return pageOf(c, p, list.map((u) => userBasic(u, { base: baseUrl(c) })));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/reviewers', summary: 'List merge request reviewers', tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(MergeRequestReviewerSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      // The reviewers with the merge request; the reviewer's columns renamed apart from the user's (a D1 batch keys rows by column name).
      const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => ({
        list: [
          db
            .select({ reviewer: aliasedColumns(mergeRequestReviewers, 'r_'), user: users })
            .from(mergeRequestReviewers)
            .innerJoin(users, eq(users.id, mergeRequestReviewers.userId))
            .where(eq(mergeRequestReviewers.mergeRequestId, mrId as unknown as number))
            .orderBy(mergeRequestReviewers.position),
        ],
        unflatten: (results) => results[0] as { reviewer: MergeRequestReviewerRow; user: UserRow }[],
      }));
      const base = baseUrl(c);
      return pageOf(
        c,
        p,
        (found.loaded ?? []).map((r) => mergeRequestReviewerEntity(r.reviewer, userBasic(r.user, { base }))),
      );
    },
  );
}

async function pageOf<T>(c: Context<AppEnv>, p: { page?: number; per_page?: number }, list: T[]) {
  const raw = await requestParams(c);
  const page = await paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, {}),
    async (limit, offset) => list.slice(offset, offset + limit),
    async (limit) => Math.min(list.length, limit),
  );
  return c.json(page);
}

// Gitlab::PathRegex user names after `@`, not inside a word or an email address.
const MENTION = /(?:^|[^\w@.])@([A-Za-z0-9_][A-Za-z0-9_.-]*)/g;
const mentions = (text: string | null | undefined) => (text ? [...text.matchAll(MENTION)].map((m) => m[1].replace(/\.+$/, '').toLowerCase()).filter(Boolean) : []);

const USER_ID = sql.raw('"users"."id"');

/** Users matching `where`, each with their level in the project (`projectId`: a number or a sub-select). */
const usersWithLevel = (db: Db, projectId: SQL | number, where: SQL) =>
  db
    .select({ user: users, level: projectLevelSql(USER_ID).as('participant_level') })
    .from(users)
    .innerJoin(projects, eq(projects.id, projectId as number))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(where);

type UserWithLevel = { user: UserRow; level: number };
type ParticipantReads = [{ authorId: number; body: string }[], { userId: number }[], { userId: number }[], UserWithLevel[]];

/** The comments (non-internal), assignees, reviewers, and those users and the author with their levels. */
function participantReads(db: Db, mrId: SQL, projectId: SQL) {
  const mr = mrId as unknown as number;
  const commentWhere = and(eq(notes.noteableType, 'MergeRequest'), eq(notes.noteableId, mr), eq(notes.system, false), eq(notes.internal, false));
  return [
    db.select({ authorId: notes.authorId, body: notes.body }).from(notes).where(commentWhere).orderBy(notes.createdAt, notes.id),
    db.select({ userId: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mr)).orderBy(asc(mergeRequestAssignees.position)),
    db.select({ userId: mergeRequestReviewers.userId }).from(mergeRequestReviewers).where(eq(mergeRequestReviewers.mergeRequestId, mr)).orderBy(asc(mergeRequestReviewers.position)),
    // Separate INs, not one UNION: D1 caps compound selects at a few terms.
    usersWithLevel(
      db,
      projectId,
      sql`${users.id} IN (SELECT m.author_id FROM merge_requests m WHERE m.id = ${mrId})
        OR ${users.id} IN (SELECT a.user_id FROM merge_request_assignees a WHERE a.merge_request_id = ${mrId})
        OR ${users.id} IN (SELECT r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id = ${mrId})
        OR ${users.id} IN (SELECT n.author_id FROM notes n WHERE n.noteable_type = 'MergeRequest' AND n.noteable_id = ${mrId} AND n.system = 0 AND n.internal = 0)`,
    ),
  ] as const;
}

/**
 * MergeRequest#visible_participants: the author, authors of (non-internal) comments, assignees,
 * reviewers, then users mentioned in the title, description and comments, each once; then only
 * those who may read the merge request. Mentioned users not already known are read in one query.
 */
async function participants(db: Db, mr: MergeRequestRow, project: ProjectRow, noteRows: ParticipantReads[0], assignees: ParticipantReads[1], reviewers: ParticipantReads[2], known: UserWithLevel[]): Promise<UserRow[]> {
  const ids = [...new Set([mr.authorId, ...noteRows.map((n) => n.authorId), ...assignees.map((a) => a.userId), ...reviewers.map((r) => r.userId)])];
  const names = [...new Set([...mentions(mr.title), ...mentions(mr.description), ...noteRows.flatMap((n) => mentions(n.body))])].slice(0, 200);
  const byId = new Map(known.map((u) => [u.user.id, u]));
  const byName = new Map(known.map((u) => [u.user.username.toLowerCase(), u]));
  const unknown = names.filter((n) => !byName.has(n));
  if (unknown.length) for (const u of await usersWithLevel(db, project.id, inJson(sql`lower(${users.username})`, unknown))) byName.set(u.user.username.toLowerCase(), u);
  const out: UserRow[] = [];
  const seen = new Set<number>();
  for (const u of [...ids.map((id) => byId.get(id)), ...names.map((n) => byName.get(n))]) {
    if (!u || seen.has(u.user.id)) continue;
    seen.add(u.user.id);
    const user = u.user;
    if (canReadMergeRequests({ user, sudoer: null, credential: null, isAdmin: user.isAdmin }, project, Number(u.level))) out.push(user);
  }
  return out;
}
