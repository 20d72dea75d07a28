/**
 * The Discussion entity (GitLab lib/api/entities/discussion.rb): its 40-hex id, whether it is an
 * individual note (a note not started as a thread: Discussion.build picks IndividualNoteDiscussion
 * for a note without type), and its notes as Note entities. Pure.
 */
import { z } from 'zod';
import { obj } from '../platform/response-schemas';
import { type Note, type NoteRow, NoteSchema } from './note-entity';

export const DiscussionSchema = obj({
  id: z.string(),
  individual_note: z.boolean(),
  notes: z.array(NoteSchema),
}).meta({ id: 'Discussion' });
export type Discussion = z.infer<typeof DiscussionSchema>;

/**
 * A note's discussion id. Notes written before discussions existed here (and system notes) have
 * none stored: theirs is derived from the note id, padded to GitLab's 40 hex digits, and the SQL
 * `discussionKeySql` (discussions.ts) derives the same.
 */
export const discussionIdOf = (n: Pick<NoteRow, 'id' | 'discussionId'>) => n.discussionId ?? n.id.toString(16).padStart(40, '0');

/** Notes::Note#discussion_class: a note without a type (an ordinary or system note) is a discussion of its own. */
export const isIndividual = (n: Pick<NoteRow, 'type'>) => n.type == null;

/** Discussion.build_collection: notes (in `fresh` order) grouped by discussion id, in order of their first note. */
export function discussionEntities(rows: NoteRow[], notes: Note[]): Discussion[] {
  const out = new Map<string, Discussion>();
  rows.forEach((n, i) => {
    const id = discussionIdOf(n);
    let d = out.get(id);
    if (!d) out.set(id, (d = { id, individual_note: isIndividual(n), notes: [] }));
    d.notes.push(notes[i]);
  });
  return [...out.values()];
}
