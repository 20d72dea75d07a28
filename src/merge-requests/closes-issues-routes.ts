/**
 * The issues of a merge request (lib/api/merge_requests.rb `closes_issues`, `related_issues`): those
 * its description closes on merge, and those it closes or mentions.
 */
import { eq, inArray } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import { issueAssignees, issues, mergeRequestMentionedIssues, mergeRequestsClosingIssues, namespaces, projects } from '../db/schema';
import { IssueSchema } from '../issues/issue-entity';
import { presentIssues } from '../issues/issue-presenter';
import { canReadConfidentialIssue } from '../issues/issues';
import type { AppEnv, Caller } from '../platform/context';
import { linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { canReadProject, featureAvailable, projectAccess } from '../projects/abilities';
import { findReadableMergeRequest } from './merge-request-access';
import { mergeRequestPageParams } from './merge-requests-params';

const TAGS = ['merge_requests'];

export function mountMergeRequestClosesIssues(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/closes_issues', summary: 'List issues that close on merge', tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(IssueSchema) } },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const rows = await visibleIssuesOf(c, caller, found.mr.id, 'closing');
      const raw = await requestParams(c);
      const page = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        async (limit, offset) => rows.slice(offset, offset + limit),
        async (limit) => Math.min(rows.length, limit),
      );
      return c.json(await presentIssues(c, caller, page, { project: found.project, withoutSubscribed: true }));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/related_issues', summary: 'List issues related to a merge request', tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(IssueSchema) } },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const rows = await visibleIssuesOf(c, caller, found.mr.id, 'all');
      const raw = await requestParams(c);
      const page = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        async (limit, offset) => rows.slice(offset, offset + limit),
        async (limit) => Math.min(rows.length, limit),
      );
      return c.json(await presentIssues(c, caller, page, { project: found.project, withoutSubscribed: true }));
    },
  );
}

/** Issues a merge request closes (or closes and mentions), limited to what the caller may read. */
async function visibleIssuesOf(c: Context<AppEnv>, caller: Caller, mrId: number, which: 'closing' | 'all') {
  const db = c.var.db;
  const closing = await db
    .select({ issueId: mergeRequestsClosingIssues.issueId })
    .from(mergeRequestsClosingIssues)
    .where(eq(mergeRequestsClosingIssues.mergeRequestId, mrId))
    .orderBy(mergeRequestsClosingIssues.id)
    .all();
  let ids = closing.map((r) => r.issueId);
  if (which === 'all') {
    const mentioned = await db.select({ issueId: mergeRequestMentionedIssues.issueId }).from(mergeRequestMentionedIssues).where(eq(mergeRequestMentionedIssues.mergeRequestId, mrId)).all();
    ids = [...new Set([...ids, ...mentioned.map((m) => m.issueId)])];
  }
  const out = [];
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .select({ issue: issues, project: projects, namespace: namespaces })
      .from(issues)
      .innerJoin(projects, eq(projects.id, issues.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(inArray(issues.id, ids.slice(i, i + 90)))
      .all();
    for (const r of rows) {
      const level = await projectAccess(db, caller.user, r.project, r.namespace);
      if (!canReadProject(caller, r.project, level)) continue;
      if (!featureAvailable(r.project, 'issues', { level, isAdmin: caller.isAdmin })) continue;
      if (r.issue.confidential) {
        const assignees = (await db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, r.issue.id)).all()).map((a) => a.userId);
        if (!canReadConfidentialIssue(caller, level, r.issue, assignees)) continue;
      }
      out.push(r.issue);
    }
  }
  const order = new Map(ids.map((id, i) => [id, i]));
  return out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}
