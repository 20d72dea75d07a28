/**
 * Merge requests of an issue (GitLab lib/api/issues.rb `related_merge_requests` and `closed_by`).
 * Issue routes by path, but they present merge requests, so they live in this domain.
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { findReadableIssue, findReadableIssueWith } from '../issues/issues';
import { closedByMergeRequests, relatedMergeRequestsRead, sortRelated } from './issue-merge-requests';
import { MergeRequestBasicSchema, MergeRequestSchema } from './merge-request-entity';
import { presentMergeRequests } from './merge-request-presenter';
import { arrayPage } from '../issues/issue-details-routes';

const TAGS = ['issues'];
const issueParams = { id: g.string(), issue_iid: g.int() };

export function mountIssueMergeRequests(r: Router) {
  // Issues::ReferencedMergeRequestsService: merge requests whose description references the issue
  // (closing or mentioning it), paginated as an array, full MergeRequest entity without `subscribed`.
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/issues/:issue_iid/related_merge_requests',
      summary: 'List merge requests related to an issue',
      tags: TAGS,
      params: params({ ...issueParams, ...paginationParams }),
      responses: { 200: z.array(MergeRequestSchema) },
    },
    async ({ c, p, caller }) => {
      // The related merge requests come with the issue (one round trip); presenting the page is the second.
      const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => [relatedMergeRequestsRead(c.var.db, caller, issueId)] as const);
      const list = sortRelated(found.reads[0], found.project.id);
      const page = await arrayPage(c, p, list);
      return c.json(await presentMergeRequests(c, caller, page, { project: found.project, full: true, withoutSubscribed: true }));
    },
  );

  // closed_by: open merge requests that close the issue when merged, MergeRequestBasic entity.
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/issues/:issue_iid/closed_by',
      summary: 'List merge requests that close an issue when merged',
      tags: TAGS,
      params: params({ ...issueParams, ...paginationParams }),
      responses: { 200: z.array(MergeRequestBasicSchema) },
    },
    async ({ c, p, caller }) => {
      const found = await findReadableIssue(c, caller, p.id, p.issue_iid);
      const list = await closedByMergeRequests(c, caller, found.issue);
      const page = await arrayPage(c, p, list);
      return c.json(await presentMergeRequests(c, caller, page, { project: found.project }));
    },
  );
}
