/**
 * Notes on issues, epics and merge requests (GitLab lib/api/helpers/notes_helpers.rb, NotePolicy):
 * lookup of the noteable and of its notes, who may read, write and edit them, the list query and
 * the presentation of a page in a fixed number of queries.
 */
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { awardEmoji, epics, issues, mergeRequests, notes, users } from '../db/schema';
import { type NoteRow, noteEntity } from './note-entity';
import { userBasic } from '../users/user-entity';
import { ACCESS } from '../projects/abilities';
import { ApiError, notFound, recordNotFound } from '../platform/errors';
import { checkText } from '../platform/text-limits';
import { baseUrl, countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { batchReads } from '../db/batch-reads';
import { findReadableIssue } from '../issues/issues';
import { findNoteableWith, type NoteableRef } from './noteable';

export type { NoteRow };
export type NoteableType = 'Issue' | 'Epic' | 'MergeRequest';

/** Note `validates :note, length: { maximum: 1_000_000 }`. */
export const NOTE_BODY_MAX = 1_000_000;
const NOTE_TEXT = { note: { max: NOTE_BODY_MAX } };

/** The body's length error (characters as Ruby counts them, and the stored bytes), or null. */
export function noteBodyErrors(body: string): Record<string, string[]> | null {
  const errors = checkText({}, { note: body }, NOTE_TEXT);
  return errors.note ? errors : null;
}
/** process_note_creation_result: `bad_request!("Note #{note.errors.messages}")` (Ruby hash and array inspect: `", "` between items). */
export const noteError = (messages: Record<string, string[]>) =>
  new ApiError(400, { message: `400 Bad request - Note {${Object.entries(messages).map(([k, v]) => `:${k}=>[${v.map((m) => JSON.stringify(m)).join(', ')}]`).join(', ')}}` });

/** read_internal_note: Planner and above (Reporter historically), administrators. */
export const canReadInternalNotes = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.PLANNER;
/** admin_note: the author, Maintainers and above (through the project), administrators; never a system note. */
export const canAdminNote = (caller: Caller, level: number, note: NoteRow) =>
  !note.system && (caller.isAdmin || level >= ACCESS.MAINTAINER || (caller.user != null && caller.user.id === note.authorId));
/** read_note of one note: an internal note needs read_internal_note (or to be its author). */
export const canReadNote = (caller: Caller, level: number, note: NoteRow) => !note.internal || canReadInternalNotes(caller, level) || note.authorId === caller.user?.id;

/**
 * NotesHelpers#find_noteable for an issue: NotesFinder#target runs
 * `IssuesFinder.new(current_user, project_id:).execute.find_by!(iid:)`, and the finder holds only
 * issues the caller may read, so a missing or hidden (confidential) issue raises RecordNotFound:
 * `404 Not found`, before `not_found!('Issue')` could answer.
 */
export async function findNoteableIssue(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number) {
  return findReadableIssue(c, caller, projectId, iid);
}

/**
 * NotesHelpers#find_noteable, with the route's `reads` in the same round trip (noteable.ts). For a
 * merge request, NotesFinder#target runs `MergeRequestsFinder.new(current_user, project_id:)
 * .execute.find_by!(iid:)`: the finder holds only merge requests the caller may read
 * (read_merge_request on the project), so a missing and a hidden one alike raise RecordNotFound:
 * `404 Not found`. Epics: `404 Epic Not Found`.
 */
export async function findNoteableForNotes<const Q extends readonly (BatchItem<'sqlite'> | undefined)[]>(c: Context<AppEnv>, caller: Caller, ref: NoteableRef, reads: (noteableId: SQL) => Q) {
  const found = await findNoteableWith(c, caller, ref, reads);
  if (!found.readable) throw recordNotFound();
  return found;
}

/**
 * IssuablePolicy `locked & ~is_project_member` prevents create_note, admin_note and award_emoji:
 * a locked discussion is open only to members (`project.member?`: Guest and above). Administrators
 * pass, as everywhere in this service.
 */
export const lockedOut = (caller: Caller, level: number, locked: boolean | null | undefined) => Boolean(locked) && !caller.isAdmin && level < ACCESS.GUEST;

/**
 * `noteable.notes.find(id)` of a note read in the noteable's lookup batch: 404 Not found unless the
 * note is on this noteable; an unreadable internal note is `404 Note Not Found`.
 */
export function readableNote(caller: Caller, level: number, note: NoteRow | undefined): NoteRow {
  if (!note) throw recordNotFound();
  if (!canReadNote(caller, level, note)) throw notFound('Note');
  return note;
}

/** The note `noteId` of the noteable whose id the SQL `noteableId` selects, for a lookup's batch. */
export const noteOfQuery = (c: Context<AppEnv>, type: NoteableType, noteableId: SQL, noteId: number) =>
  c.var.db
    .select()
    .from(notes)
    .where(and(eq(notes.id, Number.isSafeInteger(noteId) ? noteId : -1), eq(notes.noteableType, type), sql`${notes.noteableId} IN (${noteableId})`))
    .limit(1);

/** The users a Note entity shows (author, resolver) of the notes whose ids `noteIds` selects. */
export const noteUsersQuery = (c: Context<AppEnv>, noteIds: SQL) =>
  c.var.db
    .select()
    .from(users)
    .where(sql`${users.id} IN (SELECT n.author_id FROM notes n WHERE n.id IN (${noteIds}) UNION SELECT n.resolved_by_id FROM notes n WHERE n.id IN (${noteIds}))`);

/**
 * A note of the noteable with the noteable, its parent and the note's users in one round trip
 * (the checks of `find_noteable` and `noteable.notes.find`).
 */
export async function findNoteWith(c: Context<AppEnv>, caller: Caller, ref: NoteableRef, noteId: number) {
  const noteIds = sql`SELECT id FROM notes WHERE id = ${Number.isSafeInteger(noteId) ? noteId : -1}`;
  const found = await findNoteableForNotes(c, caller, ref, (noteableId) => [noteOfQuery(c, ref.type, noteableId, noteId), noteUsersQuery(c, noteIds)] as const);
  const [[row], people] = found.reads;
  return { ...found, note: readableNote(caller, found.level, row), people: people as UserRow[] };
}

/**
 * GET .../notes: `noteable.notes.with_notes_filter(activity_filter).reorder(order_by sort, id sort)`,
 * paginated, then only the notes the caller may read (here in SQL, so X-Total counts what is shown).
 * The page, its count and the page's users go in one round trip; answers the presented notes.
 */
export async function listNotesOf(
  c: Context<AppEnv>,
  caller: Caller,
  type: NoteableType,
  noteableId: number,
  level: number,
  p: { order_by: 'created_at' | 'updated_at'; sort: 'asc' | 'desc'; activity_filter: 'all_notes' | 'only_comments' | 'only_activity'; page?: number; per_page?: number },
  noteableIid: number | null,
) {
  const conds: (SQL | undefined)[] = [eq(notes.noteableType, type), eq(notes.noteableId, noteableId)];
  if (p.activity_filter === 'only_comments') conds.push(eq(notes.system, false));
  if (p.activity_filter === 'only_activity') conds.push(eq(notes.system, true));
  if (!canReadInternalNotes(caller, level)) conds.push(sql`(${notes.internal} = 0 OR ${notes.authorId} = ${caller.user?.id ?? 0})`);
  const dir = p.sort === 'asc' ? asc : desc;
  const col = p.order_by === 'updated_at' ? notes.updatedAt : notes.createdAt;
  const db = c.var.db;
  const raw = await requestParams(c);
  const req = pageRequest(p, raw.per_page);
  const where = and(...conds);
  const page = db.select().from(notes).where(where).orderBy(dir(col), dir(notes.id)).limit(req.perPage).offset(req.offset);
  const [rows, n, people] = await batchReads(db, [page, countUpToQuery(db, notes, where, MAX_COUNT + 1), noteUsersQuery(c, sql`SELECT id FROM (${page.getSQL()})`)]);
  const total = Number(n[0]?.n ?? 0);
  setPaginationHeaders(c, req, linkParamsFrom(raw, {}), total > MAX_COUNT ? null : total, rows.length);
  return presentNotes(c, rows, noteableIid, undefined, people as UserRow[]);
}

/**
 * Notes::UpdateService through `process_note_creation_result`: the body's length, and an internal
 * note stays internal and a public one public (Note validation "can not be changed for existing notes").
 */
export function checkNoteUpdate(note: NoteRow, p: { body?: string; confidential?: boolean }): void {
  const errors: Record<string, string[]> = {};
  checkText(errors, { note: p.body }, NOTE_TEXT);
  if (p.confidential !== undefined && p.confidential !== note.internal) errors.confidential = ['can not be changed for existing notes'];
  if (Object.keys(errors).length) throw noteError(errors);
}

/**
 * `after_save :touch_noteable` (Note): the noteable's updated_at follows the note, written in the
 * same batch as the note itself.
 */
export function touchNoteable(c: Context<AppEnv>, type: NoteableType, noteableId: number, at: number) {
  const db = c.var.db;
  if (type === 'MergeRequest') return db.update(mergeRequests).set({ updatedAt: at }).where(eq(mergeRequests.id, noteableId));
  if (type === 'Epic') return db.update(epics).set({ updatedAt: at }).where(eq(epics.id, noteableId));
  return db.update(issues).set({ updatedAt: at }).where(eq(issues.id, noteableId));
}

/** PUT .../notes/:note_id after the checks: a changed body is saved with last_edited_at and updated_by, touching the noteable. */
export async function saveNoteBody(c: Context<AppEnv>, user: UserRow, note: NoteRow, body: string | undefined): Promise<NoteRow> {
  const db = c.var.db;
  if (body === undefined || body === note.body) return note;
  const now = Date.now();
  const save = db.update(notes).set({ body, updatedAt: now, lastEditedAt: now, updatedById: user.id }).where(eq(notes.id, note.id)).returning();
  // A commit has no row to touch.
  const [rows] = (note.noteableType === 'Commit' ? await db.batch([save]) : await db.batch([save, touchNoteable(c, note.noteableType as NoteableType, note.noteableId, now)])) as unknown as [NoteRow[]];
  return rows[0] ?? note;
}

/** Notes::DestroyService: the note and its award emoji (`has_many :award_emoji, dependent: :destroy`) in one batch. */
export async function destroyNote(c: Context<AppEnv>, note: NoteRow): Promise<void> {
  const db = c.var.db;
  await db.batch([db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), eq(awardEmoji.awardableId, note.id))), db.delete(notes).where(eq(notes.id, note.id))]);
}

/**
 * Note entities. `known` users (read with the notes, or the caller) spare the users' read when
 * they cover every author and resolver.
 */
export async function presentNotes(c: Context<AppEnv>, rows: NoteRow[], noteableIid: number | null, commandsChanges?: Record<string, unknown>, known: UserRow[] = []) {
  const people = new Map<number, UserRow>(known.map((u) => [u.id, u]));
  const ids = [...new Set(rows.flatMap((n) => (n.resolvable && n.resolvedById != null ? [n.authorId, n.resolvedById] : [n.authorId])))].filter((id) => !people.has(id));
  for (let i = 0; i < ids.length; i += 90) for (const u of await c.var.db.select().from(users).where(inArray(users.id, ids.slice(i, i + 90))).all()) people.set(u.id, u);
  const base = baseUrl(c);
  const present = (id: number | null) => {
    const u = id != null ? people.get(id) : undefined;
    return u ? userBasic(u, { base }) : null;
  };
  return rows.map((n) => noteEntity(n, { author: present(n.authorId), resolvedBy: present(n.resolvedById), noteableIid, commandsChanges }));
}
