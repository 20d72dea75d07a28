/**
 * A merge request's repository views (lib/api/merge_requests.rb `commits`, `changes`, `diffs`): the
 * commits and files of merge base..HEAD. The merge request, its branch heads (or its entity's reads)
 * come in the round trip that finds the project (merge-request-find.ts); the range's commits and
 * manifests from the isolate's sha caches, else one batch (range-reads.ts); the blobs from the object
 * store.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../platform/context';
import { linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { withReadMemo } from '../platform/read-memo';
import type { Router } from '../platform/router';
import { CommitSchema, type Diff, DiffSchema } from '../repository/commit-entity';
import { diffLimitsOf, limitDiffs, withPatchLimit } from '../repository/diff-limits';
import { findMergeRequestLive, findMergeRequestToPresent } from './merge-request-find';
import { mergeRequestChanges, MergeRequestChangesSchema } from './merge-request-entity';
import { presentMergeRequest } from './merge-request-presenter';
import { repo, withUnidiff } from './merge-request-repo';
import { changesParams, diffsParams, mergeRequestPageParams } from './merge-requests-params';
import { loadRange } from './range-reads';
import { archiveCommitEntity, archiveCommitsRead, archiveDiffEntity, archiveFilesRead } from './archive-diffs';
import { baseUrl } from '../platform/pagination';

const TAGS = ['merge_requests'];

export function mountMergeRequestChanges(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/commits', summary: 'List merge request commits', tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(CommitSchema) } },
    async ({ c, p, caller }) => {
      const { project, live, fullPath, extra } = await findMergeRequestLive(c, caller, p.id, p.merge_request_iid, (mrId) => [archiveCommitsRead(c.var.db, mrId)]);
      // No head in the repository: the commits an imported archive carried, if any (archive-diffs.ts).
      if (!live.sha) return c.json((await arrayPage(c, p, extra[0])).map((r) => archiveCommitEntity(r, { base: baseUrl(c), projectFullPath: fullPath })));
      const rows = (await loadRange(c.var.db, project.id, live.mergeBase, live.sha, { commits: true })).commits;
      return c.json(repo.commitEntities(c, await arrayPage(c, p, rows), fullPath));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/changes', summary: 'Get merge request changes', tags: TAGS, params: changesParams, responses: { 200: MergeRequestChangesSchema } },
    async ({ c, p, caller }) =>
      withReadMemo(c, async () => {
        const found = await findMergeRequestToPresent(c, caller, p.id, p.merge_request_iid, {});
        const entity = await presentMergeRequest(c, caller, found.mr, { project: found.project, approvalsPrimed: found.approvalsPrimed }, found.loaded);
        const refs = entity.diff_refs;
        if (!refs.head_sha) {
          const limits = await diffLimitsOf(c);
          const stored = (await archiveFilesRead(c.var.db, found.mr.id)).map((f) => withPatchLimit(archiveDiffEntity(f), limits));
          const { diffs, overflow } = limitDiffs(stored, limits, { expanded: false, raw: p.access_raw_diffs });
          return c.json(mergeRequestChanges(entity, withUnidiff(diffs, p.unidiff), overflow));
        }
        const changes = (await loadRange(c.var.db, found.project.id, refs.base_sha, refs.head_sha, { changes: true })).changes;
        // Entities::MergeRequestChanges: `merge_request.diffs.diffs` (collapsed where not expanded) and its
        // overflow; `access_raw_diffs` reads the repository without the collection limits (overflow false).
        const { diffs, overflow } = await repo.diffEntities(c, found.project.id, changes, { unidiff: p.unidiff, collapse: true, raw: p.access_raw_diffs });
        return c.json(mergeRequestChanges(entity, diffs, overflow));
      }),
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/diffs', summary: 'List merge request diffs', tags: TAGS, params: diffsParams, responses: { 200: z.array(DiffSchema) } },
    async ({ c, p, caller }) => {
      const { project, live, extra } = await findMergeRequestLive(c, caller, p.id, p.merge_request_iid, (mrId) => [archiveFilesRead(c.var.db, mrId)]);
      const limits = await diffLimitsOf(c);
      if (!live.sha) return c.json(withUnidiff((await arrayPage(c, p, extra[0])).map((f) => withPatchLimit(archiveDiffEntity(f), limits)), p.unidiff));
      const changes = (await loadRange(c.var.db, project.id, live.mergeBase, live.sha, { changes: true })).changes;
      // `paginated_diffs(..., expanded: true)` of the files the version keeps (diff-limits.ts). Only the files up to
      // the page's end are diffed (their blobs read from the object store): where the collection stops depends on
      // them alone. Past them the list counts the changed files up to diff_max_files (a later file that reaches the
      // lines or bytes limit is found by the page that reaches it).
      const end = pageRequest(p, (await requestParams(c)).per_page);
      const upTo = Math.min(end.offset + end.perPage, limits.maxFiles);
      const { diffs, overflow } = await repo.diffEntities(c, project.id, changes.slice(0, upTo), { unidiff: p.unidiff });
      const cut = diffs.length < upTo || overflow;
      const list: readonly (Diff | null)[] = cut ? diffs : [...diffs, ...new Array<null>(Math.max(0, Math.min(changes.length, limits.maxFiles) - upTo)).fill(null)];
      return c.json((await arrayPage(c, p, list)).filter((d): d is Diff => d !== null));
    },
  );
}

/** The page of a list computed whole, with GitLab's pagination headers (no storage). */
async function arrayPage<T>(c: Context<AppEnv>, p: { page?: number; per_page?: number }, list: readonly T[]): Promise<T[]> {
  const raw = await requestParams(c);
  return paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, {}),
    async (limit, offset) => list.slice(offset, offset + limit),
    async (limit) => Math.min(list.length, limit),
  );
}
