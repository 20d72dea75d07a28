/**
 * Read-only issue sub-resources of GitLab lib/api/issues.rb: participants, related merge requests,
 * merge requests closing the issue, and the user agent recorded at creation (administrators only).
 */
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { accessGrants, notes, userAgentDetails, users } from '../db/schema';
import { userBasic, UserBasicSchema } from '../users/user-entity';
import { ACCESS, activeGrant, featureAvailable, type NamespaceRow, type ProjectRow, traversalIds } from '../projects/abilities';
import { notFound } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { obj } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireAdmin } from '../platform/guards';
import { findReadableIssue, findReadableIssueWith } from './issues';
import { batchReads } from '../db/batch-reads';

type UserAgentDetailRow = typeof userAgentDetails.$inferSelect;

const TAGS = ['issues'];
const issueParams = { id: g.string(), issue_iid: g.int() };
/** Mentions looked up per issue: a description full of @names must not become an unbounded query. */
const MAX_MENTIONS = 200;
// Gitlab::PathRegex user names after `@`, not inside a word or an email address.
const MENTION = /(?:^|[^\w@.])@([A-Za-z0-9_][A-Za-z0-9_.-]*)/g;

/** Spec UserAgentDetail: the vendor-named flag carries the neutral name `spamsvc_submitted`. */
const UserAgentDetailSchema = obj({ user_agent: z.string(), ip_address: z.string(), spamsvc_submitted: z.boolean() }).meta({ id: 'UserAgentDetail' });
const userAgentDetail = (d: UserAgentDetailRow): z.infer<typeof UserAgentDetailSchema> => ({ user_agent: d.userAgent, ip_address: d.ipAddress, spamsvc_submitted: d.submitted });

/** `@username` mentions of a text, in order of appearance (trailing dots are punctuation). */
function mentions(text: string | null | undefined): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const m of text.matchAll(MENTION)) out.push(m[1].replace(/\.+$/, '').toLowerCase());
  return out.filter(Boolean);
}

/** `paginate(::Kaminari.paginate_array(list))`: one page of an in-memory list with GitLab's headers. */
export async function arrayPage<T>(c: Context<AppEnv>, p: { page?: number; per_page?: number }, list: T[]): Promise<T[]> {
  const raw = await requestParams(c);
  return paginate(c, pageRequest(p, raw.per_page), linkParamsFrom(raw, {}), async (limit, offset) => list.slice(offset, offset + limit), async (limit) => Math.min(list.length, limit));
}

export function mountIssueDetails(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/issues/:issue_iid/participants',
      summary: 'List participants for an issue',
      tags: TAGS,
      params: params({ ...issueParams, ...paginationParams }),
      responses: { 200: z.array(UserBasicSchema) },
    },
    async ({ c, p, caller }) => {
      // The issue, its comments and the users they name by id in one round trip; mentions and
      // the candidates' access in a second.
      const db = c.var.db;
      const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => {
        const commentsOf = sql`n.noteable_type = 'Issue' AND n.noteable_id IN (${issueId}) AND n.system = 0`;
        return [
          db
            .select({ authorId: notes.authorId, body: notes.body, internal: notes.internal })
            .from(notes)
            .where(and(eq(notes.noteableType, 'Issue'), sql`${notes.noteableId} IN (${issueId})`, eq(notes.system, false)))
            .orderBy(asc(notes.createdAt), asc(notes.id)),
          db
            .select()
            .from(users)
            .where(
              sql`${users.id} IN (SELECT i.author_id FROM issues i WHERE i.id IN (${issueId}) UNION SELECT n.author_id FROM notes n WHERE ${commentsOf} UNION SELECT a.user_id FROM issue_assignees a WHERE a.issue_id IN (${issueId}))`,
            ),
        ] as const;
      });
      const participants = await visibleParticipants(c, caller, found, found.reads[0], found.reads[1]);
      const raw = await requestParams(c);
      const base = baseUrl(c);
      // `Kaminari.paginate_array(issue.visible_participants(current_user))`.
      const page = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        async (limit, offset) => participants.slice(offset, offset + limit),
        async (limit) => Math.min(participants.length, limit),
      );
      return c.json(page.map((u) => userBasic(u, { base })));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/issues/:issue_iid/user_agent_detail',
      summary: 'Get the user agent details of an issue (administrators)',
      tags: TAGS,
      params: params(issueParams),
      responses: { 200: UserAgentDetailSchema },
    },
    async ({ c, p, caller }) => {
      // issues.rb: `authenticated_as_admin!` before the issue lookup (reference 1 §5.4).
      requireAdmin(caller);
      const { issue } = await findReadableIssue(c, caller, p.id, p.issue_iid);
      const detail = await c.var.db
        .select()
        .from(userAgentDetails)
        .where(and(eq(userAgentDetails.subjectType, 'Issue'), eq(userAgentDetails.subjectId, issue.id)))
        .get();
      if (!detail) throw notFound('UserAgentDetail');
      return c.json(userAgentDetail(detail));
    },
  );
}

