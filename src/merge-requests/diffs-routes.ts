/**
 * Merge request diff versions (GitLab lib/api/merge_request_diffs.rb: `before { authenticate! }`)
 * and the raw diff (lib/api/merge_requests.rb raw_diffs). Versions are written by
 * diffs.ts; their commits and files are computed from base..head.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { mergeRequestDiffs } from '../db/schema';
import { mergeRequestDiffEntity, mergeRequestDiffFullEntity, MergeRequestDiffFullSchema, MergeRequestDiffSchema } from './diff-entity';
import { recordNotFound } from '../platform/errors';
import { countUpTo, linkParamsFrom, pageRequest, paginate, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { raw } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { findVersion, latestVersion, listVersions } from './diffs';
import { liveState } from './live-state';
import { findReadableMergeRequest } from './merge-request-access';
import { repo } from './merge-request-repo';
import { gitDiffText } from '../repository/raw-diff';

const TAGS = ['merge_requests'];
const mrRef = { id: g.string(), merge_request_iid: g.int() };

/** Gitlab::NoCacheHeaders (`no_cache_headers`). */
const NO_CACHE = { 'Cache-Control': 'max-age=0, private, must-revalidate, no-store, no-cache', Expires: 'Fri, 01 Jan 1990 00:00:00 GMT' };

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
      const { mr } = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const db = c.var.db;
      const raw = await requestParams(c);
      // `merge_request.merge_request_diffs.order_id_desc`, paginated.
      const rows = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        (limit, offset) => listVersions(db, mr.id, limit, offset),
        (limit) => countUpTo(db, mergeRequestDiffs, eq(mergeRequestDiffs.mergeRequestId, mr.id), limit),
      );
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
      const { mr, project } = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      // `merge_request.merge_request_diffs.find(params[:version_id])`: another request's version is 404 too.
      const version = await findVersion(c.var.db, mr.id, p.version_id);
      if (!version) throw recordNotFound();
      const head = version.headCommitSha;
      const empty = !head || version.baseCommitSha === head;
      const [commits, diffs] = empty
        ? [[], []]
        : await Promise.all([repo.commitEntities(c, project.id, version.baseCommitSha, head), repo.diffEntities(c, project.id, version.baseCommitSha, head, { unidiff: p.unidiff })]);
      return c.json(mergeRequestDiffFullEntity(version, commits, diffs));
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
      const { mr, project } = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      // send_git_diff(repository, merge_request.diff_refs): the newest version's base..head.
      const version = await latestVersion(c.var.db, mr.id);
      let base = version?.baseCommitSha ?? null;
      let head = version?.headCommitSha ?? null;
      if (!version) {
        const live = await liveState(c, mr);
        base = live.diffRefs.base_sha;
        head = live.diffRefs.head_sha;
      }
      const text = head && base !== head ? await gitDiffText(c, project.id, base, head) : '';
      return c.body(text, 200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': 'inline', ...NO_CACHE });
    },
  );
}
