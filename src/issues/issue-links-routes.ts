/**
 * Linked issues (GitLab lib/api/issue_links.rb): an issue's linked issues, one link, linking and
 * unlinking two issues of any projects. `before { authenticate! }`: anonymous callers get 401 first.
 * Each route is one round trip to find and check, plus one for a write (with its answer's reads).
 */
import { eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import { batchReads, inJson } from '../db/batch-reads';
import { issueLinks, issues } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, conflict, notFound, recordNotFound, unprocessable } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { canReadProject } from '../projects/abilities';
import { projectIdRef } from '../projects/project-queries';
import { issueBasic, type IssueRow } from './issue-entity';
import { presentIssueRows } from './issue-presenter';
import { type IssueReadResults, issueReads, jsonIds } from './issue-reads';
import { findReadableIssueWith } from './issues';
import {
  canAdminIssueLink,
  canReadIssue,
  createReads,
  endRef,
  type IssueEnd,
  IssueLinkSchema,
  issueLinkEntity,
  LINK_TYPES,
  linkAndEndsReads,
  linkedIssueIds,
  linkedIssuesReads,
  linkError,
  linkNotes,
  readableLinked,
  RelatedIssueSchema,
  relatedIssueEntity,
} from './issue-links';

const linksParams = params({ id: g.string(), issue_iid: g.int() });
const createParams = params({ id: g.string(), issue_iid: g.int(), target_project_id: g.string(), target_issue_iid: g.string(), link_type: g.enum(LINK_TYPES).optional() });
const linkParams = params({ id: g.string(), issue_iid: g.int(), issue_link_id: g.string() });

/** `types: [String, Integer]` ids found with `find`/`find_by!`: anything but a plain integer finds nothing. */
const idOf = (s: string) => (/^\d{1,15}$/.test(s.trim()) ? Number(s.trim()) : -1);

const readOptions = (c: Context<AppEnv>) => ({ projects: true, premium: planAllows(c.var.config, 'premium'), subscription: false });

/** IssueBasic entities of issue rows read with their issueReads in the same batch, by id. */
async function basicById(c: Context<AppEnv>, caller: Caller, rows: IssueRow[], reads: unknown[]) {
  const presented = await presentIssueRows(c, caller, rows, reads as unknown as IssueReadResults, { withoutSubscribed: true });
  return new Map(rows.map((r, i) => [r.id, issueBasic(presented[i])]));
}

/**
 * The link's ends for GET and DELETE, checked as the API does: `find_project_issue` on the link's
 * target (its project's 404, then the issue's), then, for DELETE, IssueLinks::DestroyService's
 * `admin_issue_link` on both ends (its own 404).
 */
function checkEnds(caller: Caller, link: { sourceId: number; targetId: number }, ends: IssueEnd[], assignees: { issueId: number; userId: number }[], unlink: boolean) {
  const of = (id: number) => assignees.filter((a) => a.issueId === id).map((a) => a.userId);
  const target = ends.find((e) => e.issue.id === link.targetId);
  const source = ends.find((e) => e.issue.id === link.sourceId);
  if (!target || !source) throw recordNotFound();
  if (!canReadProject(caller, target.project, target.level)) throw notFound('Project');
  if (!canReadIssue(caller, target, of(target.issue.id))) throw recordNotFound();
  if (unlink) {
    const may = (e: IssueEnd) => canReadIssue(caller, e, of(e.issue.id)) && canAdminIssueLink(caller, e.level);
    if (!may(source) || !may(target)) throw new ApiError(404, { message: 'No Issue Link found' });
  }
  return { source, target };
}

const endsOf = (rows: { issue: IssueRow; project: IssueEnd['project']; namespace: IssueEnd['namespace']; level: number }[]): IssueEnd[] => rows.map((r) => ({ ...r, level: Number(r.level ?? 0) }));

