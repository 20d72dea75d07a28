/**
 * Who takes part in a merge request (lib/api/merge_requests.rb `participants`, `reviewers`).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import { mergeRequestReviewers, notes, users } from '../db/schema';
import type { AppEnv, UserRow } from '../platform/context';
import { baseUrl, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { canReadMergeRequests, type NamespaceRow, projectAccess, type ProjectRow } from '../projects/abilities';
import { userBasic, UserBasicSchema } from '../users/user-entity';
import { findReadableMergeRequest, mergeRequestAssigneeIds, mergeRequestReviewerIds } from './merge-request-access';
import { type MergeRequestRow, mergeRequestReviewerEntity, MergeRequestReviewerSchema } from './merge-request-entity';
import { mergeRequestPageParams } from './merge-requests-params';

const TAGS = ['merge_requests'];

export function mountMergeRequestParticipants(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/participants', summary: 'List merge request participants', tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(UserBasicSchema) } },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const list = await participants(c, found.mr, found.project, found.namespace);
      return pageOf(c, p, list.map((u) => userBasic(u, { base: baseUrl(c) })));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/reviewers', summary: 'List merge request reviewers', tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(MergeRequestReviewerSchema) } },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const db = c.var.db;
      const rows = await db
        .select({ reviewer: mergeRequestReviewers, user: users })
        .from(mergeRequestReviewers)
        .innerJoin(users, eq(users.id, mergeRequestReviewers.userId))
        .where(eq(mergeRequestReviewers.mergeRequestId, found.mr.id))
        .orderBy(mergeRequestReviewers.position)
        .all();
      const base = baseUrl(c);
      return pageOf(
        c,
        p,
        rows.map((r) => mergeRequestReviewerEntity(r.reviewer, userBasic(r.user, { base }))),
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

/**
 * MergeRequest#visible_participants: the author, authors of (non-internal) comments, assignees,
 * reviewers, then users mentioned in the title, description and comments, each once; then only
 * those who may read the merge request.
 */
async function participants(c: Context<AppEnv>, mr: MergeRequestRow, project: ProjectRow, ns: NamespaceRow): Promise<UserRow[]> {
  const db = c.var.db;
  const [assignees, reviewers, noteRows] = await Promise.all([
    mergeRequestAssigneeIds(db, mr.id),
    mergeRequestReviewerIds(db, mr.id),
    db
      .select({ authorId: notes.authorId, body: notes.body })
      .from(notes)
      .where(and(eq(notes.noteableType, 'MergeRequest'), eq(notes.noteableId, mr.id), eq(notes.system, false), eq(notes.internal, false)))
      .orderBy(notes.createdAt, notes.id)
      .all(),
  ]);
  const ids = [...new Set([mr.authorId, ...noteRows.map((n) => n.authorId), ...assignees, ...reviewers])];
  const names = [...new Set([...mentions(mr.title), ...mentions(mr.description), ...noteRows.flatMap((n) => mentions(n.body))])].slice(0, 200);
  const byId = new Map<number, UserRow>();
  for (let i = 0; i < ids.length; i += 90) for (const u of await db.select().from(users).where(inArray(users.id, ids.slice(i, i + 90))).all()) byId.set(u.id, u);
  const byName = new Map<string, UserRow>();
  for (let i = 0; i < names.length; i += 90)
    for (const u of await db.select().from(users).where(inArray(sql`lower(${users.username})`, names.slice(i, i + 90))).all()) byName.set(u.username.toLowerCase(), u);
  const ordered: UserRow[] = [];
  const seen = new Set<number>();
  for (const u of [...ids.map((id) => byId.get(id)), ...names.map((n) => byName.get(n))]) {
    if (u && !seen.has(u.id)) {
      seen.add(u.id);
      ordered.push(u);
    }
  }
  const out: UserRow[] = [];
  for (const u of ordered) {
    const level = await projectAccess(db, u, project, ns);
    if (canReadMergeRequests({ user: u, sudoer: null, credential: null, isAdmin: u.isAdmin }, project, level)) out.push(u);
  }
  return out;
}
