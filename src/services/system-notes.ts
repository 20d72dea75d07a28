/**
 * System notes: the server's own notes recording a change (GitLab app/services/system_notes/
 * issuables_service.rb). Written as insert builders so they join the db.batch of the change.
 * Milestone, label, state and weight changes are resource events in GitLab, not notes.
 */
import type { SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { notes } from '../db/schema';

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

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** change_start_date_or_due_date: "changed due date to January 31, 2030" / "removed due date". */
export function dueDateNote(date: string | null): string {
  if (!date) return 'removed due date';
  const [y, m, d] = date.split('-').map(Number);
  return `changed due date to ${MONTHS[m - 1]} ${d}, ${y}`;
}

/** change_issuable_assignees: "assigned to @a and @b and unassigned @c". */
export function assigneesNote(added: string[], removed: string[]): string | null {
  const join = (names: string[]) => names.map((u) => `@${u}`).join(' and ');
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${join(added)}`);
  if (removed.length) parts.push(`unassigned ${join(removed)}`);
  return parts.length ? parts.join(' and ') : null;
}

export const titleNote = (from: string, to: string) => `changed title from **${from}** to **${to}**`;
export const DESCRIPTION_NOTE = 'changed the description';
export const confidentialityNote = (confidential: boolean) => (confidential ? 'made the issue confidential' : 'made the issue visible to everyone');
export const discussionLockNote = (locked: boolean) => `${locked ? 'locked' : 'unlocked'} the discussion in this issue`;
export const issueTypeNote = (from: string, to: string) => `changed type from ${from.replace('_', ' ')} to ${to.replace('_', ' ')}`;
