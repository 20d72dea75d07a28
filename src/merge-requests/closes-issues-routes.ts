/**
 * The issues of a merge request (lib/api/merge_requests.rb `closes_issues`, `related_issues`): those
 * its description closes on merge, and those it closes or mentions. The issues, their projects and
 * the caller's level in each come with the merge request (one round trip); presenting the page is
 * the second.
 */
import { asc, eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import { issues, mergeRequestMentionedIssues, mergeRequestsClosingIssues, namespaces, projects } from '../db/schema';
import { IssueSchema } from '../issues/issue-entity';
import { presentIssues } from '../issues/issue-presenter';
import { canReadConfidentialIssue, type IssueRow } from '../issues/issues';
import type { Caller } from '../platform/context';
import { linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { canReadProject, featureAvailable, type NamespaceRow, projectLevelSql, type ProjectRow } from '../projects/abilities';
import { findReadableMergeRequestWith } from './merge-request-access';
import { mergeRequestPageParams } from './merge-requests-params';

const TAGS = ['merge_requests'];

export function mountMergeRequestClosesIssues(r: Router) {
  for (const [path, summary, which] of [
    ['closes_issues', 'List issues that close on merge', 'closing'],
    ['related_issues', 'List issues related to a merge request', 'all'],
  ] as const) {
    r.route(
      { method: 'GET', path: `/projects/:id/merge_requests/:merge_request_iid/${path}`, summary, tags: TAGS, params: mergeRequestPageParams, responses: { 200: z.array(IssueSchema) } },
      async ({ c, p, caller }) => {
        const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => linkedIssueReads(c.var.db, caller, mrId, which));
        const rows = visibleIssues(caller, found.loaded!);
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
}

type LinkedIssue = { issue: IssueRow; project: ProjectRow; namespace: NamespaceRow; level: number; assignees: string };
interface LinkedIssues {
  closing: { issueId: number }[];
  mentioned: { issueId: number }[];
  rows: LinkedIssue[];
}

/**
 * The issues a merge request closes (or closes and mentions), each with its project, the caller's
 * level there and its assignees (for confidential issues), and the link lists that give their order.
 * Columns aliased apart: a D1 batch keys rows by column name.
 */
function linkedIssueReads(db: Db, caller: Caller, mrId: SQL, which: 'closing' | 'all') {
  const uid = caller.user?.id;
  const mr = mrId as unknown as number;
  const closing = sql`${issues.id} IN (SELECT x.issue_id FROM merge_requests_closing_issues x WHERE x.merge_request_id = ${mrId})`;
  const linked = which === 'all' ? sql`(${closing} OR ${issues.id} IN (SELECT x.issue_id FROM merge_request_mentioned_issues x WHERE x.merge_request_id = ${mrId}))` : closing;
  const list: BatchItem<'sqlite'>[] = [
    db
      .select({
        issue: issues,
        project: aliasedColumns(projects, 'p_'),
        namespace: aliasedColumns(namespaces, 'n_'),
        level: (uid != null ? projectLevelSql(uid) : sql<number>`0`).as('caller_level'),
        assignees: sql<string>`(SELECT json_group_array(a.user_id) FROM issue_assignees a WHERE a.issue_id = "issues"."id")`.as('assignee_ids'),
      })
      .from(issues)
      .innerJoin(projects, eq(projects.id, issues.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(linked),
    db.select({ issueId: mergeRequestsClosingIssues.issueId }).from(mergeRequestsClosingIssues).where(eq(mergeRequestsClosingIssues.mergeRequestId, mr)).orderBy(asc(mergeRequestsClosingIssues.id)),
  ];
  if (which === 'all') list.push(db.select({ issueId: mergeRequestMentionedIssues.issueId }).from(mergeRequestMentionedIssues).where(eq(mergeRequestMentionedIssues.mergeRequestId, mr)));
  const unflatten = (r: readonly unknown[]): LinkedIssues => ({ rows: r[0] as LinkedIssue[], closing: r[1] as LinkedIssues['closing'], mentioned: (r[2] ?? []) as LinkedIssues['mentioned'] });
  return { list, unflatten };
}

/** The linked issues the caller may read (project, issues feature, confidentiality), closing ones first in link order. */
function visibleIssues(caller: Caller, { closing, mentioned, rows }: LinkedIssues): IssueRow[] {
  const ids = [...new Set([...closing, ...mentioned].map((r) => r.issueId))];
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows
    .filter((r) => {
      const level = Number(r.level);
      if (!canReadProject(caller, r.project, level)) return false;
      if (!featureAvailable(r.project, 'issues', { level, isAdmin: caller.isAdmin })) return false;
      return !r.issue.confidential || canReadConfidentialIssue(caller, level, r.issue, JSON.parse(r.assignees) as number[]);
    })
    .map((r) => r.issue)
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}
