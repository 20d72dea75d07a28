/**
 * Merge request pipelines (GitLab lib/api/merge_requests.rb `pipelines`). No CI runs here, so no
 * pipeline ever exists: the list is empty, and creating one goes through GitLab's checks up to the
 * point where its pipeline chain reads the CI configuration, which is never there.
 */
import { z } from 'zod';
import type { Router } from '../platform/router';
import { ACCESS, featureLevel } from '../projects/abilities';
import { validationFailed } from '../platform/errors';
import { linkParamsFrom, pageRequest, paginate, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { latestVersionQuery } from './diffs';
import type { MergeRequestDiffRow } from './diff-entity';
import { withReadMemo } from '../platform/read-memo';
import { branchRuleReads, findReadableMergeRequest, findReadableMergeRequestWith, notAllowed } from './merge-request-access';
import { canMergeToBranch, canPushToBranch } from '../repository/protected-branches';

const TAGS = ['merge_requests'];
const mrRef = { id: g.string(), merge_request_iid: g.int() };

/** Gitlab::Ci::Pipeline::Chain::Helpers#error: the pipeline is not saved and its errors answer 400 (`render_validation_error!`). */
const pipelineError = (message: string) => validationFailed({ base: [message] });

export function mountMergeRequestPipelines(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/pipelines',
      summary: 'Get single merge request pipelines',
      tags: TAGS,
      params: params({ ...mrRef, ...paginationParams }),
      // Ci::PipelineBasic entities; no pipeline ever exists here.
      responses: { 200: z.array(z.never()) },
    },
    async ({ c, p, caller }) => {
      // merge_request_pipelines_with_access: find_merge_request_with_access, then
      // Ci::PipelinesForMergeRequestFinder, whose read_pipeline checks only narrow the list (to
      // Ci::Pipeline.none at worst), so they never change the answer of an empty list.
      await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const raw = await requestParams(c);
      const rows = await paginate<never>(c, pageRequest(p, raw.per_page), linkParamsFrom(raw, {}), async () => [], async () => 0);
      return c.json(rows);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/merge_requests/:merge_request_iid/pipelines',
      summary: 'Create merge request pipeline',
      tags: TAGS,
      params: params({ ...mrRef, async: g.bool().default(false) }),
      // Only `async` answers: 202 with the status code as the body. A synchronous create always fails
      // here (no CI configuration), so the Ci::Pipeline entity of its 201 is never sent.
      responses: { 202: z.literal(202) },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const db = c.var.db;
      // One round trip: the project, the merge request, its newest diff version and the branch rules.
      return withReadMemo(c, async () => {
        const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId, projectId) => {
          const rules = branchRuleReads(db, projectId);
          return { list: [latestVersionQuery(db, mrId), ...rules.list], unflatten: (r) => ({ version: (r[0] as MergeRequestDiffRow[])[0], rules: rules.unflatten(r.slice(1)) }) };
        });
        const { mr, project, level } = found;
        // `service.execute_async(merge_request); status :accepted`: the worker fails later, out of
        // sight; Grape renders the endpoint's value, the status code, as the body.
        if (p.async) return c.json(202, 202);
        // CreatePipelineService#can_create_pipeline_for?: `has_no_commits?` on the newest diff version.
        const version = found.loaded!.version;
        if (!version?.headCommitSha || version.baseCommitSha === version.headCommitSha) throw notAllowed();
        // Chain::Validate::Abilities.
        if (featureLevel(project, 'builds') === 'disabled') throw pipelineError('Pipelines are disabled!');
        const createPipeline = !project.archived && (caller.isAdmin || level >= ACCESS.DEVELOPER);
        if (!createPipeline) throw pipelineError('Insufficient permissions to create a new pipeline');
        // detached_pipeline_project_and_ref: the merge request ref when the caller may update the source
        // branch (always allowed then), else the source branch itself, which the caller may not update.
        // (The source project is the target project here: no forks.)
        if (mr.sourceProjectId === project.id) found.loaded!.rules.prime(c, [{ projectId: project.id, name: mr.sourceBranch }]);
        const opts = { archived: project.archived };
        const canUpdateSource =
          (await canPushToBranch(c, caller, level, mr.sourceProjectId, mr.sourceBranch, opts)) || (await canMergeToBranch(c, caller, level, mr.sourceProjectId, mr.sourceBranch, opts));
        if (!canUpdateSource)
          throw pipelineError(`You do not have sufficient permission to run a pipeline on '${mr.sourceBranch}'. Please select a different branch or contact your administrator for assistance.`);
        // Chain::Config::Content: no CI configuration is ever read here.
        throw pipelineError('Missing CI config file');
      });
    },
  );
}
