/**
 * Starting and replying to discussions (Notes::CreateService through discussions.rb's
 * `create_note`, Notes::BuildService for a reply): each is one batch with the noteable's touch.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { notes, repoCommitFiles, repoCommits } from '../db/schema';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { forbidden } from '../platform/errors';
import { randomIdHex } from '../platform/crypto';
import { recordEvent } from '../platform/events';
import { ACCESS } from '../projects/abilities';
import { manifestRows } from '../repository/repository';
import type { Manifest } from '../repository/repository-store';
import type { Discussion } from './discussion-entity';
import { checkPosition, type PositionParam, positionHash } from './diff-position';
import { findTarget, mayWriteOn, presentDiscussions, resolvableOn, type Target, type TargetRef } from './discussions';
import { isIndividual } from './discussion-entity';
import { noteBodyErrors, noteError, type NoteRow, touchNoteable } from './notes';

/**
 * The note hook event of a note this batch inserts (the outbox: it lands with the note or not at all).
 * Webhooks are project hooks, so notes on epics have none. A commit's notes are found by the commit
 * (their noteable id is 0), and their payload carries the commit (Gitlab::DataBuilder::Note).
 */
function noteEvent(c: Context<AppEnv>, t: Target, user: UserRow, internal: boolean) {
  if (!t.project || t.type === 'Epic') return [];
  const objectId =
    t.type === 'Commit'
      ? sql<number>`(SELECT max(id) FROM notes WHERE noteable_type = 'Commit' AND project_id = ${t.project.id} AND commit_id = ${t.commitId} AND author_id = ${user.id})`
      : sql<number>`(SELECT max(id) FROM notes WHERE noteable_type = ${t.type} AND noteable_id = ${t.id} AND author_id = ${user.id})`;
  return recordEvent(c, { kind: 'note', projectId: t.project.id, objectId, action: 'create', actorId: user.id, confidential: internal || Boolean(t.confidential) });
}

/** Discussion.discussion_id: SHA-1-sized random hex, as GitLab's ids look. */
export const newDiscussionId = () => randomIdHex(20);

/** set_note_created_at: owners (of the project or group) and administrators may backdate a note. */
const createdAtFor = (caller: Caller, t: Target, given: Date | number | undefined, now: number) =>
  given !== undefined && (caller.isAdmin || t.level >= ACCESS.OWNER) ? Number(given instanceof Date ? given.getTime() : given) : now;

/** The note's body checks of Notes::CreateService (blank, too long), as `bad_request!("Note {...}")`. */
function checkBody(body: string) {
  if (body.trim() === '') throw noteError({ note: ["can't be blank"] });
  const tooLong = noteBodyErrors(body);
  if (tooLong) throw noteError(tooLong);
}

const manifestOfRows = (rows: (typeof repoCommitFiles.$inferSelect)[]): Manifest => new Map(rows.map((r) => [r.path, { blobSha: r.blobSha, mode: r.mode, size: r.size }]));

/**
 * POST .../discussions: a DiscussionNote, or with `position` a DiffNote (type, position and the
 * line code it resolves to), in a new discussion. The position's commits and the file lists of its
 * base and head ride in the noteable's lookup, so a diff note costs that round trip and its write.
 */
