/**
 * Linked issues (GitLab lib/api/issue_links.rb, IssueLinks::CreateService / DestroyService,
 * IssuePolicy `admin_issue_link`): the reads of an issue's links and of a link's two ends (each hung
 * off the issue lookup: one round trip), who may link and read, the link's validations, its system
 * notes and the entities.
 */
import { and, count, eq, or, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import { issueAssignees, issueLinks, issues, namespaces, projects } from '../db/schema';
import type { Caller } from '../platform/context';
import { id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { ACCESS, canReadProject, featureAvailable, type NamespaceRow, projectLevelSql, type ProjectRow } from '../projects/abilities';
import { systemNoteInsertWhen, toSentence } from '../issuables/system-notes';
import { type Issue, type IssueBasic, IssueBasicSchema, type IssueRow, IssueSchema } from './issue-entity';
import { canReadConfidentialIssue } from './issues';

/** IssuableLink::MAX_LINKS_COUNT: links per issue, both directions. */
export const MAX_LINKS = 100;

/** What a client may ask for; `is_blocked_by` is stored as the reverse `blocks` (ee IssueLinks::CreateService#set_link_type). */
export const LINK_TYPES = ['relates_to', 'blocks', 'is_blocked_by'] as const;
export type LinkType = (typeof LINK_TYPES)[number];
export type IssueLinkRow = typeof issueLinks.$inferSelect;

/** An issue with its project, namespace and the caller's level there: what the abilities need. */
export interface IssueEnd {
  issue: IssueRow;
  project: ProjectRow;
  namespace: NamespaceRow;
  level: number;
}

/**
 * `read_issue` on an issue of any project (Ability.issues_readable_by_user): its project readable,
 * its issues feature available to the caller, and, when confidential, the caller one who may read it.
 */
export function canReadIssue(caller: Caller, e: IssueEnd, assigneeIds: number[]): boolean {
  if (!canReadProject(caller, e.project, e.level)) return false;
  if (!featureAvailable(e.project, 'issues', { level: e.level, isAdmin: caller.isAdmin })) return false;
  return !e.issue.confidential || canReadConfidentialIssue(caller, e.level, e.issue, assigneeIds);
}

/**
 * IssuePolicy `admin_issue_link` on a readable issue: `admin_issue` (Planner and above,
 * administrators) or any member of the issue's project (`guest_access & read_issue & is_project_member`).
 */
export const canAdminIssueLink = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.GUEST;

const LINK_FIELDS = {
  id: sql<number>`"issue_links"."id"`.as('link_id'),
  sourceId: sql<number>`"issue_links"."source_id"`.as('link_source_id'),
  targetId: sql<number>`"issue_links"."target_id"`.as('link_target_id'),
  linkType: sql<string>`"issue_links"."link_type"`.as('link_type_value'),
  createdAt: sql<number>`"issue_links"."created_at"`.as('link_created_at'),
  updatedAt: sql<number>`"issue_links"."updated_at"`.as('link_updated_at'),
};
const ISSUE = aliasedColumns(issues, 'ei_');
const PROJECT = aliasedColumns(projects, 'ep_');
const NAMESPACE = aliasedColumns(namespaces, 'en_');

/** Issues with their project, namespace and the caller's level, for a batch (columns named apart: D1 keys batch rows by name). */
function endsSelect(db: Db, caller: Caller) {
  const level = caller.user ? projectLevelSql(caller.user.id) : sql<number>`0`;
  return db
    .select({ issue: ISSUE, project: PROJECT, namespace: NAMESPACE, level: level.as('end_level') })
    .from(issues)
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId));
}

const endOf = (r: { issue: IssueRow; project: ProjectRow; namespace: NamespaceRow; level: number }): IssueEnd => ({ ...r, level: Number(r.level ?? 0) });

/**
 * `issue.related_issues(current_user)`, before the readability filter: the issues linked to
 * `issueId` either way with each link, in link order, and their assignees. Unexecuted, for one batch.
 */
