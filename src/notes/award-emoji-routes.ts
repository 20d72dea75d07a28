/**
 * Award emoji on issues, merge requests and their notes, and on epics (GitLab lib/api/award_emoji.rb,
 * helpers/award_emoji.rb). `authenticate!` for every route. Issue and merge request
 * upvotes/downvotes are kept in step with thumbsup/thumbsdown in the same db.batch as the award.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { awardEmoji, issues, mergeRequests, notes, users } from '../db/schema';
import { type AwardRow, awardEmojiEntity, AwardEmojiSchema } from './award-emoji-entity';
import { userBasic } from '../users/user-entity';
import { isEmojiName } from '../platform/emoji';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, notFound, recordNotFound, unauthorized } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import {
  awardRefParams,
  createAwardParams,
  createEpicAwardParams,
  createNoteAwardParams,
  epicAwardRefParams,
  listAwardsParams,
  listEpicAwardsParams,
  listNoteAwardsParams,
  listMergeRequestAwardsParams,
  listMergeRequestNoteAwardsParams,
  mergeRequestAwardRefParams,
  mergeRequestNoteAwardRefParams,
  createMergeRequestAwardParams,
  createMergeRequestNoteAwardParams,
  noteAwardRefParams,
} from './notes-params';
import { findReadableEpic } from '../planning/epics';
import { canReadMergeRequests } from '../projects/abilities';
import { canReadNote, findIssueNote, lockedOut } from './notes';
import { findReadableIssue } from '../issues/issues';
import { findReadableProject } from '../projects/projects';
import { z } from 'zod';

interface Awardable {
  type: 'Issue' | 'MergeRequest' | 'Note' | 'Epic';
  id: number;
  /** The issue or merge request whose upvotes/downvotes columns count this awardable's votes. */
  votes: { table: 'Issue' | 'MergeRequest'; id: number } | null;
  /** `can_read_awardable?` (false answers `404 Award Emoji Not Found`); issues and epics throw instead. */
  readable: boolean;
  /** `awardable.user_can_award?(current_user)`: the award_emoji ability. */
  canAward: boolean;
}

/** `awardable`: the issue, merge request, one of their notes, or an epic (EE). */
async function findAwardable(
  c: Context<AppEnv>,
  caller: Caller,
  p: { id: string; issue_iid?: number; merge_request_iid?: number; note_id?: number; epic_iid?: number },
): Promise<Awardable> {
  if (p.epic_iid !== undefined) {
    const { epic } = await findReadableEpic(c, caller, p.id, p.epic_iid);
    return { type: 'Epic', id: epic.id, votes: null, readable: true, canAward: true };
  }
  if (p.merge_request_iid !== undefined) return findMergeRequestAwardable(c, caller, p as { id: string; merge_request_iid: number; note_id?: number });
  const found = await findReadableIssue(c, caller, p.id, p.issue_iid!);
  const votes = { table: 'Issue' as const, id: found.issue.id };
  // award_emoji: prevented on an archived project (ArchivedAbilities) and for non-members on a locked discussion (IssuablePolicy).
  const canAward = !found.project.archived && !lockedOut(caller, found.level, found.issue.discussionLocked);
  if (p.note_id === undefined) return { type: 'Issue', id: found.issue.id, votes, readable: true, canAward };
  const note = await findIssueNote(c, caller, found.issue, found.level, p.note_id);
  return { type: 'Note', id: note.id, votes, readable: true, canAward };
}

/**
 * helpers/award_emoji.rb: `user_project.merge_requests.find_by!(iid:)` and `awardable.notes.find(note_id)`
 * find without a permission check (404 Not found when missing); reading is checked per route
 * (read_merge_request; an internal note needs read_internal_note). Awarding is refused on an
 * archived project (ArchivedAbilities: award_emoji) and to non-members on a locked discussion.
 */
