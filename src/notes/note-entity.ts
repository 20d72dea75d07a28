/** The Note entity (GitLab lib/api/entities/note.rb; spec: Note). Pure. */
import type { notes } from '../db/schema';
import { iso } from '../platform/time';

export type NoteRow = typeof notes.$inferSelect;

export function noteEntity(
  n: NoteRow,
  x: { author: object | null; resolvedBy?: object | null; noteableIid: number | null; commandsChanges?: Record<string, unknown> },
) {
  return {
    id: n.id,
    type: n.type ?? null,
    body: n.body,
    attachment: null,
    author: x.author,
    created_at: iso(n.createdAt),
    updated_at: iso(n.updatedAt),
    system: n.system,
    noteable_id: n.noteableId,
    noteable_type: n.noteableType,
    project_id: n.projectId ?? null,
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