export function linkedIssuesReads(db: Db, caller: Caller, issueId: SQL) {
  const other = sql`CASE WHEN "issue_links"."source_id" = ${issueId} THEN "issue_links"."target_id" ELSE "issue_links"."source_id" END`;
  const level = caller.user ? projectLevelSql(caller.user.id) : sql<number>`0`;
  return [
    db
      .select({ link: LINK_FIELDS, issue: ISSUE, project: PROJECT, namespace: NAMESPACE, level: level.as('end_level') })
      .from(issueLinks)
      .innerJoin(issues, sql`${issues.id} = ${other}`)
      .innerJoin(projects, eq(projects.id, issues.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(or(sql`"issue_links"."source_id" = ${issueId}`, sql`"issue_links"."target_id" = ${issueId}`))
      .orderBy(sql`"issue_links"."id"`),
  ] as const;
}

/** The linked issues' ids, as a sub-select (for the entity reads in the same batch). */
export const linkedIssueIds = (issueId: SQL) =>
  sql`SELECT CASE WHEN l.source_id = ${issueId} THEN l.target_id ELSE l.source_id END FROM issue_links l WHERE l.source_id = ${issueId} OR l.target_id = ${issueId}`;

/** Readable linked issues from linkedIssuesReads' rows, with the assignees issueReads read for them. */
export function readableLinked(caller: Caller, rows: Awaited<ReturnType<typeof linkedIssuesReads>[0]>, assignees: { issueId: number; userId: number }[]) {
  const byIssue = new Map<number, number[]>();
  for (const a of assignees) byIssue.set(a.issueId, [...(byIssue.get(a.issueId) ?? []), a.userId]);
  return rows.filter((r) => canReadIssue(caller, endOf(r), byIssue.get(r.issue.id) ?? []));
}

/**
 * The link `linkId` of the issue `issueId` (`IssueLink.for_source_or_target(issue).find(id)`), its
 * two ends with their projects and the caller's level, and the ends' assignees. Unexecuted.
 */
export function linkAndEndsReads(db: Db, caller: Caller, issueId: SQL, linkId: number) {
  const ids = sql`(SELECT ol.id FROM issue_links ol WHERE ol.id = ${linkId} AND (ol.source_id IN (${issueId}) OR ol.target_id IN (${issueId})))`;
  const ends = sql`(SELECT el.source_id FROM issue_links el WHERE el.id IN ${ids} UNION SELECT el.target_id FROM issue_links el WHERE el.id IN ${ids})`;
  return [
    db.select().from(issueLinks).where(sql`${issueLinks.id} IN ${ids}`).limit(1),
    endsSelect(db, caller).where(sql`${issues.id} IN ${ends}`),
    db.select({ issueId: issueAssignees.issueId, userId: issueAssignees.userId }).from(issueAssignees).where(sql`${issueAssignees.issueId} IN ${ends}`),
  ] as const;
}

/**
 * What POST needs besides the source issue, all by sub-select so they share its batch: the target
 * issue with its project and the caller's level (the project row alone too, for its own 404), the
 * target's assignees, a link between the two either way, and how many links each end has.
 */
export function createReads(db: Db, caller: Caller, sourceId: SQL, targetProject: SQL, targetIid: number) {
  const target = sql`(SELECT ti.id FROM issues ti WHERE ti.project_id = ${targetProject} AND ti.iid = ${targetIid})`;
  const linksOf = (of: SQL) => db.select({ n: count() }).from(issueLinks).where(or(sql`${issueLinks.sourceId} IN (${of})`, sql`${issueLinks.targetId} IN (${of})`));
  const level = caller.user ? projectLevelSql(caller.user.id) : sql<number>`0`;
  return [
    db.select({ project: PROJECT, namespace: NAMESPACE, level: level.as('end_level') }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(sql`${projects.id} = ${targetProject}`).limit(1),
    db.select().from(issues).where(sql`${issues.id} = ${target}`).limit(1),
    db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(sql`${issueAssignees.issueId} = ${target}`),
    db
      .select({ id: issueLinks.id })
      .from(issueLinks)
      .where(
        or(
          and(sql`${issueLinks.sourceId} IN (${sourceId})`, sql`${issueLinks.targetId} = ${target}`),
          and(sql`${issueLinks.sourceId} = ${target}`, sql`${issueLinks.targetId} IN (${sourceId})`),
        ),
      )
      .limit(1),
    linksOf(sourceId),
    linksOf(target),
  ] as const;
}

/**
 * IssuableLink's validations of a new link, worded as IssuableLinks::CreateService words the 422
 * (`%{ref} cannot be added: %{errors}`, `ref` the issue asked for). Undefined when valid.
 */
export function linkError(source: IssueRow, target: IssueRow, counts: { source: number; target: number }): string | undefined {
  const errors: string[] = [];
  if (source.id === target.id) errors.push('cannot be related to itself');
  const tooMany = `This issue would exceed the maximum number of linked issues (${MAX_LINKS}).`;
  if (counts.source >= MAX_LINKS) errors.push(tooMany);
  else if (counts.target >= MAX_LINKS) errors.push(tooMany);
  return errors.length ? `#${target.iid} cannot be added: ${toSentence(errors)}` : undefined;
}

type Ref = { issue: Pick<IssueRow, 'id' | 'iid'>; project: Pick<ProjectRow, 'id' | 'path' | 'namespaceId'>; fullPath: string };

/** Issue#to_reference(from project): `#1` in the same project, `path#1` in the same namespace, else `full/path#1`. */
export const issueReference = (e: Ref, from: Pick<ProjectRow, 'id' | 'namespaceId'>) =>
  e.project.id === from.id ? `#${e.issue.iid}` : e.project.namespaceId === from.namespaceId ? `${e.project.path}#${e.issue.iid}` : `${e.fullPath}#${e.issue.iid}`;

/**
 * The system notes of linking or unlinking, on both issues, written only when `when` holds as the
 * batch reaches them (SystemNoteService relate_issuable / unrelate_issuable, EE block_issuable /
 * blocked_by_issuable): "marked this issue as related to #2", "… as blocking #2" on the source
 * and "… as blocked by #1" on the target, "removed the relation with #2".
 */
export function linkNotes(db: Db, link: { linkType: string; source: Ref; target: Ref }, unlink: boolean, authorId: number, at: number, when: SQL) {
  const { source, target } = link;
  const toTarget = issueReference(target, source.project);
  const toSource = issueReference(source, target.project);
  const [onSource, onTarget] = unlink
    ? [`removed the relation with ${toTarget}`, `removed the relation with ${toSource}`]
    : link.linkType === 'blocks'
      ? [`marked this issue as blocking ${toTarget}`, `marked this issue as blocked by ${toSource}`]
      : [`marked this issue as related to ${toTarget}`, `marked this issue as related to ${toSource}`];
  return [
    systemNoteInsertWhen(db, { noteableType: 'Issue', noteableId: source.issue.id, projectId: source.project.id, authorId, body: onSource, at }, when),
    systemNoteInsertWhen(db, { noteableType: 'Issue', noteableId: target.issue.id, projectId: target.project.id, authorId, body: onTarget, at }, when),
  ] as const;
}

export const endRef = (e: IssueEnd): Ref => ({ issue: e.issue, project: e.project, fullPath: `${e.namespace.fullPath}/${e.project.path}` });

// ---- Entities (lib/api/entities/related_issue.rb, issue_link.rb) ----

/** The Issue entity and the link as the listed issue's neighbour sees it. */
export const RelatedIssueSchema = IssueSchema.extend({
  issue_link_id: id,
  link_type: z.enum(LINK_TYPES),
  link_created_at: timestamp,
  link_updated_at: timestamp,
}).meta({ id: 'RelatedIssue' });

/** A stored link: its two issues as stored (source blocks target), never `is_blocked_by`. */
export const IssueLinkSchema = obj({ source_issue: IssueBasicSchema, target_issue: IssueBasicSchema, link_type: z.enum(['relates_to', 'blocks']) }).meta({ id: 'IssueLink' });

/** The link type from `issueId`'s side: a `blocks` link reads `is_blocked_by` from its target. */
export const linkTypeFrom = (link: Pick<IssueLinkRow, 'sourceId' | 'linkType'>, issueId: number): LinkType =>
  link.linkType === 'blocks' && link.sourceId !== issueId ? 'is_blocked_by' : (link.linkType as LinkType);

export function relatedIssueEntity(issue: Issue, link: Pick<IssueLinkRow, 'id' | 'sourceId' | 'linkType' | 'createdAt' | 'updatedAt'>, fromIssueId: number) {
  return { ...issue, issue_link_id: link.id, link_type: linkTypeFrom(link, fromIssueId), link_created_at: iso(link.createdAt), link_updated_at: iso(link.updatedAt) };
}

export const issueLinkEntity = (link: Pick<IssueLinkRow, 'linkType'>, source: IssueBasic, target: IssueBasic) => ({
  source_issue: source,
  target_issue: target,
  link_type: link.linkType as 'relates_to' | 'blocks',
});