async function findMergeRequestAwardable(c: Context<AppEnv>, caller: Caller, p: { id: string; merge_request_iid: number; note_id?: number }): Promise<Awardable> {
  const { project, level } = await findReadableProject(c, caller, p.id);
  const db = c.var.db;
  const mr = Number.isSafeInteger(p.merge_request_iid)
    ? await db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, project.id), eq(mergeRequests.iid, p.merge_request_iid))).get()
    : undefined;
  if (!mr) throw recordNotFound();
  const votes = { table: 'MergeRequest' as const, id: mr.id };
  const readable = canReadMergeRequests(caller, project, level);
  const canAward = readable && caller.user != null && !project.archived && !lockedOut(caller, level, mr.discussionLocked);
  if (p.note_id === undefined) return { type: 'MergeRequest', id: mr.id, votes, readable, canAward };
  const note = Number.isSafeInteger(p.note_id)
    ? await db.select().from(notes).where(and(eq(notes.id, p.note_id), eq(notes.noteableType, 'MergeRequest'), eq(notes.noteableId, mr.id))).get()
    : undefined;
  if (!note) throw recordNotFound();
  const noteReadable = readable && canReadNote(caller, level, note);
  return { type: 'Note', id: note.id, votes, readable: noteReadable, canAward: canAward && noteReadable };
}

const votesOf = (table: 'Issue' | 'MergeRequest', id: number, name: string) =>
  sql<number>`(select count(*) from ${awardEmoji} where ${awardEmoji.awardableType} = ${table} and ${awardEmoji.awardableId} = ${id} and ${awardEmoji.name} = ${name})`;

/**
 * The issue's or merge request's vote columns recounted from award_emoji (for the same batch as the
 * award change; a note's award recounts its noteable, unchanged); epics count on read.
 */
const recountVotes = (c: Context<AppEnv>, a: Awardable) => {
  const db = c.var.db;
  const v = a.votes ?? { table: 'Issue' as const, id: 0 };
  const set = { upvotes: votesOf(v.table, v.id, 'thumbsup'), downvotes: votesOf(v.table, v.id, 'thumbsdown') };
  return v.table === 'MergeRequest' ? db.update(mergeRequests).set(set).where(eq(mergeRequests.id, v.id)) : db.update(issues).set(set).where(eq(issues.id, v.id));
};

async function present(c: Context<AppEnv>, rows: AwardRow[]) {
  const ids = [...new Set(rows.map((r) => r.userId))].slice(0, 100);
  const byId = new Map((ids.length ? await c.var.db.select().from(users).where(inArray(users.id, ids)).all() : []).map((u) => [u.id, u]));
  const base = baseUrl(c);
  return rows.map((r) => {
    const u = byId.get(r.userId);
    return awardEmojiEntity(r, u ? userBasic(u, { base }) : null);
  });
}

const awardNotFound = (detail: string) => new ApiError(404, { message: `404 Award Emoji ${detail} Not Found` });

