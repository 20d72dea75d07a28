/**
 * Notes on merge requests (GitLab lib/api/notes.rb with noteable_type MergeRequest,
 * helpers/notes_helpers.rb): list, get, create, edit, delete. `authenticate!` for every route.
 * Merge request notes may be internal as issue notes (Note validation allows MergeRequest).
 * Quick actions in the body are not run: the body is stored as written.
 */
import { sql } from 'drizzle-orm';
import type { Caller } from '../platform/context';
import { notes } from '../db/schema';
import { ACCESS, type ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden } from '../platform/errors';
import type { Router } from '../platform/router';
import { requireUser } from '../platform/guards';
import { createMergeRequestNoteParams, listMergeRequestNotesParams, mergeRequestNoteRefParams, updateMergeRequestNoteParams } from './notes-params';
import {
  canAdminNote,
  canReadInternalNotes,
  checkNoteUpdate,
  destroyNote,
  findNoteableForNotes,
  findNoteWith,
  listNotesOf,
  lockedOut,
  noteBodyErrors,
  noteError,
  type NoteRow,
  presentNotes,
  saveNoteBody,
  touchNoteable,
} from './notes';
import { NoteSchema } from './note-entity';
import { z } from 'zod';
import { recordEvent } from '../platform/events';

/**
 * create_note and admin_note on a merge request note: ProjectPolicy `archived` prevents the note
 * abilities (ArchivedAbilities::ARCHIVED_FEATURES has :note), IssuablePolicy refuses non-members
 * on a locked discussion.
 */
const mayWriteNotes = (caller: Caller, project: ProjectRow, level: number, mr: { discussionLocked: boolean }) =>
  !project.archived && !lockedOut(caller, level, mr.discussionLocked);

const mrRef = (p: { id: string; merge_request_iid: number }) => ({ type: 'MergeRequest' as const, projectId: p.id, iid: p.merge_request_iid });

export function mountMergeRequestNotes(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/notes',
      summary: 'List the notes of a merge request',
      tags: ['notes'],
      params: listMergeRequestNotesParams,
      signedIn: true,
      responses: { 200: z.array(NoteSchema) },
    },
    async ({ c, p, caller }) => {
      const { id, iid, level } = await findNoteableForNotes(c, caller, mrRef(p), () => [] as const);
      return c.json(await listNotesOf(c, caller, 'MergeRequest', id, level, p, iid));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id',
      summary: 'Get a note of a merge request',
      tags: ['notes'],
      params: mergeRequestNoteRefParams,
      signedIn: true,
      responses: { 200: NoteSchema },
    },
    async ({ c, p, caller }) => {
      const { iid, note, people } = await findNoteWith(c, caller, mrRef(p), p.note_id);
      return c.json((await presentNotes(c, [note], iid, undefined, people))[0]);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/merge_requests/:merge_request_iid/notes',
      summary: 'Comment on a merge request',
      tags: ['notes'],
      params: createMergeRequestNoteParams,
      signedIn: true,
      rateLimit: 'notes_create',
      responses: { 201: NoteSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const mr = await findNoteableForNotes(c, caller, mrRef(p), () => [] as const);
      const { level } = mr;
      const project = mr.project!;
      // create_note: `authorize!` before the note is built, so 403 comes before any validation error.
      if (!mayWriteNotes(caller, project, level, mr)) throw forbidden();
      if (p.body.trim() === '') throw noteError({ note: ["can't be blank"] });
      const tooLong = noteBodyErrors(p.body);
      if (tooLong) throw noteError(tooLong);
      const now = Date.now();
      // set_note_created_at: project owners and administrators; mark_note_as_internal: read_internal_note.
      const createdAt = p.created_at !== undefined && (caller.isAdmin || level >= ACCESS.OWNER) ? p.created_at : now;
      const internal = Boolean(p.internal ?? p.confidential) && canReadInternalNotes(caller, level);
      const db = c.var.db;
      const [inserted] = (await db.batch([
        db.insert(notes).values({ noteableType: 'MergeRequest', noteableId: mr.id, projectId: project.id, authorId: user.id, body: p.body, internal, createdAt, updatedAt: createdAt }).returning(),
        touchNoteable(c, 'MergeRequest', mr.id, now),
        ...recordEvent(c, { kind: 'note', projectId: project.id, objectId: sql`(SELECT max(id) FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = ${mr.id} AND author_id = ${user.id})`, action: 'create', actorId: user.id, confidential: internal }),
      ])) as unknown as [NoteRow[]];
      return c.json((await presentNotes(c, [inserted[0]], mr.iid, undefined, [user]))[0], 201);
    },
  );

  r.route(
    {
      method: 'PUT',
      path: '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id',
      summary: 'Edit a note of a merge request',
      tags: ['notes'],
      params: updateMergeRequestNoteParams,
      signedIn: true,
      responses: { 200: NoteSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const mr = await findNoteWith(c, caller, mrRef(p), p.note_id);
      const { level, note } = mr;
      if (!canAdminNote(caller, level, note) || !mayWriteNotes(caller, mr.project!, level, mr)) throw forbidden();
      checkNoteUpdate(note, p);
      const row = await saveNoteBody(c, user, note, p.body);
      return c.json((await presentNotes(c, [row], mr.iid, undefined, mr.people))[0]);
    },
  );

  r.route(
    {
      method: 'DELETE',
      path: '/projects/:id/merge_requests/:merge_request_iid/notes/:note_id',
      summary: 'Delete a note of a merge request',
      tags: ['notes'],
      params: mergeRequestNoteRefParams,
      signedIn: true,
      responses: { 204: null },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const mr = await findNoteWith(c, caller, mrRef(p), p.note_id);
      const { level, note } = mr;
      if (!canAdminNote(caller, level, note) || !mayWriteNotes(caller, mr.project!, level, mr)) throw forbidden();
      checkUnmodifiedSince(c, note.updatedAt);
      await destroyNote(c, note);
      return c.body(null, 204);
    },
  );
}
