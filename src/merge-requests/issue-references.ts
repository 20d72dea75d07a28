/**
 * Issue references in merge request descriptions (lib/gitlab/closing_issue_extractor.rb,
 * ReferenceExtractor): the `Closes #n` links that close issues on merge, the other mentions, and
 * the statements that record both with the issues' "mentioned in" system notes.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { issueAssignees, issues, mergeRequestMentionedIssues, mergeRequests, mergeRequestsClosingIssues, namespaces, notes, projects } from '../db/schema';
import { systemNoteInsert } from '../issuables/system-notes';
import { canReadConfidentialIssue } from '../issues/issues';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { baseUrl } from '../platform/pagination';
import { canReadProject, featureAvailable, type NamespaceRow, projectAccess, type ProjectRow } from '../projects/abilities';

/** D1 binds at most 100 parameters per statement. */
const CHUNK = 90;

/**
 * GitLab's default `issue_closing_pattern` (gitlab.yml): a closing word, an optional colon, then
 * one or more issue references separated by commas, spaces or `and`.
 */
const REF = String.raw`(?:(?:[A-Za-z0-9_.\-]+\/)*[A-Za-z0-9_.\-]+)?#\d+|https?:\/\/[^\s,]+\/-\/issues\/\d+`;
const CLOSING = new RegExp(
  String.raw`\b(?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(?::?) +(?:(?:issues? +)?(?:${REF})(?:(?: *,? +and +| *,? *)?))+`,
  'g',
);
const ANY_REF = new RegExp(String.raw`(?:^|[^\w/&!#])(${REF})`, 'g');

export interface IssueRef {
  /** Full path of the project, or null for the merge request's own project. */
  path: string | null;
  /** A path without a slash names a project in the same namespace (`project#1`). */
  iid: number;
}

function parseRef(text: string, base: string): IssueRef | null {
  const url = /^https?:\/\/[^\s]+?\/(.+)\/-\/issues\/(\d+)$/.exec(text);
  if (url) {
    if (!text.startsWith(`${base}/`)) return null;
    return { path: url[1], iid: Number(url[2]) };
  }
  const m = /^(.*)#(\d+)$/.exec(text);
  if (!m) return null;
  const iid = Number(m[2]);
  if (!Number.isSafeInteger(iid)) return null;
  return { path: m[1] || null, iid };
}

/** The `Closes #n` references and the other issue mentions of a description. */
export function issueReferences(description: string | null | undefined, base: string): { closing: IssueRef[]; mentioned: IssueRef[] } {
  const text = description ?? '';
  const closing: IssueRef[] = [];
  for (const m of text.matchAll(CLOSING)) {
    for (const r of m[0].matchAll(new RegExp(REF, 'g'))) {
      const ref = parseRef(r[0], base);
      if (ref) closing.push(ref);
    }
  }
  const mentioned: IssueRef[] = [];
  for (const r of text.matchAll(ANY_REF)) {
    const ref = parseRef(r[1], base);
    if (ref) mentioned.push(ref);
  }
  return { closing: closing.slice(0, 100), mentioned: mentioned.slice(0, 100) };
}

/**
 * Resolves references to issue ids the user may read (ReferenceExtractor runs as the author or
 * editor); unknown projects and issues are ignored.
 */
export async function resolveIssueRefs(c: Context<AppEnv>, user: UserRow, project: ProjectRow, ns: NamespaceRow, refs: IssueRef[]): Promise<number[]> {
  const db = c.var.db;
  const out: number[] = [];
  const projectCache = new Map<string, { project: ProjectRow; ns: NamespaceRow; level: number } | null>();
  const asCaller: Caller = { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
  for (const ref of refs) {
    const key = ref.path == null ? '' : ref.path.includes('/') ? ref.path.toLowerCase() : `${ns.fullPath}/${ref.path}`.toLowerCase();
    let target = projectCache.get(key);
    if (target === undefined) {
      if (key === '' || key === `${ns.fullPath}/${project.path}`.toLowerCase()) {
        target = { project, ns, level: await projectAccess(db, user, project, ns) };
      } else {
        const slash = key.lastIndexOf('/');
        const row = await db
          .select({ project: projects, namespace: namespaces })
          .from(projects)
          .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
          .where(and(sql`lower(${namespaces.fullPath}) = ${key.slice(0, slash)}`, sql`lower(${projects.path}) = ${key.slice(slash + 1)}`))
          .get();
        target = row ? { project: row.project, ns: row.namespace, level: await projectAccess(db, user, row.project, row.namespace) } : null;
      }
      projectCache.set(key, target);
    }
    if (!target) continue;
    if (!canReadProject(asCaller, target.project, target.level) || !featureAvailable(target.project, 'issues', { level: target.level, isAdmin: user.isAdmin })) continue;
    const issue = await db.select().from(issues).where(and(eq(issues.projectId, target.project.id), eq(issues.iid, ref.iid))).get();
    if (!issue) continue;
    if (issue.confidential) {
      const assigneeIds = (await db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, issue.id)).all()).map((a) => a.userId);
      if (!canReadConfidentialIssue(asCaller, target.level, issue, assigneeIds)) continue;
    }
    if (!out.includes(issue.id)) out.push(issue.id);
  }
  return out;
}

