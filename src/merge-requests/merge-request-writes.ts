/**
 * What creating and updating a merge request share (MergeRequests::BaseService, MergeRequest
 * validations): title and description limits, branch names, the one-open-request-per-branches rule
 * and the assignees or reviewers a request may get.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { mergeRequests, users } from '../db/schema';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { ApiError } from '../platform/errors';
import { canReadMergeRequests, type NamespaceRow, projectAccess, type ProjectRow } from '../projects/abilities';

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1_048_576;

/** 409 `Another open merge request already exists for this source branch: !n` (MergeRequest#validate_branches). */
export async function assertNoOpenMergeRequest(c: Context<AppEnv>, projectId: number, source: string, target: string, exceptId?: number) {
  const other = await c.var.db
    .select({ iid: mergeRequests.iid })
    .from(mergeRequests)
    .where(
      and(
        eq(mergeRequests.projectId, projectId),
        eq(mergeRequests.sourceProjectId, projectId),
        eq(mergeRequests.sourceBranch, source),
        eq(mergeRequests.targetBranch, target),
        inArray(mergeRequests.state, ['opened', 'locked']),
        exceptId != null ? sql`${mergeRequests.id} <> ${exceptId}` : undefined,
      ),
    )
    .get();
  if (other) throw new ApiError(409, { message: [`Another open merge request already exists for this source branch: !${other.iid}`] });
}

/** Gitlab::GitRefValidator.validate_merge_request_branch (git check-ref-format rules). */
export function validBranchName(name: string): boolean {
  if (!name || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  if (name === '@' || name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return false;
  if (/^refs\/(heads|remotes|tags)\//.test(name) || name === 'HEAD') return false;
  return true;
}

/** The title and description validations of Issuable (presence, length), by attribute. */
export function textErrors(f: { title?: string; description?: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (f.title !== undefined) {
    if (f.title.trim() === '') errors.title = ["can't be blank"];
    else if ([...f.title].length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
  }
  if (f.description != null && f.description.length > DESCRIPTION_MAX) errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`];
  return errors;
}

/** `assignee_id` replaces `assignee_ids` (convert_parameters_from_legacy_format); the free edition keeps one. */
export function requestedAssignees(p: { assignee_ids?: number[]; assignee_id?: number }, premium: boolean): number[] | undefined {
  const ids = p.assignee_id !== undefined ? [p.assignee_id] : p.assignee_ids;
  if (ids === undefined) return undefined;
  return premium ? ids : ids.slice(0, 1);
}

/**
 * IssuableBaseService#filter_assignees_using_checks for merge requests: `[]` or `[0]` clears;
 * otherwise only active users who may read the project's merge requests are kept, and when none is
 * left the parameter is dropped (undefined).
 */
export async function assignableUsers(c: Context<AppEnv>, project: ProjectRow, ns: NamespaceRow, ids: number[] | undefined): Promise<number[] | undefined> {
  if (ids === undefined) return undefined;
  if (ids.length === 0 || (ids.length === 1 && ids[0] === 0)) return [];
  const wanted = [...new Set(ids)].filter((id) => id > 0).slice(0, 100);
  const rows: UserRow[] = [];
  for (let i = 0; i < wanted.length; i += 90) rows.push(...(await c.var.db.select().from(users).where(inArray(users.id, wanted.slice(i, i + 90))).all()));
  const byId = new Map<number, UserRow>(rows.map((u) => [u.id, u]));
  const out: number[] = [];
  for (const id of wanted) {
    const u = byId.get(id);
    if (!u || u.state !== 'active') continue;
    const level = await projectAccess(c.var.db, u, project, ns);
    const asCaller: Caller = { user: u, sudoer: null, credential: null, isAdmin: u.isAdmin };
    if (canReadMergeRequests(asCaller, project, level)) out.push(id);
  }
  return out.length ? out : undefined;
}
