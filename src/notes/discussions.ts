/**
 * Discussions (GitLab lib/api/discussions.rb, app/models/discussion.rb, ResolvableDiscussion):
 * notes grouped by their discussion id, on issues, merge requests, epics and commits. One model:
 * a note written through the notes API is an individual-note discussion here, and every note of a
 * discussion is a note there. The noteable is found with its parent, and the route's reads over the
 * noteable's notes (`scope`, an SQL condition on `notes`) ride in that same round trip.
 */
import { and, asc, count, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { notes } from '../db/schema';
import { batchReads, writeThenRead } from '../db/batch-reads';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { notFound } from '../platform/errors';
import { linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { ACCESS, type ProjectRow } from '../projects/abilities';
import { findReadableProjectWith, readCode } from '../projects/projects';
import { commitAt, refSha } from '../repository/history-reads';
import type { MergeRequestRow } from '../merge-requests/merge-request-entity';
import { type Discussion, discussionEntities, discussionIdOf, isIndividual } from './discussion-entity';
import type { NoteableRef } from './noteable';
import { canReadInternalNotes, canReadNote, findNoteableForNotes, lockedOut, noteUsersQuery, type NoteRow, presentNotes } from './notes';

export type TargetRef = NoteableRef | { type: 'Commit'; projectId: string; sha: string };

/** A found noteable, with what the discussion rules ask of it. */
export interface Target {
  type: 'Issue' | 'MergeRequest' | 'Epic' | 'Commit';
  /** 0 for a commit (its notes carry commit_id). */
  id: number;
  iid: number | null;
  commitId: string | null;
  /** The commit's first parent (a commit DiffNote's base). */
  commitParent: string | null;
  project: ProjectRow | null;
  level: number;
  discussionLocked: boolean;
  /** A confidential issue or epic. */
  confidential: boolean;
  /** The noteable's author (null for a commit). */
  authorId: number | null;
  mr: MergeRequestRow | null;
  /** The noteable's notes, as a condition on `notes`. */
  scope: SQL;
}

/** A note's discussion id in SQL, as `discussionIdOf` derives it for notes stored without one. */
export const discussionKeySql = sql<string>`COALESCE(${notes.discussionId}, printf('%040x', ${notes.id}))`;

const scopeOf = (type: string, noteableId: SQL | number) => sql`${notes.noteableType} = ${type} AND ${notes.noteableId} IN (${noteableId})`;
const commitScope = (projectId: SQL | number, sha: SQL | string) => sql`${notes.noteableType} = 'Commit' AND ${notes.projectId} = ${projectId} AND ${notes.commitId} = ${sha}`;

/**
 * NotesHelpers#find_noteable for the discussions API, with `reads(scope, projectId)` in the same
 * round trip (`projectId` is SQL: the noteable's project, null for an epic). A commit is
 * `project.commit(id)` of a project whose code the caller may read, else `404 Commit Not Found`.
 */
export async function findTarget(c: Context<AppEnv>, caller: Caller, ref: TargetRef, reads: (scope: SQL, projectId: SQL | null) => readonly BatchItem<'sqlite'>[]): Promise<Target & { reads: unknown[] }> {
  if (ref.type === 'Commit') {
    const db = c.var.db;
    const found = await findReadableProjectWith(c, caller, ref.projectId, (pid) => {
      const sha = refSha(pid, ref.sha);
      return [commitAt(db, pid, sha), ...reads(commitScope(pid, sha), pid)] as const;
    });
    const [[commit], ...rest] = found.reads as unknown as [{ sha: string; parentShas: string[] }[], ...unknown[]];
    if (!commit || !readCode(caller, found.project, found.level)) throw notFound('Commit');
    const { project, level } = found;
    return {
      type: 'Commit', id: 0, iid: null, commitId: commit.sha, commitParent: commit.parentShas[0] ?? null, project, level, discussionLocked: false, confidential: false, authorId: null, mr: null,
      scope: commitScope(project.id, commit.sha), reads: rest,
    };
  }
  const found = await findNoteableForNotes(c, caller, ref, (noteableId) => {
    const projectId = ref.type === 'Issue' ? sql`(SELECT project_id FROM issues WHERE id IN (${noteableId}))` : ref.type === 'MergeRequest' ? sql`(SELECT project_id FROM merge_requests WHERE id IN (${noteableId}))` : null;
    return reads(scopeOf(ref.type, noteableId), projectId);
  });
  return {
    type: found.type, id: found.id, iid: found.iid, commitId: null, commitParent: null, project: found.project, level: found.level, discussionLocked: found.discussionLocked, confidential: found.confidential, authorId: found.authorId, mr: found.mr,
    scope: scopeOf(found.type, found.id), reads: [...(found.reads as readonly unknown[])],
  };
}

/**
 * create_note on the noteable (and admin_note's noteable half): IssuablePolicy refuses non-members
 * on a locked discussion, and an archived project prevents the note abilities
 * (ArchivedAbilities::ARCHIVED_FEATURES has :note).
 */
export const mayWriteOn = (caller: Caller, t: Target) => !t.project?.archived && !lockedOut(caller, t.level, t.discussionLocked);

/**
 * Discussion#can_resolve?: a resolvable discussion, and the merge request's author or whoever has
 * resolve_note on it (Developer and above through ProjectPolicy, administrators), never a
 * non-member of a locked discussion. A note's own author may also resolve that note (NotePolicy).
 */
export function canResolve(caller: Caller, t: Target, noteAuthorId?: number): boolean {
  const uid = caller.user?.id;
  if (uid == null || lockedOut(caller, t.level, t.discussionLocked)) return false;
  return caller.isAdmin || t.level >= ACCESS.DEVELOPER || uid === t.authorId || uid === noteAuthorId;
}

/** Notes a caller may not read are left out (internal notes: read_internal_note or their author). */
export const readableSql = (caller: Caller, level: number): SQL | undefined =>
  canReadInternalNotes(caller, level) ? undefined : sql`(${notes.internal} = 0 OR ${notes.authorId} = ${caller.user?.id ?? 0})`;

/** The notes of one discussion (`noteable.notes.with_discussion_ids([id]).fresh`), for a lookup's batch. */
export const discussionNotesQuery = (c: Context<AppEnv>, scope: SQL, discussionId: string) =>
  c.var.db.select().from(notes).where(and(scope, sql`${discussionKeySql} = ${discussionId}`)).orderBy(asc(notes.createdAt), asc(notes.id));

/** The users a Note entity shows of one discussion's notes, for a lookup's batch. */
export const discussionUsersQuery = (c: Context<AppEnv>, scope: SQL, discussionId: string) =>
  noteUsersQuery(c, sql`SELECT ${notes.id} FROM ${notes} WHERE ${scope} AND ${discussionKeySql} = ${discussionId}`);

/**
 * GET .../discussions: `paginate(noteable.discussion_ids_relation)` (discussions in the order of
 * their first note), then the notes of the page's discussions the caller may read. Readable notes
 * only are counted, so X-Total counts what can be shown. One round trip after the lookup.
 */
export async function listDiscussions(c: Context<AppEnv>, caller: Caller, t: Target, p: { page?: number; per_page?: number }): Promise<Discussion[]> {
  const db = c.var.db;
  const raw = await requestParams(c);
  const req = pageRequest(p, raw.per_page);
  const where = and(t.scope, readableSql(caller, t.level));
  const page = db
    .select({ did: sql<string>`${discussionKeySql}`.as('did') })
    .from(notes)
    .where(where)
    .groupBy(discussionKeySql)
    .orderBy(sql`min(${notes.createdAt})`, sql`min(${notes.id})`)
    .limit(req.perPage)
    .offset(req.offset);
  const onPage = and(where, sql`${discussionKeySql} IN (SELECT did FROM (${page.getSQL()}))`);
  const counted = db.select({ one: sql`1` }).from(notes).where(where).groupBy(discussionKeySql).limit(MAX_COUNT + 1).as('t');
  const [rows, n, people] = await batchReads(db, [
    db.select().from(notes).where(onPage).orderBy(asc(notes.createdAt), asc(notes.id)),
    db.select({ n: count() }).from(counted),
    noteUsersQuery(c, sql`SELECT ${notes.id} FROM ${notes} WHERE ${onPage}`),
  ]);
  const total = Number(n[0]?.n ?? 0);
  const shown = new Set(rows.map(discussionIdOf)).size;
  setPaginationHeaders(c, req, linkParamsFrom(raw, {}), total > MAX_COUNT ? null : total, shown);
  return presentDiscussions(c, rows, t, people as UserRow[]);
}

/** Discussion entities of notes in `fresh` order. */
export async function presentDiscussions(c: Context<AppEnv>, rows: NoteRow[], t: Pick<Target, 'iid'>, people: UserRow[]): Promise<Discussion[]> {
  return discussionEntities(rows, await presentNotes(c, rows, t.iid, undefined, people));
}

/** `readable_discussion_notes` of one discussion, read in the lookup's batch: `404 <what> Not Found` when none is left. */
export function readableDiscussion(caller: Caller, t: Target, rows: NoteRow[], what = 'Discussion'): NoteRow[] {
  const readable = rows.filter((n) => canReadNote(caller, t.level, n));
  if (!readable.length) throw notFound(what);
  return readable;
}

/**
 * Discussion#can_convert_to_discussion? of a discussion's first note: a note already in a thread
 * can always be replied to; an individual note only when it is not a system note and its noteable
 * takes replies to individual notes (Noteable.replyable_types: issues, merge requests; EE epics).
 */
export const canReplyTo = (t: Target, first: NoteRow) => !isIndividual(first) || (!first.system && t.type !== 'Commit');

/** Whether a new note of this noteable can be resolved (ResolvableNote: discussion and diff notes of a merge request). */
export const resolvableOn = (t: Target) => t.type === 'MergeRequest';

/**
 * Notes::ResolveService / note.unresolve! (one note) and Discussions::ResolveService /
 * UnresolveService (all of a discussion's notes): resolvable notes only, a resolved note keeps who
 * resolved it and when. The notes (with `reread`) are read back in the same batch.
 */
export async function setResolved(c: Context<AppEnv>, user: UserRow, noteIds: SQL, resolved: boolean, reread: readonly BatchItem<'sqlite'>[]) {
  const db = c.var.db;
  const now = Date.now();
  const write = resolved
    ? db.update(notes).set({ resolvedAt: now, resolvedById: user.id, updatedAt: now }).where(and(sql`${notes.id} IN (${noteIds})`, eq(notes.resolvable, true), isNull(notes.resolvedAt)))
    : db.update(notes).set({ resolvedAt: null, resolvedById: null, updatedAt: now }).where(and(sql`${notes.id} IN (${noteIds})`, eq(notes.resolvable, true), sql`${notes.resolvedAt} IS NOT NULL`));
  return writeThenRead(db, [write], reread);
}

/** The notes `ids` and their users, for a batch's reads. */
export const notesByIds = (c: Context<AppEnv>, ids: number[]) =>
  [c.var.db.select().from(notes).where(inArray(notes.id, ids.length ? ids : [-1])).orderBy(asc(notes.createdAt), asc(notes.id)), noteUsersQuery(c, sql`SELECT value FROM json_each(${JSON.stringify(ids)})`)] as const;