export async function startDiscussion(
  c: Context<AppEnv>,
  caller: Caller,
  user: UserRow,
  ref: TargetRef,
  p: { body: string; created_at?: Date | number; position?: PositionParam; commit_id?: string },
): Promise<Discussion> {
  const db = c.var.db;
  const pos = p.position;
  const t = await findTarget(c, caller, ref, (_scope, projectId) =>
    pos && projectId
      ? [
          db.select({ sha: repoCommits.sha }).from(repoCommits).where(sql`${repoCommits.projectId} = ${projectId} AND ${inArray(repoCommits.sha, [pos.base_sha, pos.start_sha, pos.head_sha])}`),
          manifestRows(db, projectId, pos.base_sha),
          manifestRows(db, projectId, pos.head_sha),
        ]
      : [],
  );
  // create_note: `authorize!` before the note is built, so 403 comes before any validation error.
  if (!mayWriteOn(caller, t)) throw forbidden();
  const errors: Record<string, string[]> = {};
  if (p.body.trim() === '') errors.note = ["can't be blank"];
  else Object.assign(errors, noteBodyErrors(p.body) ?? {});
  let lineCode: string | null = null;
  if (pos) {
    const [known, base, head] = t.reads as [{ sha: string }[], (typeof repoCommitFiles.$inferSelect)[], (typeof repoCommitFiles.$inferSelect)[]];
    // DiffNote#supported?: a commit, or a merge request with complete diff refs (has_complete_diff_refs?).
    const supported = !t.mr || Boolean(t.mr.baseSha && t.mr.startSha && t.mr.headSha);
    const checked = await checkPosition(c, t.project!.id, pos, new Set(known.map((k) => k.sha)), supported, { base: manifestOfRows(base), head: manifestOfRows(head) });
    Object.assign(errors, checked.errors);
    // DiffNote#diff_refs_match_commit: a commit's note sits on the commit's own diff (its parent to it).
    if (t.type === 'Commit' && (pos.base_sha !== t.commitParent || pos.start_sha !== t.commitParent || pos.head_sha !== t.commitId)) errors.commit_id = ['does not match the diff refs'];
    lineCode = checked.lineCode;
  }
  if (Object.keys(errors).length) throw noteError(errors);
  const now = Date.now();
  const createdAt = createdAtFor(caller, t, p.created_at, now);
  const statements: BatchItem<'sqlite'>[] = [
    db
      .insert(notes)
      .values({
        noteableType: t.type,
        noteableId: t.id,
        projectId: t.project?.id ?? null,
        commitId: t.type === 'Commit' ? t.commitId : pos ? (p.commit_id ?? null) : null,
        authorId: user.id,
        body: p.body,
        type: pos ? 'DiffNote' : 'DiscussionNote',
        discussionId: newDiscussionId(),
        resolvable: resolvableOn(t),
        position: pos ? JSON.stringify(positionHash(pos)) : null,
        lineCode,
        createdAt,
        updatedAt: createdAt,
      })
      .returning(),
  ];
  if (t.type !== 'Commit') statements.push(touchNoteable(c, t.type, t.id, now));
  statements.push(...noteEvent(c, t, user, false));
  const [inserted] = (await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown as [NoteRow[]];
  return (await presentDiscussions(c, inserted, t, [user]))[0];
}

/**
 * POST .../discussions/:discussion_id/notes: Notes::BuildService with `in_reply_to_discussion_id`.
 * An individual note becomes a thread first (`convert_to_discussion!`: its type turns to
 * DiscussionNote, and on a merge request it becomes resolvable); a reply to a diff discussion is a
 * DiffNote on the same position (DiffDiscussion#reply_attributes); a reply to a resolved
 * discussion is resolved by its author (`note.resolve_without_save(current_user) if
 * discussion&.resolved?`), so the thread stays resolved.
 */
export async function replyToDiscussion(c: Context<AppEnv>, caller: Caller, user: UserRow, t: Target, discussionId: string, thread: NoteRow[], p: { body: string; created_at?: Date | number }): Promise<NoteRow> {
  checkBody(p.body);
  const first = thread[0];
  const resolvable = thread.filter((n) => n.resolvable);
  const resolved = resolvable.length > 0 && resolvable.every((n) => n.resolvedAt != null);
  const db = c.var.db;
  const now = Date.now();
  const createdAt = createdAtFor(caller, t, p.created_at, now);
  const diff = first.type === 'DiffNote';
  const statements: BatchItem<'sqlite'>[] = [];
  if (isIndividual(first)) statements.push(db.update(notes).set({ type: 'DiscussionNote', discussionId, resolvable: resolvableOn(t) }).where(eq(notes.id, first.id)));
  statements.push(
    db
      .insert(notes)
      .values({
        noteableType: t.type,
        noteableId: t.id,
        projectId: t.project?.id ?? null,
        commitId: t.type === 'Commit' ? t.commitId : diff ? first.commitId : null,
        authorId: user.id,
        body: p.body,
        // A reply to an internal note is internal (Notes::BuildService: `confidential: discussion.confidential?`).
        internal: first.internal,
        type: diff ? 'DiffNote' : 'DiscussionNote',
        discussionId,
        resolvable: resolvableOn(t),
        ...(resolved ? { resolvedAt: now, resolvedById: user.id } : {}),
        position: diff ? first.position : null,
        lineCode: diff ? first.lineCode : null,
        createdAt,
        updatedAt: createdAt,
      })
      .returning(),
  );
  if (t.type !== 'Commit') statements.push(touchNoteable(c, t.type, t.id, now));
  statements.push(...noteEvent(c, t, user, first.internal));
  const results = (await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[];
  return (results[isIndividual(first) ? 1 : 0] as NoteRow[])[0];
}
