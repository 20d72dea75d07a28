/**
 * Discussions on issues, merge requests, epics and commits (GitLab lib/api/discussions.rb,
 * `before { authenticate! }`): list, get, start, reply, and a discussion note's get, edit (or
 * resolve) and delete; resolving a whole discussion on merge requests (Noteable.resolvable_types).
 * The same routes for each noteable kind, as discussions.rb builds them in a loop:
 *
 *   /projects/:id/issues/:issue_iid/discussions[/:discussion_id[/notes[/:note_id]]]
 *   /projects/:id/merge_requests/:merge_request_iid/discussions[/:discussion_id[/notes[/:note_id]]]
 *   /groups/:id/epics/:epic_id/discussions[/:discussion_id[/notes[/:note_id]]]
 *   /projects/:id/repository/commits/:sha/discussions[/:discussion_id[/notes[/:note_id]]]
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { notes } from '../db/schema';
import { checkUnmodifiedSince } from '../platform/conditional';
import { badRequest, forbidden } from '../platform/errors';
import { requireUser } from '../platform/guards';
import type { Router } from '../platform/router';
import { g } from '../platform/validate';
import { discussionParams } from './discussions-params';
import { DiscussionSchema } from './discussion-entity';
import { type Target, type TargetRef, canReplyTo, canResolve, discussionNotesQuery, discussionUsersQuery, findTarget, listDiscussions, mayWriteOn, notesByIds, presentDiscussions, readableDiscussion, setResolved } from './discussions';
import { startDiscussion, replyToDiscussion } from './discussion-writes';
import { NoteSchema } from './note-entity';
import type { PositionParam } from './diff-position';
import { canAdminNote, canReadNote, checkNoteUpdate, destroyNote, noteUsersQuery, type NoteRow, presentNotes, readableNote, saveNoteBody } from './notes';
import type { UserRow } from '../platform/context';
import { autoMergeIfReady } from '../merge-requests/merge';

interface Kind {
  /** The noteable's path, GitLab's `:id/<noteables_path>/:noteable_id`. */
  base: string;
  /** Its path parameter. */
  param: string;
  name: string;
  ref: (p: Record<string, unknown>) => TargetRef;
  numeric: boolean;
  /** `optional :position` (Commit and MergeRequest). */
  position: boolean;
  /** Noteable.resolvable_types: the discussion resolve route. */
  resolvable: boolean;
}

const KINDS: Kind[] = [
  { base: '/projects/:id/issues/:issue_iid', param: 'issue_iid', name: 'issue', numeric: true, position: false, resolvable: false, ref: (p) => ({ type: 'Issue', projectId: p.id as string, iid: p.issue_iid as number }) },
  { base: '/projects/:id/merge_requests/:merge_request_iid', param: 'merge_request_iid', name: 'merge request', numeric: true, position: true, resolvable: true, ref: (p) => ({ type: 'MergeRequest', projectId: p.id as string, iid: p.merge_request_iid as number }) },
  // EE: an epic's discussions name it by id, as its notes do (NotesHelpers target_id).
  { base: '/groups/:id/epics/:epic_id', param: 'epic_id', name: 'epic', numeric: true, position: false, resolvable: false, ref: (p) => ({ type: 'Epic', groupId: p.id as string, by: { id: p.epic_id as number } }) },
  // `noteables_path = "repository/commits"`, `notable_id_type = String`.
  { base: '/projects/:id/repository/commits/:sha', param: 'sha', name: 'commit', numeric: false, position: true, resolvable: false, ref: (p) => ({ type: 'Commit', projectId: p.id as string, sha: p.sha as string }) },
];

const TAGS = ['discussions'];

export function mountDiscussions(r: Router) {
  for (const kind of KINDS) mountKind(r, kind);
}

