/**
 * Merge requests of an issue (GitLab lib/api/issues.rb `related_merge_requests` and `closed_by`).
 * Issue routes by path, but they present merge requests, so they live in this domain.
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { findReadableIssue, findReadableIssueWith } from '../issues/issues';
import { closedByMergeRequests, relatedMergeRequestIds, relatedMergeRequestsRead, sortRelated } from './issue-merge-requests';
import { flattenReads, type PresenterLoaded, presenterReads } from './presenter-reads';
import { MergeRequestBasicSchema, MergeRequestSchema } from './merge-request-entity';
import { presentMergeRequests, readOptions } from './merge-request-presenter';
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
      const presenting = { project: undefined, full: true, withoutSubscribed: true };
      // The related merge requests and what presenting them reads come with the issue, in one round
      // trip: the presenter's reads cover every related merge request, the page takes what it shows.
      let unflatten: ((results: readonly unknown[]) => PresenterLoaded) | undefined;
      const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => {
        const own = flattenReads(presenterReads(c.var.db, caller, relatedMergeRequestIds(issueId), readOptions(presenting)));
        unflatten = own.unflatten;
        return [relatedMergeRequestsRead(c.var.db, caller, issueId), ...own.list] as const;
      });
      const [related, ...rest] = found.reads as unknown as [Awaited<ReturnType<typeof relatedMergeRequestsRead>>, ...unknown[]];
      const page = await arrayPage(c, p, sortRelated(related, found.project.id));
      return c.json(await presentMergeRequests(c, caller, page, { ...presenting, project: found.project }, unflatten!(rest)));
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
