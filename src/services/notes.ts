/** Notes on issues: lookup, visibility of internal notes, presentation of a page in two queries. */
import { and, eq, inArray } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../context';
import { notes, users } from '../db/schema';
import { type NoteRow, noteEntity } from '../entities/note';
import { userBasic } from '../entities/user';
import { ACCESS } from '../lib/abilities';
import { ApiError, notFound, recordNotFound } from '../lib/errors';
import { baseUrl } from '../lib/pagination';
import { findReadableIssue, type IssueRow } from './issues';

export type { NoteRow };

/** read_internal_note: Planner and above (Reporter historically), administrators. */
export const canReadInternalNotes = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.PLANNER;
/** admin_note: the author, Maintainers and above (through the project), administrators; never a system note. */
export const canAdminNote = (caller: Caller, level: number, note: NoteRow) =>
  !note.system && (caller.isAdmin || level >= ACCESS.MAINTAINER || (caller.user != null && caller.user.id === note.authorId));

/** NotesHelpers#find_noteable: a missing or hidden issue is `404 Issue Not Found` here (not_found!(noteable_type)). */
export async function findNoteableIssue(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number) {
  try {
    return await findReadableIssue(c, caller, projectId, iid);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && JSON.stringify(err.body) === JSON.stringify({ message: '404 Not found' })) throw notFound('Issue');
    throw err;
  }
}

/** `noteable.notes.find(id)`: 404 Not found unless the note is on this issue; an unreadable internal note is `404 Note Not Found`. */
export async function findIssueNote(c: Context<AppEnv>, caller: Caller, issue: IssueRow, level: number, noteId: number): Promise<NoteRow> {
  const note = Number.isSafeInteger(noteId)
    ? await c.var.db.select().from(notes).where(and(eq(notes.id, noteId), eq(notes.noteableType, 'Issue'), eq(notes.noteableId, issue.id))).get()
    : undefined;
  if (!note) throw recordNotFound();
  if (note.internal && !canReadInternalNotes(caller, level) && note.authorId !== caller.user?.id) throw notFound('Note');
  return note;
}

export async function presentNotes(c: Context<AppEnv>, rows: NoteRow[], noteableIid: number | null, commandsChanges?: Record<string, unknown>) {
  const ids = [...new Set(rows.map((n) => n.authorId))];
  const authors = new Map<number, UserRow>();
  for (let i = 0; i < ids.length; i += 90) for (const u of await c.var.db.select().from(users).where(inArray(users.id, ids.slice(i, i + 90))).all()) authors.set(u.id, u);
  const base = baseUrl(c);
  return rows.map((n) => {
    const a = authors.get(n.authorId);
    return noteEntity(n, { author: a ? userBasic(a, { base }) : null, noteableIid, commandsChanges });
  });
}