/** A note of the noteable (`noteable.notes.find(note_id)`, whatever discussion the path names) and its users, read with the lookup. */
const noteReads = (c: Parameters<typeof noteUsersQuery>[0], noteId: number) => (scope: ReturnType<typeof sql>) =>
  [
    c.var.db.select().from(notes).where(and(scope, eq(notes.id, Number.isSafeInteger(noteId) ? noteId : -1))).limit(1),
    noteUsersQuery(c, sql`SELECT ${Number.isSafeInteger(noteId) ? noteId : -1}`),
  ] as const;

function mountKind(r: Router, kind: Kind) {
  const P = discussionParams(kind.param, kind.numeric ? g.int() : g.string(), kind.position);
  const path = `${kind.base}/discussions`;
  const ref = (p: object) => kind.ref(p as Record<string, unknown>);
  const found = (t: Target & { reads: unknown[] }) => t.reads as [NoteRow[], UserRow[]];

  r.route({ method: 'GET', path, summary: `List the discussions of a ${kind.name}`, tags: TAGS, params: P.list, signedIn: true, responses: { 200: z.array(DiscussionSchema) } }, async ({ c, p, caller }) => {
    const t = await findTarget(c, caller, ref(p), () => []);
    return c.json(await listDiscussions(c, caller, t, p));
  });

  r.route(
    { method: 'GET', path: `${path}/:discussion_id`, summary: `Get a discussion of a ${kind.name}`, tags: TAGS, params: P.one, signedIn: true, responses: { 200: DiscussionSchema } },
    async ({ c, p, caller }) => {
      const t = await findTarget(c, caller, ref(p), (scope) => [discussionNotesQuery(c, scope, p.discussion_id), discussionUsersQuery(c, scope, p.discussion_id)]);
      const [rows, people] = found(t);
      return c.json((await presentDiscussions(c, readableDiscussion(caller, t, rows), t, people))[0]);
    },
  );

  r.route(
    {
      method: 'POST', path, summary: `Start a discussion on a ${kind.name}${kind.position ? ' (a position makes it a diff note)' : ''}`, tags: TAGS, params: P.create, signedIn: true,
      responses: { 201: DiscussionSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const created = await startDiscussion(c, caller, user, ref(p), p as typeof p & { position?: PositionParam; commit_id?: string });
      return c.json(created, 201);
    },
  );

  r.route(
    { method: 'GET', path: `${path}/:discussion_id/notes`, summary: `List the notes of a discussion of a ${kind.name}`, tags: TAGS, params: P.one, signedIn: true, responses: { 200: z.array(NoteSchema) } },
    async ({ c, p, caller }) => {
      const t = await findTarget(c, caller, ref(p), (scope) => [discussionNotesQuery(c, scope, p.discussion_id), discussionUsersQuery(c, scope, p.discussion_id)]);
      const [rows, people] = found(t);
      // `not_found!("Notes")` when none is left.
      return c.json(await presentNotes(c, readableDiscussion(caller, t, rows, 'Notes'), t.iid, undefined, people));
    },
  );

  r.route(
    {
      method: 'POST', path: `${path}/:discussion_id/notes`, summary: `Reply to a discussion of a ${kind.name}`, tags: TAGS, params: P.reply, signedIn: true,
      responses: { 201: NoteSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const t = await findTarget(c, caller, ref(p), (scope) => [discussionNotesQuery(c, scope, p.discussion_id)]);
      const rows = readableDiscussion(caller, t, found(t)[0]);
      if (!canReplyTo(t, rows[0])) throw badRequest('Discussion can not be replied to.');
      if (!mayWriteOn(caller, t)) throw forbidden();
      const note = await replyToDiscussion(c, caller, user, t, p.discussion_id, rows, p);
      return c.json((await presentNotes(c, [note], t.iid, undefined, [user]))[0], 201);
    },
  );

  r.route(
    { method: 'GET', path: `${path}/:discussion_id/notes/:note_id`, summary: `Get a note of a discussion of a ${kind.name}`, tags: TAGS, params: P.note, signedIn: true, responses: { 200: NoteSchema } },
    async ({ c, p, caller }) => {
      const t = await findTarget(c, caller, ref(p), noteReads(c, p.note_id));
      const [[row], people] = found(t);
      return c.json((await presentNotes(c, [readableNote(caller, t.level, row)], t.iid, undefined, people))[0]);
    },
  );

  r.route(
    {
      method: 'PUT', path: `${path}/:discussion_id/notes/:note_id`, summary: `Edit or resolve a note of a discussion of a ${kind.name}`, tags: TAGS, params: P.updateNote, signedIn: true,
      responses: { 200: NoteSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const t = await findTarget(c, caller, ref(p), noteReads(c, p.note_id));
      const [[row], people] = found(t);
      const note = readableNote(caller, t.level, row);
      if (p.resolved === undefined) {
        // update_note: `authorize! :admin_note`.
        if (!canAdminNote(caller, t.level, note) || !mayWriteOn(caller, t)) throw forbidden();
        checkNoteUpdate(note, { body: p.body });
        const saved = await saveNoteBody(c, user, note, p.body);
        return c.json((await presentNotes(c, [saved], t.iid, undefined, people))[0]);
      }
      // resolve_note: `authorize! :resolve_note, note`, then `bad_request!("Note is not resolvable")`.
      if (!canResolve(caller, t, note.authorId) || !canReadNote(caller, t.level, note)) throw forbidden();
      if (!note.resolvable) throw badRequest('Note is not resolvable');
      const [rows, users] = (await setResolved(c, user, sql`${note.id}`, p.resolved, notesByIds(c, [note.id]))) as unknown as [NoteRow[], UserRow[]];
      return c.json((await presentNotes(c, rows, t.iid, undefined, users))[0]);
    },
  );

  r.route(
    { method: 'DELETE', path: `${path}/:discussion_id/notes/:note_id`, summary: `Delete a note of a discussion of a ${kind.name}`, tags: TAGS, params: P.note, signedIn: true, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const t = await findTarget(c, caller, ref(p), noteReads(c, p.note_id));
      const note = readableNote(caller, t.level, found(t)[0][0]);
      // delete_note: `authorize! :admin_note`.
      if (!canAdminNote(caller, t.level, note) || !mayWriteOn(caller, t)) throw forbidden();
      checkUnmodifiedSince(c, note.updatedAt);
      await destroyNote(c, note);
      return c.body(null, 204);
    },
  );

  if (!kind.resolvable) return;
  r.route(
    { method: 'PUT', path: `${path}/:discussion_id`, summary: `Resolve or unresolve a discussion of a ${kind.name}`, tags: TAGS, params: P.resolve, signedIn: true, responses: { 200: DiscussionSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const t = await findTarget(c, caller, ref(p), (scope) => [discussionNotesQuery(c, scope, p.discussion_id)]);
      // noteable.find_discussion: every note of the discussion (none: there is nothing to resolve).
      const all = readableDiscussion({ ...caller, isAdmin: true }, t, found(t)[0]);
      // `forbidden! unless discussion.can_resolve?(current_user)`: resolvable, and the caller may resolve.
      if (!all.some((n) => n.resolvable) || !canResolve(caller, t)) throw forbidden();
      const ids = all.map((n) => n.id);
      const reads: readonly BatchItem<'sqlite'>[] = notesByIds(c, ids);
      const [rows, users] = (await setResolved(c, user, sql`SELECT value FROM json_each(${JSON.stringify(ids)})`, p.resolved, reads)) as unknown as [NoteRow[], UserRow[]];
      await afterResolve(c, t, p.resolved);
      return c.json((await presentDiscussions(c, rows.filter((n) => canReadNote(caller, t.level, n)), t, users))[0]);
    },
  );
}

/** Discussions::ResolveService: a merge request set to merge automatically may now pass its checks. */
async function afterResolve(c: Parameters<typeof noteUsersQuery>[0], t: Target, resolved: boolean) {
  if (resolved && t.mr?.mergeWhenPipelineSucceeds) await autoMergeIfReady(c, t.mr.id);
}
