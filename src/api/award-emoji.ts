/**
 * Award emoji on issues and on their notes (GitLab lib/api/award_emoji.rb). `authenticate!` for every
 * route. Issue upvotes/downvotes are kept in step with thumbsup/thumbsdown in the same db.batch.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../context';
import { awardEmoji, issues, users } from '../db/schema';
import { type AwardRow, awardEmojiEntity } from '../entities/award-emoji';
import { userBasic } from '../entities/user';
import { isEmojiName } from '../lib/emoji';
import { ApiError, recordNotFound, unauthorized } from '../lib/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate } from '../lib/pagination';
import { requestParams } from '../lib/params';
import type { Router } from '../lib/router';
import { isUniqueViolation } from '../lib/unique';
import { requireUser } from '../middleware/auth';
import {
  awardRefParams,
  createAwardParams,
  createEpicAwardParams,
  createNoteAwardParams,
  epicAwardRefParams,
  listAwardsParams,
  listEpicAwardsParams,
  listNoteAwardsParams,
  noteAwardRefParams,
} from '../params/notes';
import { findReadableEpic } from '../services/epics';
import { findIssueNote } from '../services/notes';
import { findReadableIssue } from '../services/issues';

type Awardable = { type: 'Issue' | 'Note' | 'Epic'; id: number; issueId: number | null };

/** `awardable`: the issue, one of its notes, or an epic (EE); a missing or hidden one is a 404. */
async function findAwardable(c: Context<AppEnv>, caller: Caller, p: { id: string; issue_iid?: number; note_id?: number; epic_iid?: number }): Promise<Awardable> {
  if (p.epic_iid !== undefined) {
    const { epic } = await findReadableEpic(c, caller, p.id, p.epic_iid);
    return { type: 'Epic', id: epic.id, issueId: null };
  }
  const found = await findReadableIssue(c, caller, p.id, p.issue_iid!);
  if (p.note_id === undefined) return { type: 'Issue', id: found.issue.id, issueId: found.issue.id };
  const note = await findIssueNote(c, caller, found.issue, found.level, p.note_id);
  return { type: 'Note', id: note.id, issueId: found.issue.id };
}

/** The issue's vote columns recounted from award_emoji (for the same batch as the award change); epics count on read. */
const recountVotes = (c: Context<AppEnv>, a: Awardable) =>
  c.var.db
    .update(issues)
    .set({
      upvotes: sql`(select count(*) from ${awardEmoji} where ${awardEmoji.awardableType} = 'Issue' and ${awardEmoji.awardableId} = ${a.issueId} and ${awardEmoji.name} = 'thumbsup')`,
      downvotes: sql`(select count(*) from ${awardEmoji} where ${awardEmoji.awardableType} = 'Issue' and ${awardEmoji.awardableId} = ${a.issueId} and ${awardEmoji.name} = 'thumbsdown')`,
    })
    .where(eq(issues.id, a.issueId ?? 0));

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
  ] as unknown as [string, typeof listAwardsParams, typeof awardRefParams, typeof createAwardParams][]) {
    const what = suffix.includes(':note_id') ? 'an issue note' : suffix.includes('epics') ? 'an epic' : 'an issue';

    r.route({ method: 'GET', path: suffix, summary: `List the award emoji of ${what}`, tags: ['award_emoji'], params: listP, signedIn: true }, async ({ c, p, caller }) => {
      const a = await findAwardable(c, caller, p as never);
      const db = c.var.db;
      const where = and(eq(awardEmoji.awardableType, a.type), eq(awardEmoji.awardableId, a.id));
      const raw = await requestParams(c);
      const rows = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        (limit, offset) => db.select().from(awardEmoji).where(where).orderBy(asc(awardEmoji.id)).limit(limit).offset(offset).all(),
        async (limit) => (await db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(awardEmoji).where(where).limit(limit).as('t')).get())?.n ?? 0,
      );
      return c.json(await present(c, rows));
    });

    r.route({ method: 'GET', path: `${suffix}/:award_id`, summary: `Get an award emoji of ${what}`, tags: ['award_emoji'], params: refP, signedIn: true }, async ({ c, p, caller }) => {
      const a = await findAwardable(c, caller, p as never);
      const row = await findAward(c, a, (p as { award_id: number }).award_id);
      return c.json((await present(c, [row]))[0]);
    });

    r.route(
      { method: 'POST', path: suffix, summary: `Award an emoji to ${what}`, tags: ['award_emoji'], params: createP, signedIn: true, status: 201 },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        const a = await findAwardable(c, caller, p as never);
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
      { method: 'DELETE', path: `${suffix}/:award_id`, summary: `Remove an award emoji from ${what}`, tags: ['award_emoji'], params: refP, signedIn: true, status: 204 },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        const a = await findAwardable(c, caller, p as never);
        const row = await findAward(c, a, (p as { award_id: number }).award_id);
        // award_emoji.rb: `unauthorized! unless award.user == current_user || current_user&.can_admin_all_resources?`.
        if (row.userId !== user.id && !caller.isAdmin) throw unauthorized();
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

