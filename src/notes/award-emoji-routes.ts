/**
 * Award emoji on issues, merge requests and their notes, and on epics (GitLab lib/api/award_emoji.rb,
 * helpers/award_emoji.rb). `authenticate!` for every route. Issue and merge request
 * upvotes/downvotes are kept in step with thumbsup/thumbsdown in the same db.batch as the award.
 */
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { awardEmoji, issues, mergeRequests, users } from '../db/schema';
import { type AwardRow, awardEmojiEntity, AwardEmojiSchema } from './award-emoji-entity';
import { userBasic } from '../users/user-entity';
import { isEmojiName } from '../platform/emoji';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, notFound, recordNotFound, unauthorized } from '../platform/errors';
import { baseUrl, countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
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
import { canReadNote, lockedOut, noteOfQuery, readableNote } from './notes';
import { findNoteableWith, type NoteableRef, type SlotResults } from './noteable';
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

type Slot = BatchItem<'sqlite'> | undefined;

/**
 * `awardable`: the issue, merge request, one of their notes, or an epic (EE), with the route's
 * `reads` over the awardable's id (as SQL), in one round trip (noteable.ts).
 * helpers/award_emoji.rb finds a merge request (`find_by!`) and a note (`awardable.notes.find`)
 * without a permission check (404 Not found when missing); reading them is checked per route
 * (read_merge_request; an internal note needs read_internal_note). An issue's notes are found as
 * the notes API finds them. Awarding is refused on an archived project (ArchivedAbilities:
 * award_emoji) and to non-members on a locked discussion (IssuablePolicy).
 */
async function findAwardable<const Q extends readonly Slot[]>(
  c: Context<AppEnv>,
  caller: Caller,
  p: { id: string; issue_iid?: number; merge_request_iid?: number; note_id?: number; epic_iid?: number },
  reads: (awardable: { type: Awardable['type']; id: SQL }) => Q,
): Promise<Awardable & { reads: SlotResults<Q> }> {
  const ref: NoteableRef =
    p.epic_iid !== undefined
      ? { type: 'Epic', groupId: p.id, by: { iid: p.epic_iid } }
      : p.merge_request_iid !== undefined
        ? { type: 'MergeRequest', projectId: p.id, iid: p.merge_request_iid }
        : { type: 'Issue', projectId: p.id, iid: p.issue_iid! };
  const noteId = p.note_id;
  const found = await findNoteableWith(c, caller, ref, (noteableId) => {
    if (noteId === undefined) return [undefined, ...reads({ type: ref.type, id: noteableId })] as const;
    const id = sql`SELECT id FROM notes WHERE id = ${safeId(noteId)} AND noteable_type = ${ref.type} AND noteable_id IN (${noteableId})`;
    return [noteOfQuery(c, ref.type, noteableId, noteId), ...reads({ type: 'Note', id })] as const;
  });
  const [noteRows, ...rest] = found.reads;
  const own = rest as unknown as SlotResults<Q>;
  if (found.type === 'Epic') return { type: 'Epic', id: found.id, votes: null, readable: true, canAward: true, reads: own };
  const votes = { table: found.type, id: found.id };
  const project = found.project!;
  const mayAward = !project.archived && !lockedOut(caller, found.level, found.discussionLocked);
  if (found.type === 'Issue') {
    if (noteId === undefined) return { type: 'Issue', id: found.id, votes, readable: true, canAward: mayAward, reads: own };
    const note = readableNote(caller, found.level, noteRows?.[0]);
    return { type: 'Note', id: note.id, votes, readable: true, canAward: mayAward, reads: own };
  }
  const { readable } = found;
  const canAward = readable && caller.user != null && mayAward;
  if (noteId === undefined) return { type: 'MergeRequest', id: found.id, votes, readable, canAward, reads: own };
  const note = noteRows?.[0];
  if (!note) throw recordNotFound();
  const noteReadable = readable && canReadNote(caller, found.level, note);
  return { type: 'Note', id: note.id, votes, readable: noteReadable, canAward: canAward && noteReadable, reads: own };
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

/** The users of the awards whose ids `awardIds` selects, for the batch that reads them. */
const awardUsersQuery = (c: Context<AppEnv>, awardIds: SQL) => c.var.db.select().from(users).where(sql`${users.id} IN (SELECT a.user_id FROM award_emoji a WHERE a.id IN (${awardIds}))`);

/** AwardEmoji entities; `known` users (read with the awards, or the caller) spare the users' read. */
async function present(c: Context<AppEnv>, rows: AwardRow[], known: UserRow[] = []) {
  const byId = new Map(known.map((u) => [u.id, u]));
  const ids = [...new Set(rows.map((r) => r.userId))].filter((id) => !byId.has(id)).slice(0, 100);
  for (const u of ids.length ? await c.var.db.select().from(users).where(inArray(users.id, ids)).all() : []) byId.set(u.id, u);
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
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      // The awardable, a page of its awards, their count and their users in one round trip (issues).
      const a = await findAwardable(c, caller, p as never, (aw) => {
        const where = and(eq(awardEmoji.awardableType, aw.type), sql`${awardEmoji.awardableId} IN (${aw.id})`);
        const page = db.select().from(awardEmoji).where(where).orderBy(asc(awardEmoji.id)).limit(req.perPage).offset(req.offset);
        return [page, countUpToQuery(db, awardEmoji, where, MAX_COUNT + 1), awardUsersQuery(c, sql`SELECT id FROM (${page.getSQL()})`)] as const;
      });
      if (!a.readable) throw notFound('Award Emoji');
      const [rows, n, people] = a.reads;
      const total = Number(n[0]?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), total > MAX_COUNT ? null : total, rows.length);
      return c.json(await present(c, rows, people as UserRow[]));
    });

    r.route({ method: 'GET', path: `${suffix}/:award_id`, summary: `Get an award emoji of ${what}`, tags: ['award_emoji'], params: refP, signedIn: true, responses: { 200: AwardEmojiSchema } }, async ({ c, p, caller }) => {
      const awardId = (p as { award_id: number }).award_id;
      const a = await findAwardable(c, caller, p as never, (aw) => [awardQuery(c, aw, awardId), awardUsersQuery(c, sql`SELECT ${safeId(awardId)}`)] as const);
      if (!a.readable) throw notFound('Award Emoji');
      const row = foundAward(a.reads[0]);
      return c.json((await present(c, [row], a.reads[1] as UserRow[]))[0]);
    });

    r.route(
      { method: 'POST', path: suffix, summary: `Award an emoji to ${what}`, tags: ['award_emoji'], params: createP, signedIn: true, responses: { 201: AwardEmojiSchema } },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        const name = (p as { name: string }).name.trim();
        const db = c.var.db;
        // The awardable and the caller's award of the same name in one round trip (issues).
        const a = await findAwardable(c, caller, p as never, (aw) => [
          db
            .select({ id: awardEmoji.id })
            .from(awardEmoji)
            .where(and(eq(awardEmoji.awardableType, aw.type), sql`${awardEmoji.awardableId} IN (${aw.id})`, eq(awardEmoji.name, name), eq(awardEmoji.userId, user.id)))
            .limit(1),
        ] as const);
        if (!a.readable || !a.canAward) throw notFound('Award Emoji');
        // award.persisted? is false on a validation error: `not_found!("Award Emoji #{award.errors.messages}")`.
        if (!isEmojiName(name)) throw awardNotFound('{:name=>["is not a valid emoji name"]}');
        const now = Date.now();
        const exists = a.reads[0][0];
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
        // The award's user is the caller: nothing to read.
        return c.json((await present(c, [inserted!], [user]))[0], 201);
      },
    );

    r.route(
      { method: 'DELETE', path: `${suffix}/:award_id`, summary: `Remove an award emoji from ${what}`, tags: ['award_emoji'], params: refP, signedIn: true, responses: { 204: null } },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        const awardId = (p as { award_id: number }).award_id;
        const a = await findAwardable(c, caller, p as never, (aw) => [awardQuery(c, aw, awardId)] as const);
        const row = foundAward(a.reads[0]);
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

const safeId = (id: number) => (Number.isSafeInteger(id) ? id : -1);

/** The award `awardId` of the awardable (as SQL), for the lookup's batch. */
const awardQuery = (c: Context<AppEnv>, aw: { type: string; id: SQL }, awardId: number) =>
  c.var.db
    .select()
    .from(awardEmoji)
    .where(and(eq(awardEmoji.id, safeId(awardId)), eq(awardEmoji.awardableType, aw.type), sql`${awardEmoji.awardableId} IN (${aw.id})`))
    .limit(1);

function foundAward(rows: AwardRow[]): AwardRow {
  if (!rows[0]) throw recordNotFound();
  return rows[0];
}
