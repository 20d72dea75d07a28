/**
 * Notes on issues (GitLab lib/api/notes.rb, helpers/notes_helpers.rb): list, get, create (with the
 * `/promote` quick action, spec: Issues), update, delete. notes.rb runs `authenticate!` for every route.
 */
import { eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { epics, issues, notes } from '../db/schema';
import { ACCESS } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden } from '../platform/errors';
import { requirePlan } from '../platform/plan';
import type { Router } from '../platform/router';
import { requireUser } from '../platform/guards';
import { createEpicNoteParams, createNoteParams, epicNoteRefParams, listEpicNotesParams, listNotesParams, noteRefParams, updateEpicNoteParams, updateNoteParams } from './notes-params';
import { promoteIssueToEpic } from '../planning/epics';
import {
  canAdminNote,
  canReadInternalNotes,
  checkNoteUpdate,
  destroyNote,
  findNoteableForNotes,
  findNoteWith,
  findNoteableIssue,
  lockedOut,
  listNotesOf,
  noteBodyErrors,
  noteError,
  presentNotes,
  saveNoteBody,
} from './notes';
import { extractQuickActions } from '../issuables/quick-actions';
import { mountMergeRequestNotes } from './merge-request-notes-routes';
import { mountDiscussions } from './discussions-routes';
import { NoteCommandsSchema, NoteSchema } from './note-entity';
import { z } from 'zod';

