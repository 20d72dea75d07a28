/** The Note entity (GitLab lib/api/entities/note.rb; spec: Note). Pure. */
import { z } from 'zod';
import type { notes } from '../db/schema';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { type UserBasic, UserBasicSchema } from '../users/user-entity';
import { type DiffPosition, DiffPositionSchema } from './diff-position-entity';

export type NoteRow = typeof notes.$inferSelect;

export const NoteSchema = obj({
  id,
  type: z.string().nullable(),
  body: z.string(),
  attachment: z.null(),
  author: UserBasicSchema.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  system: z.boolean(),
  /** null for a commit's note (GitLab keeps its commit_id instead). */
  noteable_id: int.nullable(),
  noteable_type: z.enum(['Issue', 'MergeRequest', 'Epic', 'Commit']),
  project_id: int.nullable(),
  /** A merge request's DiffNote only. */
  commit_id: z.string().nullable().optional(),
  /** DiffNotes only: Gitlab::Diff::Position#to_h. */
  position: DiffPositionSchema.optional(),
  resolvable: z.boolean(),
  /** Resolvable notes only. */
  resolved: z.boolean().optional(),
  resolved_by: UserBasicSchema.nullable().optional(),
  resolved_at: timestamp.nullable().optional(),
  confidential: z.boolean(),
  internal: z.boolean(),
  imported: z.boolean(),
  imported_from: z.string(),
  noteable_iid: int.nullable(),
  /** What the note's quick actions changed (free-form, as GitLab's commands_changes hash). */
  commands_changes: z.record(z.string(), z.unknown()),
}).meta({ id: 'Note' });
export type Note = z.infer<typeof NoteSchema>;

/** A note that was only quick actions (`/promote`): what they changed, answered 202 (notes.rb `present note.errors...`). */
export const NoteCommandsSchema = obj({ commands_changes: z.record(z.string(), z.unknown()), summary: z.array(z.string()) }).meta({ id: 'NoteCommands' });

export function noteEntity(
  n: NoteRow,
  x: { author: UserBasic | null; resolvedBy?: UserBasic | null; noteableIid: number | null; commandsChanges?: Record<string, unknown> },
): Note {
  return {
    id: n.id,
    type: n.type ?? null,
    body: n.body,
    attachment: null,
    author: x.author,
    created_at: iso(n.createdAt),
    updated_at: iso(n.updatedAt),
    system: n.system,
    noteable_id: n.noteableType === 'Commit' ? null : n.noteableId,
    noteable_type: n.noteableType as Note['noteable_type'],
    project_id: n.projectId ?? null,
    ...(n.type === 'DiffNote' && n.noteableType === 'MergeRequest' ? { commit_id: n.commitId ?? null } : {}),
    ...(n.type === 'DiffNote' ? { position: JSON.parse(n.position ?? 'null') as DiffPosition } : {}),
    resolvable: n.resolvable,
    // resolved, resolved_by, resolved_at: exposed only `if: note.resolvable?`.
    ...(n.resolvable ? { resolved: n.resolvedAt != null, resolved_by: x.resolvedBy ?? null, resolved_at: iso(n.resolvedAt) } : {}),
    confidential: n.internal,
    internal: n.internal,
    imported: false,
    imported_from: 'none',
    noteable_iid: x.noteableIid,
    commands_changes: x.commandsChanges ?? {},
  };
}
