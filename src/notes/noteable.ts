/**
 * NotesHelpers#find_noteable (and the awardable of helpers/award_emoji.rb) over the three
 * noteables: an issue of a project, a merge request of a project, an epic of a group. Each is
 * found with the lookup of its parent (findReadableIssueWith, findMergeRequestWith,
 * findReadableEpicWith), and the route's own `reads` over the noteable's id ride in that same
 * round trip (issue 13: a note's GET is one round trip once the caller is cached).
 */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { canReadMergeRequests, type ProjectRow } from '../projects/abilities';
import { findReadableEpicWith } from '../planning/epics';
import { findReadableIssueWith } from '../issues/issues';
import { findMergeRequestWith } from '../merge-requests/merge-request-access';
import type { MergeRequestRow } from '../merge-requests/merge-request-entity';

/** Which noteable a route names: its parent (project or group path or id) and its iid (the epic notes API: its id). */
export type NoteableRef =
  | { type: 'Issue'; projectId: string; iid: number }
  | { type: 'MergeRequest'; projectId: string; iid: number }
  | { type: 'Epic'; groupId: string; by: { iid: number } | { id: number } };

export interface Noteable {
  type: 'Issue' | 'MergeRequest' | 'Epic';
  id: number;
  /** `noteable_iid` of the Note entity: the issue's or merge request's iid; null for an epic. */
  iid: number | null;
  discussionLocked: boolean;
  /** A confidential issue (its notes go only to hooks that take confidential notes). */
  confidential: boolean;
  /** The issue's, merge request's or epic's author (IssuablePolicy `is_author`, NotePolicy `is_noteable_author`). */
  authorId: number;
  /** The merge request itself (its diff refs, its automatic merge), for a merge request. */
  mr: MergeRequestRow | null;
  /** The project of an issue or merge request (null for an epic). */
  project: ProjectRow | null;
  level: number;
  /**
   * read_merge_request (false for a guest of a private project's merge requests): each route
   * answers it in its own way. Issues and epics the caller may not read are a 404 already.
   */
  readable: boolean;
}

type Slot = BatchItem<'sqlite'> | undefined;
type SlotResult<T> = T extends PromiseLike<infer U> ? U : undefined;
export type SlotResults<Q extends readonly unknown[]> = { -readonly [K in keyof Q]: SlotResult<Q[K]> };

/** The present queries of `q` (skipped slots dropped), and how to put their results back in place. */
function compact<const Q extends readonly Slot[]>(q: Q) {
  const list = q.filter((x) => x !== undefined) as BatchItem<'sqlite'>[];
  const expand = (results: readonly unknown[]) => {
    let k = 0;
    return q.map((x) => (x === undefined ? undefined : results[k++])) as unknown as SlotResults<Q>;
  };
  return { list, expand };
}

/**
 * The noteable with the route's `reads` over its id (SQL usable as `IN (${noteableId})`; a
 * missing noteable matches nothing), in one round trip. Errors as each lookup answers them: 404
 * Project/Group Not Found, `404 Not found` for a missing (or hidden) issue or merge request,
 * `404 Epic Not Found`.
 */
export async function findNoteableWith<const Q extends readonly Slot[]>(c: Context<AppEnv>, caller: Caller, ref: NoteableRef, reads: (noteableId: SQL) => Q): Promise<Noteable & { reads: SlotResults<Q> }> {
  if (ref.type === 'Issue') {
    const found = await findReadableIssueWith(c, caller, ref.projectId, ref.iid, (issueId) => reads(issueId));
    const { issue } = found;
    return { type: 'Issue', id: issue.id, iid: issue.iid, discussionLocked: Boolean(issue.discussionLocked), confidential: Boolean(issue.confidential), authorId: issue.authorId, mr: null, project: found.project, level: found.level, readable: true, reads: found.reads as SlotResults<Q> };
  }
  if (ref.type === 'MergeRequest') {
    const found = await findMergeRequestWith(c, caller, ref.projectId, ref.iid, (mrId) => {
      const { list, expand } = compact(reads(mrId));
      return { list, unflatten: expand };
    });
    const { mr, project, level } = found;
    const readable = canReadMergeRequests(caller, project, level);
    return { type: 'MergeRequest', id: mr.id, iid: mr.iid, discussionLocked: Boolean(mr.discussionLocked), confidential: false, authorId: mr.authorId, mr, project, level, readable, reads: found.loaded! };
  }
  let expand: ((results: readonly unknown[]) => SlotResults<Q>) | undefined;
  const found = await findReadableEpicWith(c, caller, ref.groupId, ref.by, (epicId) => {
    const r = compact(reads(epicId));
    expand = r.expand;
    return r.list;
  });
  return { type: 'Epic', id: found.epic.id, iid: null, discussionLocked: false, confidential: Boolean(found.epic.confidential), authorId: found.epic.authorId, mr: null, project: null, level: found.level, readable: true, reads: expand!(found.reads) };
}