export function mountAwardEmoji(r: Router) {
  for (const [suffix, listP, refP, createP] of [
    ['/projects/:id/issues/:issue_iid/award_emoji', listAwardsParams, awardRefParams, createAwardParams],
    ['/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji', listNoteAwardsParams, noteAwardRefParams, createNoteAwardParams],
    ['/groups/:id/epics/:epic_iid/award_emoji', listEpicAwardsParams, epicAwardRefParams, createEpicAwardParams],
    ['/projects/:id/merge_requests/:merge_request_iid/award_emoji', listMergeRequestAwardsParams, mergeRequestAwardRefParams, createMergeRequestAwardParams],
    [
      '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji',
      listMergeRequestNoteAwardsParams,
      mergeRequestNoteAwardRefParams,
      createMergeRequestNoteAwardParams,
    ],
  ] as unknown as [string, typeof listAwardsParams, typeof awardRefParams, typeof createAwardParams][]) {
    const owner = suffix.includes('merge_requests') ? 'merge request' : suffix.includes('epics') ? 'epic' : 'issue';
    const what = `${owner === 'issue' || owner === 'epic' ? 'an' : 'a'} ${owner}${suffix.includes(':note_id') ? ' note' : ''}`;

    r.route({ method: 'GET', path: suffix, summary: `List the award emoji of ${what}`, tags: ['award_emoji'], params: listP, signedIn: true, responses: { 200: z.array(AwardEmojiSchema) } }, async ({ c, p, caller }) => {
      const a = await findAwardable(c, caller, p as never);
      if (!a.readable) throw notFound('Award Emoji');
      const db = c.var.db;
      const where = and(eq(awardEmoji.awardableType, a.type), eq(awardEmoji.awardableId, a.id));
      const raw = await requestParams(c);
      const rows = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        (limit, offset) => db.select().from(awardEmoji).where(where).orderBy(asc(awardEmoji.id)).limit(limit).offset(offset),
        (limit) => db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(awardEmoji).where(where).limit(limit).as('t')),
      );
      return c.json(await present(c, rows));
    });

    r.route({ method: 'GET', path: `${suffix}/:award_id`, summary: `Get an award emoji of ${what}`, tags: ['award_emoji'], params: refP, signedIn: true, responses: { 200: AwardEmojiSchema } }, async ({ c, p, caller }) => {
      const a = await findAwardable(c, caller, p as never);
      if (!a.readable) throw notFound('Award Emoji');
      const row = await findAward(c, a, (p as { award_id: number }).award_id);
      return c.json((await present(c, [row]))[0]);
    });

    r.route(
      { method: 'POST', path: suffix, summary: `Award an emoji to ${what}`, tags: ['award_emoji'], params: createP, signedIn: true, responses: { 201: AwardEmojiSchema } },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        const a = await findAwardable(c, caller, p as never);
        if (!a.readable || !a.canAward) throw notFound('Award Emoji');
        const name = (p as { name: string }).name.trim();
        // award.persisted? is false on a validation error: `not_found!("Award Emoji #{award.errors.messages}")`.
        if (!isEmojiName(name)) throw awardNotFound('{:name=>["is not a valid emoji name"]}');
        const db = c.var.db;
        const now = Date.now();
        const exists = await db
          .select({ id: awardEmoji.id })
          .from(awardEmoji)
          .where(and(eq(awardEmoji.awardableType, a.type), eq(awardEmoji.awardableId, a.id), eq(awardEmoji.name, name), eq(awardEmoji.userId, user.id)))
          .get();
        const taken = awardNotFound('{:name=>["has already been taken"]}');
        if (exists) throw taken;
        let inserted: AwardRow | undefined;
        try {
          const results = (await db.batch([
            db.insert(awardEmoji).values({ name, userId: user.id, awardableType: a.type, awardableId: a.id, createdAt: now, updatedAt: now }).returning(),
            recountVotes(c, a),
          ])) as unknown[];
          inserted = (results[0] as AwardRow[])[0];
        } catch (err) {
          if (isUniqueViolation(err, 'award_emoji')) throw taken;
          throw err;
        }
        return c.json((await present(c, [inserted!]))[0], 201);
      },
    );

    r.route(
      { method: 'DELETE', path: `${suffix}/:award_id`, summary: `Remove an award emoji from ${what}`, tags: ['award_emoji'], params: refP, signedIn: true, responses: { 204: null } },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        const a = await findAwardable(c, caller, p as never);
        const row = await findAward(c, a, (p as { award_id: number }).award_id);
        // award_emoji.rb: `unauthorized! unless award.user == current_user || current_user&.can_admin_all_resources?`.
        if (row.userId !== user.id && !caller.isAdmin) throw unauthorized();
        checkUnmodifiedSince(c, row.updatedAt);
        const db = c.var.db;
        await db.batch([db.delete(awardEmoji).where(eq(awardEmoji.id, row.id)), recountVotes(c, a)]);
        return c.body(null, 204);
      },
    );
  }
}

async function findAward(c: Context<AppEnv>, a: Awardable, awardId: number): Promise<AwardRow> {
  const row = Number.isSafeInteger(awardId)
    ? await c.var.db.select().from(awardEmoji).where(and(eq(awardEmoji.id, awardId), eq(awardEmoji.awardableType, a.type), eq(awardEmoji.awardableId, a.id))).get()
    : undefined;
  if (!row) throw recordNotFound();
  return row;
}