export function mountNotes(r: Router) {
  mountEpicNotes(r);
  mountMergeRequestNotes(r);
  mountDiscussions(r);
  r.route(
    { method: 'GET', path: '/projects/:id/issues/:issue_iid/notes', summary: 'List the notes of an issue', tags: ['notes'], params: listNotesParams, signedIn: true, responses: { 200: z.array(NoteSchema) } },
    async ({ c, p, caller }) => {
      const found = await findNoteableIssue(c, caller, p.id, p.issue_iid);
      return c.json(await listNotesOf(c, caller, 'Issue', found.issue.id, found.level, p, found.issue.iid));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/issues/:issue_iid/notes/:note_id', summary: 'Get a note of an issue', tags: ['notes'], params: noteRefParams, signedIn: true, responses: { 200: NoteSchema } },
    async ({ c, p, caller }) => {
      const found = await findNoteWith(c, caller, issueRef(p), p.note_id);
      return c.json((await presentNotes(c, [found.note], found.iid, undefined, found.people))[0]);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/issues/:issue_iid/notes',
      summary: 'Comment on an issue (the /promote quick action promotes it to an epic)',
      tags: ['notes'],
      params: createNoteParams,
      signedIn: true,
      rateLimit: 'notes_create',
      responses: { 201: NoteSchema, 202: NoteCommandsSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const found = await findNoteableIssue(c, caller, p.id, p.issue_iid);
      const { issue, project, level } = found;
      // IssuablePolicy: `locked & ~is_project_member` prevents create_note (any member, Guest and above, may comment).
      if (lockedOut(caller, level, issue.discussionLocked)) throw forbidden();
      const db = c.var.db;
      const now = Date.now();
      const actions = extractQuickActions(p.body);
      const body = actions.remainingBody;
      if (!actions.promote && p.body.trim() === '') throw noteError({ note: ["can't be blank"] });
      const tooLong = noteBodyErrors(p.body);
      if (tooLong) throw noteError(tooLong);

      const statements: BatchItem<'sqlite'>[] = [];
      if (actions.promote) {
        requirePlan(c.var.config, 'premium');
        const promoted = await promoteIssueToEpic(c, caller, found, now);
        statements.push(...promoted.statements);
      }
      if (actions.promote && body === '') {
        // Only quick actions, all applied: 202 with NoteCommands and nothing persisted as a comment.
        await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
        return c.json({ commands_changes: { promote_to_epic: true }, summary: ['Promoted issue to an epic.'] }, 202);
      }
      // set_note_created_at: project owners and administrators; mark_note_as_internal: Planner and above.
      const createdAt = p.created_at !== undefined && (caller.isAdmin || level >= ACCESS.OWNER) ? p.created_at : now;
      const internal = Boolean(p.internal ?? p.confidential) && canReadInternalNotes(caller, level);
      statements.push(
        db
          .insert(notes)
          .values({ noteableType: 'Issue', noteableId: issue.id, projectId: project.id, authorId: user.id, body, internal, createdAt, updatedAt: createdAt })
          .returning(),
        // Note belongs_to :noteable, touch: true.
        db.update(issues).set({ updatedAt: now }).where(eq(issues.id, issue.id)),
      );
      const results = (await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[];
      const inserted = (results[statements.length - 2] as (typeof notes.$inferSelect)[])[0];
      const commands = actions.promote ? { promote_to_epic: true } : {};
      // The author is the caller: nothing to read.
      return c.json((await presentNotes(c, [inserted], issue.iid, commands, [user]))[0], 201);
    },
  );

  r.route(
    { method: 'PUT', path: '/projects/:id/issues/:issue_iid/notes/:note_id', summary: 'Edit a note of an issue', tags: ['notes'], params: updateNoteParams, signedIn: true, responses: { 200: NoteSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const found = await findNoteWith(c, caller, issueRef(p), p.note_id);
      const { note } = found;
      if (!canAdminNote(caller, found.level, note)) throw forbidden();
      checkNoteUpdate(note, p);
      const row = await saveNoteBody(c, user, note, p.body);
      return c.json((await presentNotes(c, [row], found.iid, undefined, found.people))[0]);
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/issues/:issue_iid/notes/:note_id', summary: 'Delete a note of an issue', tags: ['notes'], params: noteRefParams, signedIn: true, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const { note, level } = await findNoteWith(c, caller, issueRef(p), p.note_id);
      if (!canAdminNote(caller, level, note)) throw forbidden();
      checkUnmodifiedSince(c, note.updatedAt);
      await destroyNote(c, note);
      return c.body(null, 204);
    },
  );
}

const issueRef = (p: { id: string; issue_iid: number }) => ({ type: 'Issue' as const, projectId: p.id, iid: p.issue_iid });
/** EE notes on epics: `noteable_id` is the epic's id (NotesHelpers target_id), in the group of the request. */
const epicRef = (p: { id: string; epic_id: number }) => ({ type: 'Epic' as const, groupId: p.id, by: { id: p.epic_id } });

export function mountEpicNotes(r: Router) {
  r.route(
    { method: 'GET', path: '/groups/:id/epics/:epic_id/notes', summary: 'List the notes of an epic', tags: ['notes'], params: listEpicNotesParams, signedIn: true, responses: { 200: z.array(NoteSchema) } },
    async ({ c, p, caller }) => {
      const { id, level } = await findNoteableForNotes(c, caller, epicRef(p), () => [] as const);
      return c.json(await listNotesOf(c, caller, 'Epic', id, level, p, null));
    },
  );

  r.route(
    { method: 'GET', path: '/groups/:id/epics/:epic_id/notes/:note_id', summary: 'Get a note of an epic', tags: ['notes'], params: epicNoteRefParams, signedIn: true, responses: { 200: NoteSchema } },
    async ({ c, p, caller }) => {
      const { note, people } = await findNoteWith(c, caller, epicRef(p), p.note_id);
      return c.json((await presentNotes(c, [note], null, undefined, people))[0]);
    },
  );

  // lib/api/notes.rb is generic over noteables: the same edit and delete rules as issue notes (admin_note).
  r.route(
    { method: 'PUT', path: '/groups/:id/epics/:epic_id/notes/:note_id', summary: 'Edit a note of an epic', tags: ['notes'], params: updateEpicNoteParams, signedIn: true, responses: { 200: NoteSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { level, note, people } = await findNoteWith(c, caller, epicRef(p), p.note_id);
      if (!canAdminNote(caller, level, note)) throw forbidden();
      checkNoteUpdate(note, p);
      const row = await saveNoteBody(c, user, note, p.body);
      return c.json((await presentNotes(c, [row], null, undefined, people))[0]);
    },
  );

  r.route(
    { method: 'DELETE', path: '/groups/:id/epics/:epic_id/notes/:note_id', summary: 'Delete a note of an epic', tags: ['notes'], params: epicNoteRefParams, signedIn: true, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const { level, note } = await findNoteWith(c, caller, epicRef(p), p.note_id);
      if (!canAdminNote(caller, level, note)) throw forbidden();
      checkUnmodifiedSince(c, note.updatedAt);
      await destroyNote(c, note);
      return c.body(null, 204);
    },
  );

  r.route(
    { method: 'POST', path: '/groups/:id/epics/:epic_id/notes', summary: 'Comment on an epic', tags: ['notes'], params: createEpicNoteParams, signedIn: true, rateLimit: 'notes_create', responses: { 201: NoteSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { id: epicId, level } = await findNoteableForNotes(c, caller, epicRef(p), () => [] as const);
      if (p.body.trim() === '') throw noteError({ note: ["can't be blank"] });
      const tooLong = noteBodyErrors(p.body);
      if (tooLong) throw noteError(tooLong);
      const now = Date.now();
      const createdAt = p.created_at !== undefined && (caller.isAdmin || level >= ACCESS.OWNER) ? p.created_at : now;
      const internal = Boolean(p.internal ?? p.confidential) && canReadInternalNotes(caller, level);
      const db = c.var.db;
      const [inserted] = (await db.batch([
        db.insert(notes).values({ noteableType: 'Epic', noteableId: epicId, projectId: null, authorId: user.id, body: p.body, internal, createdAt, updatedAt: createdAt }).returning(),
        db.update(epics).set({ updatedAt: now }).where(eq(epics.id, epicId)),
      ])) as unknown as [(typeof notes.$inferSelect)[]];
      return c.json((await presentNotes(c, [inserted[0]], null, undefined, [user]))[0], 201);
    },
  );
}
