/**
 * System notes: the server's own notes recording a change (GitLab app/services/system_notes/
 * issuables_service.rb). Written as insert builders so they join the db.batch of the change.
 * Milestone, label, state and weight changes are resource events in GitLab, not notes.
 */
import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { notes } from '../db/schema';
import { charDiffRanges, markRanges } from './char-diff';

export function systemNoteInsert(
  db: Db,
  n: { noteableType: 'Issue' | 'Epic' | 'MergeRequest'; noteableId: number | SQL<number>; projectId: number | null; authorId: number; body: string; at: number },
) {
  return db.insert(notes).values({
    noteableType: n.noteableType,
    noteableId: n.noteableId,
    projectId: n.projectId,
    authorId: n.authorId,
    body: n.body,
    system: true,
    createdAt: n.at,
    updatedAt: n.at,
  });
}

/**
 * The same system note, written only when `when` holds as the batch reaches it (for a note that
 * belongs to a write another statement of the batch may have lost to a concurrent request).
 */
export function systemNoteInsertWhen(
  db: Db,
  n: { noteableType: 'Issue' | 'Epic' | 'MergeRequest'; noteableId: number; projectId: number | null; authorId: number; body: string; at: number },
  when: SQL,
) {
  const values: Record<string, unknown> = { noteableType: n.noteableType, noteableId: n.noteableId, projectId: n.projectId, authorId: n.authorId, body: n.body, system: 1, createdAt: n.at, updatedAt: n.at };
  // INSERT … SELECT lists every column (D1 batches take query builders, not raw statements):
  // the given values, column defaults, NULL for the rest (the id included).
  const fields = Object.entries(getTableColumns(notes)).map(([key, col]) => {
    if (key in values) return sql`${values[key]}`;
    if (col.hasDefault && col.default !== undefined) return sql`${typeof col.default === 'boolean' ? Number(col.default) : col.default}`;
    return sql`NULL`;
  });
  return db.insert(notes).select(sql`SELECT ${sql.join(fields, sql`, `)} WHERE ${when}`);
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** change_start_date_or_due_date: "changed due date to January 31, 2030" / "removed due date". */
export function dueDateNote(date: string | null): string {
  if (!date) return 'removed due date';
  const [y, m, d] = date.split('-').map(Number);
  return `changed due date to ${MONTHS[m - 1]} ${d}, ${y}`;
}

/** Array#to_sentence (Rails, English): "a", "a and b", "a, b, and c". */
export function toSentence(items: string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** change_issuable_assignees: "assigned to @a, @b, and @c and unassigned @d". */
export function assigneesNote(added: string[], removed: string[]): string | null {
  const join = (names: string[]) => toSentence(names.map((u) => `@${u}`));
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${join(added)}`);
  if (removed.length) parts.push(`unassigned ${join(removed)}`);
  return parts.length ? parts.join(' and ') : null;
}

/**
 * change_title: "changed title from **Old {-x-}** to **Old {+y+}**", each title marked with its
 * character-level changes (Gitlab::Diff::InlineDiff -> CharDiff -> InlineDiffMarkdownMarker).
 */
export function titleNote(from: string, to: string): string {
  const [oldRanges, newRanges] = charDiffRanges(from, to);
  return `changed title from **${markRanges(from, oldRanges, '-')}** to **${markRanges(to, newRanges, '+')}**`;
}

export const DESCRIPTION_NOTE = 'changed the description';
export const confidentialityNote = (confidential: boolean) => (confidential ? 'made the issue confidential' : 'made the issue visible to everyone');
export const discussionLockNote = (locked: boolean) => `${locked ? 'locked' : 'unlocked'} the discussion in this issue`;
export const issueTypeNote = (from: string, to: string) => `changed type from ${from.replace('_', ' ')} to ${to.replace('_', ' ')}`;
