/**
 * Issue lists (GitLab lib/api/issues.rb): GET /issues, GET /groups/:id/issues and
 * GET /projects/:id/issues. Parameters in params/issue-lists.ts, the query in
 * services/issue-finder.ts, the entity from services/issue-presenter.ts.
 */
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { featureAvailable, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { grapeError, unauthorized } from '../platform/errors';
import { countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { batchReads } from '../db/batch-reads';
import { issues, namespaces, projects } from '../db/schema';
import { type IssueReadResults, issueReads, knownIssueReads, pageIds, pageIssueReads } from './issue-reads';
import { remember, rememberProbe, sameInputs, samePlan, speculativePage } from './issue-list-speculation';
import { fragmentOf, renderedOnce } from '../db/prepared';
import { requestParams } from '../platform/params';
import { IssueSchema } from './issue-entity';
import type { Router } from '../platform/router';
import { applicationLimit, clientIp } from '../settings/rate-limits';
import { groupIssuesParams, type IssueListParams, issuesParams, listDefaults, notRuleErrors, projectIssuesParams } from './issue-lists-params';
import { findReadableGroupWith } from '../projects/groups';
import {
  buildIssueQuery,
  type FinderParent,
  issueCountProjectsQuery,
  issuePageQuery,
  type IssueQuery,
  type IssueRow,
  issueUnionPageQuery,
  MAX_UNION_PROJECTS,
} from './issue-finder';
import { readableProjectsSql } from './issue-filters';
import { sql } from 'drizzle-orm';
import { findReadableProjectWith } from '../projects/projects';
import { searchProbeQuery } from './issue-search';
import { driverIdsQuery } from './issue-lists-drivers';
import { issueReadOptions, presentIssueRows } from './issue-presenter';

const IssueListSchema = z.array(IssueSchema);

export function mountIssueLists(r: Router) {
  r.route({ method: 'GET', path: '/issues', summary: "List the caller's issues", tags: ['issues'], params: issuesParams, responses: { 200: IssueListSchema } }, async ({ c, p, caller }) => {
    const raw = await requestParams(c);
    // issues.rb: `authenticate! unless params[:scope] == 'all'`, after parameter validation.
    if (raw.scope !== 'all' && !caller.user) throw unauthorized();
    return listIssues(c, caller, p, { kind: 'issues' }, 'issues', {});
  });

  r.route({ method: 'GET', path: '/groups/:id/issues', summary: 'List group issues', tags: ['issues'], params: groupIssuesParams, responses: { 200: IssueListSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    // The group's readable projects (up to one past the per-project union's limit) ride with its
    // lookup: with few projects the page is the union of per-project index ranges, exact for any
    // number of matches, so it goes with its count instead of after it.
    // The search's index probe rides there too (issue-search.ts searchProbeQuery), not in a round trip of its own.
    const probe = searchProbeQuery(db, p.search, p.in);
    const { group, level, reads } = await findReadableGroupWith(c, caller, p.id, (gid) => {
      const path = sql`(SELECT g.traversal_path FROM namespaces g WHERE g.id = ${gid})`;
      const subtree = sql`${namespaces.traversalPath} >= ${path} AND ${namespaces.traversalPath} < ${path} || ':'`;
      const readable = readableProjectsSql(db, caller, [subtree, p.non_archived ? sql`${projects.archived} = 0` : undefined]).limit(MAX_UNION_PROJECTS + 1);
      return probe ? ([readable, probe] as const) : ([readable] as const);
    });
    const groupProjects = reads[0].length <= MAX_UNION_PROJECTS ? reads[0].map((r) => r.id) : undefined;
    const probed = probe ? (reads[1] as { n: number }[] | undefined)?.[0] : undefined;
    const search = probe ? { matches: Number(probed?.n ?? 0), projectMatches: null } : undefined;
    return listIssues(c, caller, p, { kind: 'group', group, level }, 'group', { group }, true, search, groupProjects);
  });

  r.route({ method: 'GET', path: '/projects/:id/issues', summary: 'List project issues', tags: ['issues'], params: projectIssuesParams, responses: { 200: IssueListSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    // The page and its count ride with the project lookup when this caller listed the project before:
    // built on what that lookup found (issue-list-speculation.ts), used only if this one finds the same.
    const spec = await speculativePage(c, caller, p.id, p);
    // The search's index probe rides with the project lookup (issue-search.ts searchProbeQuery).
    let hasProbe = false;
    let hasDrivers = false;
    const { project, namespace, level, reads } = await findReadableProjectWith(c, caller, p.id, (projectId) => {
      if (spec) return spec.probe ? [spec.page, spec.count, spec.probe] : [spec.page, spec.count];
      const probe = searchProbeQuery(db, p.search, p.in, projectId);
      const drivers = driverIdsQuery(db, p, projectId);
      hasProbe = probe !== undefined;
      hasDrivers = drivers !== undefined;
      return [...(probe ? [probe] : []), ...(drivers ? [drivers] : [])];
    });
    // IssuableFinder::Params#project is nil without read_issue (issues feature off for the caller): an empty list, not a 404.
    const readable = featureAvailable(project, 'issues', { level, isAdmin: caller.isAdmin });
    const rows = reads as unknown as Record<string, unknown>[][];
    remember(c, caller, p.id, { project, namespace, level });
    if (spec) {
      const matches = spec.probe ? Number(rows[2]?.[0]?.n ?? 0) : undefined;
      if (matches !== undefined) rememberProbe(c, p, matches);
      const known = readable && sameInputs(spec.parent, project, namespace, level) && samePlan(spec.searchMatches, matches) ? { rows: rows[0] as IssueRow[], n: Number(rows[1]?.[0]?.n ?? 0) } : undefined;
      // A wrong guess (or a list the caller may not read) takes the usual plan, the filters answered in its statements.
      const search = matches === undefined ? undefined : { matches, projectMatches: null };
      return listIssues(c, caller, p, { kind: 'project', project, level, namespace }, 'project', { project }, readable, search, undefined, undefined, known);
    }
    const probed = hasProbe ? (rows[0]?.[0] as { n: number; ids?: string | null } | undefined) : undefined;
    const search = hasProbe ? { matches: Number(probed?.n ?? 0), projectMatches: probed?.ids ?? null } : undefined;
    if (search) rememberProbe(c, p, search.matches);
    const driverIds = hasDrivers ? ((rows[hasProbe ? 1 : 0]?.[0] as { ids: string | null } | undefined)?.ids ?? null) : undefined;
    return listIssues(c, caller, p, { kind: 'project', project, level, namespace }, 'project', { project }, readable, search, undefined, driverIds);
  });
}

async function listIssues(
  c: Context<AppEnv>,
  caller: Caller,
  p: IssueListParams,
  parent: FinderParent,
  kind: 'issues' | 'group' | 'project',
  context: { group?: NamespaceRow; project?: ProjectRow },
  readable = true,
  search?: { matches: number; projectMatches: string | null },
  groupProjects?: number[],
  driverIds?: string | null,
  known?: { rows: IssueRow[]; n: number },
) {
  // A NUL in any parameter is refused for every route by requestParams (platform/limits.ts).
  const raw = await requestParams(c);
  const ruleErrors = notRuleErrors(raw.not);
  if (ruleErrors.length) throw grapeError(ruleErrors.join(', '));
  // CheckAssigneesCount: one assignee_username unless the plan has multiple assignees (premium).
  for (const [name, list] of [['assignee_username', p.assignee_username], ['not[assignee_username]', p.not?.assignee_username]] as const) {
    if (list && list.length > 1 && c.var.config.plan === 'free') throw grapeError(`${name} allows one value, but found ${list.length}: ${list.join(', ')}`);
  }
  // validate_search_rate_limit!
  if (p.search) {
    if (caller.user) await applicationLimit(c, 'search_rate_limit', [caller.user.id]);
    else await applicationLimit(c, 'search_rate_limit_unauthenticated', [clientIp(c)]);
  }

  const db = c.var.db;
  const req = pageRequest(p, raw.per_page);
  const linkParams = linkParamsFrom(raw, listDefaults(kind));
  const o = { withLabelsDetails: p.with_labels_details, group: context.group, project: context.project };
  if (known) {
    // The page and count came with the project: what the entities show, keyed by the page's ids.
    setPaginationHeaders(c, req, linkParams, known.n > MAX_COUNT ? null : known.n, known.rows.length);
    if (!known.rows.length) return c.json([]);
    const readOptions = { ...issueReadOptions(c, undefined, o), projects: false };
    const reads = await batchReads(db, knownIssueReads(db, caller, known.rows.map((r) => r.id), readOptions));
    return c.json(await presentIssueRows(c, caller, known.rows, reads as unknown as IssueReadResults, o));
  }
  let q: IssueQuery = readable
    ? await buildIssueQuery(db, { caller, plan: c.var.config.plan, parent, p, searchMatches: search?.matches, searchProjectMatches: search?.projectMatches, driverIds })
    : { possible: false, where: undefined, walkWhere: null, perProject: null, orderBy: [] };
  // The bounded count decides the page plan for many-project lists, so it runs first there
  // (otherwise count and page run together): above the cap, the ordered index walk
  // (issuePageQuery walk); below it, when the matches lie in few projects and one range per
  // project is smaller than all matches, the per-project union (issueUnionPageQuery); else
  // the per-project lookup and sort of every match (issuePageQuery). A group with at most
  // MAX_UNION_PROJECTS readable projects takes the union over all of them, whatever the count.
  const groupUnion = q.possible && q.walkWhere && groupProjects ? issueUnionPageQuery(db, q, groupProjects, req.perPage, req.offset) : null;
  let counted: number | null = null;
  let matchProjects: number[] | null = null;
  if (q.possible && q.walkWhere && !groupUnion) {
    const row = await db.get<{ n: number; projects: string | null; readable: string | null }>(issueCountProjectsQuery(db, q, MAX_COUNT + 1));
    counted = Number(row?.n ?? 0);
    matchProjects = row?.projects ? (JSON.parse(row.projects) as number[]).map(Number) : null;
    // The readable projects, read with the count: the page's statements take them as a list.
    if (row?.readable && q.withProjects) q = q.withProjects(row.readable);
  } else if (!q.possible) counted = 0;
  const page = (limit: number, offset: number) => {
    if (groupUnion) return groupUnion;
    if (counted !== null && counted <= MAX_COUNT && matchProjects && matchProjects.length * (offset + limit) < counted) {
      const union = issueUnionPageQuery(db, q, matchProjects, limit, offset);
      if (union) return union;
    }
    return issuePageQuery(db, q, limit, offset, (counted ?? 0) > MAX_COUNT);
  };
  if (counted === 0) {
    setPaginationHeaders(c, req, linkParams, 0, 0);
    return c.json([]);
  }
  // The page, its count (unless counted above) and everything the entities show, hung off the
  // page query, in one round trip whatever the page size.
  const pageQuery = page(req.perPage, req.offset);
  const readOptions = { ...issueReadOptions(c, undefined, o), projects: kind !== 'project' };
  // The page is rendered once; its statement and the reads hung off it are built once per page
  // text (src/db/prepared.ts): building SQL text was most of a list's CPU on Node (issue 13).
  const rendered = pageQuery.toSQL();
  const fragment = fragmentOf(rendered);
  const extras = fragment ? pageIssueReads(db, caller, fragment, readOptions) : issueReads(db, caller, pageIds(pageQuery), readOptions);
  const countQuery = counted === null ? renderedOnce(db, 'issue-count', countUpToQuery(db, issues, q.countWhere ?? q.where, MAX_COUNT + 1)) : undefined;
  const [rows, n, ...reads] = await batchReads(db, [renderedOnce(db, 'issue-page', pageQuery, rendered), countQuery, ...extras]);
  const limitedTotal = counted ?? Number(n?.[0]?.n ?? 0);
  setPaginationHeaders(c, req, linkParams, limitedTotal > MAX_COUNT ? null : limitedTotal, rows.length);
  return c.json(await presentIssueRows(c, caller, rows, reads as unknown as IssueReadResults, o));
}