interface FoundIssue {
  project: ProjectRow;
  namespace: NamespaceRow;
  level: number;
  assigneeIds: number[];
  issue: { id: number; authorId: number; title: string; description: string | null; confidential: boolean };
}

/**
 * Issue#visible_participants: the author, authors of (non-system) notes, assignees, then users
 * mentioned in the title, description and those notes, in that order, without duplicates; then
 * only those who can read the issue. Internal notes count only for callers who may read them.
 */
async function visibleParticipants(
  c: Context<AppEnv>,
  caller: Caller,
  found: FoundIssue,
  comments: { authorId: number; body: string; internal: boolean }[],
  known: UserRow[],
): Promise<UserRow[]> {
  const db = c.var.db;
  const { issue, project, namespace } = found;
  const canReadInternal = caller.isAdmin || found.level >= ACCESS.PLANNER;
  const noteRows = canReadInternal ? comments : comments.filter((n) => !n.internal);
  const assigneeIds = new Set(found.assigneeIds);
  // Issuable: `participant :author, :notes_with_associations, :assignees`; mentions join at the end.
  const ids: number[] = [issue.authorId, ...noteRows.map((n) => n.authorId), ...found.assigneeIds];
  const names = [...new Set([...mentions(issue.title), ...mentions(issue.description), ...noteRows.flatMap((n) => mentions(n.body))])].slice(0, MAX_MENTIONS);

  // The mentioned users and every candidate's access (project membership and inherited group
  // membership) in one round trip.
  const groupIds = traversalIds(namespace);
  const mentioned = sql`SELECT u.id FROM users u WHERE lower(u.username) IN (SELECT value FROM json_each(${JSON.stringify(names)}))`;
  const sources = [and(eq(accessGrants.sourceType, 'Project'), eq(accessGrants.sourceId, project.id))];
  if (groupIds.length) sources.push(and(eq(accessGrants.sourceType, 'Namespace'), inArray(accessGrants.sourceId, groupIds)));
  const [named, levelRows] = await batchReads(db, [
    names.length ? db.select().from(users).where(sql`${users.id} IN (${mentioned})`) : undefined,
    db
      .select({ userId: accessGrants.userId, level: sql<number>`max(${accessGrants.accessLevel})` })
      .from(accessGrants)
      .where(and(sql`(${accessGrants.userId} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])})) OR ${accessGrants.userId} IN (${mentioned}))`, or(...sources), activeGrant()))
      .groupBy(accessGrants.userId),
  ]);
  const byId = new Map<number, UserRow>(known.map((u) => [u.id, u]));
  const byName = new Map<string, UserRow>((named ?? []).map((u) => [u.username.toLowerCase(), u]));
  const ordered: UserRow[] = [];
  const seen = new Set<number>();
  const push = (u: UserRow | undefined) => {
    if (u && !seen.has(u.id)) {
      seen.add(u.id);
      ordered.push(u);
    }
  };
  for (const id of ids) push(byId.get(id));
  for (const name of names) push(byName.get(name));

  const levels = new Map<number, number>(levelRows.map((row) => [row.userId, Number(row.level)]));
  if (namespace.kind === 'User' && namespace.ownerId) levels.set(namespace.ownerId, ACCESS.OWNER);

  return ordered.filter((u) => {
    const level = levels.get(u.id) ?? 0;
    const admin = Boolean(u.isAdmin);
    const readsProject =
      admin || level >= ACCESS.GUEST || project.visibility === 'public' || (project.visibility === 'internal' && !u.external);
    if (!readsProject) return false;
    if (!featureAvailable(project, 'issues', { level, isAdmin: admin })) return false;
    if (!issue.confidential) return true;
    return admin || level >= ACCESS.PLANNER || u.id === issue.authorId || assigneeIds.has(u.id);
  });
}

