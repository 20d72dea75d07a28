/**
 * Merge request diff versions (GitLab lib/api/merge_request_diffs.rb: `before { authenticate! }`)
 * and the raw diff (lib/api/merge_requests.rb raw_diffs). Versions are written by
 * diffs.ts; their commits and files are those of base..head (range-reads.ts: the isolate's sha
 * caches, else one batch), the version itself read with the merge request.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { mergeRequestDiffs } from '../db/schema';
import { type MergeRequestDiffRow, mergeRequestDiffEntity, mergeRequestDiffFullEntity, MergeRequestDiffFullSchema, MergeRequestDiffSchema } from './diff-entity';
import { recordNotFound } from '../platform/errors';
import { countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { raw } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { latestVersionQuery, versionQuery, versionsPage } from './diffs';
import { type BranchHead, liveStateFromHeads } from './live-state';
import { findReadableMergeRequestWith } from './merge-request-access';
import { repo } from './merge-request-repo';
import { headsRead } from './presenter-reads';
import { loadRange } from './range-reads';
import { gitDiffText } from '../repository/raw-diff';

const TAGS = ['merge_requests'];
const mrRef = { id: g.string(), merge_request_iid: g.int() };

/** Gitlab::NoCacheHeaders (`no_cache_headers`). */
const NO_CACHE = { 'Cache-Control': 'max-age=0, private, must-revalidate, no-store, no-cache', Expires: 'Fri, 01 Jan 1990 00:00:00 GMT' };
const TEXT = { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': 'inline', ...NO_CACHE };

export function mountMergeRequestDiffs(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/versions',
      summary: 'Get a list of merge request diff versions',
      tags: TAGS,
      signedIn: true,
      params: params({ ...mrRef, ...paginationParams }),
      responses: { 200: z.array(MergeRequestDiffSchema) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      // `merge_request.merge_request_diffs.order_id_desc`, paginated: the page and its count come with the merge request.
      const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => ({
        list: [versionsPage(db, mrId, req.perPage, req.offset), countUpToQuery(db, mergeRequestDiffs, eq(mergeRequestDiffs.mergeRequestId, mrId as unknown as number), MAX_COUNT + 1)],
        unflatten: (results) => ({ rows: results[0] as MergeRequestDiffRow[], n: Number((results[1] as { n: number }[])[0]?.n ?? 0) }),
      }));
      const { rows, n } = found.loaded!;
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), n > MAX_COUNT ? null : n, rows.length);
      return c.json(rows.map(mergeRequestDiffEntity));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/versions/:version_id',
      summary: 'Get a single merge request diff version',
      tags: TAGS,
      signedIn: true,
      params: params({ ...mrRef, version_id: g.int(), unidiff: g.bool().default(false) }),
      responses: { 200: MergeRequestDiffFullSchema },
    },
    async ({ c, p, caller }) => {
      // `merge_request.merge_request_diffs.find(params[:version_id])`, read with the merge request: another request's version is 404 too.
      const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => ({ list: [versionQuery(c.var.db, mrId, p.version_id)], unflatten: (results) => results[0] as MergeRequestDiffRow[] }));
      const version = found.loaded?.[0];
      if (!version) throw recordNotFound();
      const { project, namespace } = found;
      const head = version.headCommitSha;
      const range = !head || version.baseCommitSha === head ? { commits: [], changes: [] } : await loadRange(c.var.db, project.id, version.baseCommitSha, head, { commits: true, changes: true });
      const commits = repo.commitEntities(c, range.commits, `${namespace.fullPath}/${project.path}`);
      // MergeRequestDiffFull: `raw_diffs(limits: false)` of what the version keeps (save_diffs' collection limits).
      return c.json(mergeRequestDiffFullEntity(version, commits, (await repo.diffEntities(c, project.id, range.changes, { unidiff: p.unidiff })).diffs));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/raw_diffs',
      summary: 'Get the merge request raw diffs',
      tags: TAGS,
      params: params(mrRef),
      responses: { 200: raw('text/plain', 'The diff of the newest version, as `git diff` writes it') },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      // The newest version and the branch heads (for a request without one) come with the merge request.
      const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => ({
        list: [latestVersionQuery(db, mrId), headsRead(db, mrId)],
        unflatten: (results) => ({ version: (results[0] as MergeRequestDiffRow[])[0], heads: results[1] as BranchHead[] }),
      }));
      const { mr, project } = found;
      // send_git_diff(repository, merge_request.diff_refs): the newest version's base..head.
      const version = found.loaded?.version;
      let base = version?.baseCommitSha ?? null;
      let head = version?.headCommitSha ?? null;
      if (!version) {
        const live = await liveStateFromHeads(c, mr, found.loaded?.heads ?? [], { mergeMethod: project.mergeMethod });
        base = live.diffRefs.base_sha;
        head = live.diffRefs.head_sha;
      }
      if (!head || base === head) return c.body('', 200, TEXT);
      // The two manifests in one round trip into the isolate's cache, where gitDiffText's changedFiles finds them.
      await loadRange(db, project.id, base, head, { changes: true });
      return c.body(await gitDiffText(c, project.id, base, head), 200, TEXT);
    },
  );
}