/**
 * Statements replacing the description-derived issue links of a merge request
 * (MergeRequests::UpdateService#update_closing_issues / cache_merge_request_closes_issues!).
 */
export async function issueLinkStatements(
  c: Context<AppEnv>,
  user: UserRow,
  project: ProjectRow,
  ns: NamespaceRow,
  description: string | null | undefined,
  mrId: number | SQL<number>,
  now: number,
  replace: boolean,
): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  const refs = issueReferences(description, baseUrl(c));
  const closingIds = await resolveIssueRefs(c, user, project, ns, refs.closing);
  const mentionedIds = (await resolveIssueRefs(c, user, project, ns, refs.mentioned)).filter((id) => !closingIds.includes(id));
  const out: BatchItem<'sqlite'>[] = [];
  if (replace) {
    out.push(db.delete(mergeRequestsClosingIssues).where(and(eq(mergeRequestsClosingIssues.mergeRequestId, mrId as number), eq(mergeRequestsClosingIssues.fromMrDescription, true))));
    out.push(db.delete(mergeRequestMentionedIssues).where(eq(mergeRequestMentionedIssues.mergeRequestId, mrId as number)));
  }
  for (const issueId of closingIds)
    out.push(db.insert(mergeRequestsClosingIssues).values({ mergeRequestId: mrId, issueId, fromMrDescription: true, createdAt: now, updatedAt: now }).onConflictDoNothing());
  for (const issueId of mentionedIds) out.push(db.insert(mergeRequestMentionedIssues).values({ mergeRequestId: mrId, issueId, createdAt: now }).onConflictDoNothing());

  // SystemNoteService.cross_reference: each referenced issue gets "mentioned in merge request !n"
  // (the full reference from another project) once (cross_reference_exists?).
  const referenced = [...closingIds, ...mentionedIds].slice(0, CHUNK);
  if (referenced.length) {
    const rows = await db.select({ id: issues.id, projectId: issues.projectId }).from(issues).where(inArray(issues.id, referenced)).all();
    const bodyFor = (issueProjectId: number, iid: number | string) => `mentioned in merge request ${issueProjectId === project.id ? '' : `${ns.fullPath}/${project.path}`}!${iid}`;
    const existing = new Set<number>();
    if (typeof mrId === 'number') {
      const iid = (await db.select({ iid: mergeRequests.iid }).from(mergeRequests).where(eq(mergeRequests.id, mrId)).get())?.iid;
      if (iid != null) {
        const noted = await db
          .select({ id: notes.noteableId, body: notes.body })
          .from(notes)
          .where(and(eq(notes.noteableType, 'Issue'), inArray(notes.noteableId, referenced), eq(notes.system, true), sql`${notes.body} LIKE 'mentioned in merge request %'`))
          .all();
        for (const r of rows) if (noted.some((n) => n.id === r.id && n.body === bodyFor(r.projectId, iid))) existing.add(r.id);
      }
    }
    const iidSql = sql`(SELECT ${mergeRequests.iid} FROM ${mergeRequests} WHERE ${mergeRequests.id} = ${mrId})`;
    for (const r of rows) {
      if (existing.has(r.id)) continue;
      const prefix = bodyFor(r.projectId, '');
      out.push(systemNoteInsert(db, { noteableType: 'Issue', noteableId: r.id, projectId: r.projectId, authorId: user.id, body: sql`${prefix} || ${iidSql}` as unknown as string, at: now }));
    }
  }
  return out;
}