export function mountIssueLinks(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/issues/:issue_iid/links', summary: 'List linked issues', tags: ['issue_links'], params: linksParams, responses: { 200: z.array(RelatedIssueSchema) } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const db = c.var.db;
      // The issue, its links with the other ends' projects and the caller's level there, and those ends' entity reads: one round trip.
      const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => {
        const self = sql`(${issueId})`;
        return [...linkedIssuesReads(db, caller, self), ...issueReads(db, caller, linkedIssueIds(self), readOptions(c))] as const;
      });
      const [rows, ...extras] = found.reads;
      // related_issues(current_user): only the issues the caller may read.
      const readable = readableLinked(caller, rows, extras[0]);
      const presented = await presentIssueRows(c, caller, readable.map((r) => r.issue), extras as unknown as IssueReadResults, { project: found.project, withoutSubscribed: true });
      return c.json(readable.map((r, i) => relatedIssueEntity(presented[i], r.link, found.issue.id)));
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/issues/:issue_iid/links', summary: 'Link two issues', tags: ['issue_links'], params: createParams, responses: { 201: IssueLinkSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      const targetProject = projectIdRef(p.target_project_id);
      // The source issue, the target project and issue, a link already between them and both ends' link counts: one round trip.
      const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => createReads(db, caller, sql`(${issueId})`, targetProject, idOf(p.target_issue_iid)));
      const [[tp], [targetIssue], targetAssignees, [existing], [sourceLinks], [targetLinks]] = found.reads;
      const source: IssueEnd = { issue: found.issue, project: found.project, namespace: found.namespace, level: found.level };
      // find_project_issue(target_issue_iid, target_project_id): the project's 404, then the issue's.
      const targetLevel = Number(tp?.level ?? 0);
      if (!tp || !canReadProject(caller, tp.project, targetLevel)) throw notFound('Project');
      if (!targetIssue) throw recordNotFound();
      const target: IssueEnd = { issue: targetIssue, project: tp.project, namespace: tp.namespace, level: targetLevel };
      if (!canReadIssue(caller, target, targetAssignees.map((a) => a.userId))) throw recordNotFound();
      // IssueLinks::CreateService, in its order: the source's admin_issue_link, already related (409), the target's (403), validations (422).
      if (!canAdminIssueLink(caller, source.level)) throw new ApiError(403, { message: "Couldn't link issues. You must have at least the Guest role in the source issue's project." });
      if (existing) throw conflict('Issue(s) already assigned');
      if (!canAdminIssueLink(caller, target.level)) throw new ApiError(403, { message: "Couldn't link issues. You must have at least the Guest role in both projects." });
      const invalid = linkError(source.issue, target.issue, { source: sourceLinks?.n ?? 0, target: targetLinks?.n ?? 0 });
      if (invalid) throw unprocessable(invalid);
      // `is_blocked_by` is the target blocking the source: stored as `blocks` with the ends swapped.
      const blockedBy = p.link_type === 'is_blocked_by';
      const [from, to] = blockedBy ? [target, source] : [source, target];
      const linkType = blockedBy ? 'blocks' : (p.link_type ?? 'relates_to');
      const now = Date.now();
      const ids = [from.issue.id, to.issue.id];
      const landed = sql`EXISTS (SELECT 1 FROM issue_links nl WHERE nl.source_id = ${from.issue.id} AND nl.target_id = ${to.issue.id} AND nl.created_at = ${now})`;
      // The insert (the pair's unique index settles a race: nothing lands twice), its notes and the answer's reads: one batch.
      const [[link], , , rows, ...extras] = await batchReads(db, [
        db.insert(issueLinks).values({ sourceId: from.issue.id, targetId: to.issue.id, linkType, createdAt: now, updatedAt: now }).onConflictDoNothing().returning(),
        ...linkNotes(db, { linkType, source: endRef(from), target: endRef(to) }, false, user.id, now, landed),
        db.select().from(issues).where(inJson(issues.id, ids)),
        ...issueReads(db, caller, jsonIds(ids), readOptions(c)),
      ] as const);
      if (!link) throw conflict('Issue(s) already assigned');
      const byId = await basicById(c, caller, rows, extras);
      return c.json(issueLinkEntity(link, byId.get(link.sourceId)!, byId.get(link.targetId)!), 201);
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/issues/:issue_iid/links/:issue_link_id', summary: 'Get an issue link', tags: ['issue_links'], params: linkParams, responses: { 200: IssueLinkSchema } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const { link, ends, extras } = await findLink(c, caller, p);
      return c.json(issueLinkEntity(link, ...(await presentEnds(c, caller, link, ends, extras))));
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/issues/:issue_iid/links/:issue_link_id', summary: 'Unlink two issues', tags: ['issue_links'], params: linkParams, responses: { 200: IssueLinkSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      const { link, ends, extras, source, target } = await findLink(c, caller, p, true);
      const still = sql`EXISTS (SELECT 1 FROM issue_links dl WHERE dl.id = ${link.id})`;
      // The notes first, while the link is there (a concurrent unlink that won leaves none), then the link: one batch.
      await db.batch([...linkNotes(db, { linkType: link.linkType, source: endRef(source), target: endRef(target) }, true, user.id, Date.now(), still), db.delete(issueLinks).where(eq(issueLinks.id, link.id))]);
      return c.json(issueLinkEntity(link, ...(await presentEnds(c, caller, link, ends, extras))));
    },
  );
}

/** `IssueLink.for_source_or_target(issue).find(issue_link_id)` with both ends and their entity reads: one round trip. */
async function findLink(c: Context<AppEnv>, caller: Caller, p: { id: string; issue_iid: number; issue_link_id: string }, unlink = false) {
  const db = c.var.db;
  const linkId = idOf(p.issue_link_id);
  const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => {
    const ends = sql`SELECT el.source_id FROM issue_links el WHERE el.id = ${linkId} AND (el.source_id IN (${issueId}) OR el.target_id IN (${issueId})) UNION SELECT el.target_id FROM issue_links el WHERE el.id = ${linkId} AND (el.source_id IN (${issueId}) OR el.target_id IN (${issueId}))`;
    return [...linkAndEndsReads(db, caller, issueId, linkId), ...issueReads(db, caller, ends, readOptions(c))] as const;
  });
  const [[link], endRows, assignees, ...extras] = found.reads;
  if (!link) throw recordNotFound();
  const ends = endsOf(endRows);
  return { link, ends, extras, ...checkEnds(caller, link, ends, assignees, unlink) };
}

async function presentEnds(c: Context<AppEnv>, caller: Caller, link: { sourceId: number; targetId: number }, ends: IssueEnd[], extras: unknown[]) {
  const byId = await basicById(c, caller, ends.map((e) => e.issue), extras);
  return [byId.get(link.sourceId)!, byId.get(link.targetId)!] as const;
}

