/**
 * The `tree/` of an export: `project.json` and one `project/<relation>.ndjson` per relation, each
 * line shaped as GitLab's exporter writes it (lib/gitlab/import_export/project/import_export.yml:
 * the same keys and nesting, ids of this server). Relations are read a page at a time, each page
 * with its related rows in one batch, so a large project is never read whole.
 */
import { and, asc, eq, gt, inArray, isNull, or } from 'drizzle-orm';
import type { Db } from '../db/client';
import { inJson } from '../db/batch-reads';
import { aliasedColumns } from '../db/aliased-columns';
import { awardEmoji, issueAssignees, issues, labelLinks, labelPriorities, labels, members, milestones, notes, protectedBranchAccessLevels, protectedBranches, timelogs, users } from '../db/schema';
import { ACCESS, FEATURES, featureLevel, type NamespaceRow, type ProjectRow, traversalIds } from '../projects/abilities';
import type { BlobStore } from '../platform/blobs';
import { today } from '../platform/time';
import { iso } from '../platform/time';
import { resourceEventsOf } from './export-resource-events';

/** Rows of a relation read per statement batch. */
export const PAGE = 200;

const at = (ms: number | null | undefined) => (ms == null ? null : iso(ms));
type Lines = AsyncGenerator<Record<string, unknown>>;

/** What every relation writer is given: storage, the project and who asked for the export. */
export interface ExportScope {
  db: Db;
  blobs: BlobStore;
  project: ProjectRow;
  namespace: NamespaceRow;
  userId: number;
  /** For relations read by id: start after this row (the cursor of an export split across messages). */
  after?: number;
}

/** project.json: the project's own attributes (never its name, path, namespace, ids or tokens). */
export function projectJson(p: ProjectRow, description: string | null) {
  return {
    description: description ?? p.description ?? '',
    visibility_level: p.visibility === 'public' ? 20 : p.visibility === 'internal' ? 10 : 0,
    archived: p.archived,
    merge_requests_rebase_enabled: p.mergeMethod === 'rebase_merge',
    merge_requests_ff_only_enabled: p.mergeMethod === 'ff',
    request_access_enabled: p.requestAccessEnabled,
    lfs_enabled: p.lfsEnabled,
    topics: JSON.parse(p.topics || '[]'),
    squash_option: p.squashOption,
    only_allow_merge_if_all_discussions_are_resolved: p.onlyAllowMergeIfAllDiscussionsAreResolved,
  };
}

/** ProjectFeature access levels: disabled 0, private 10, enabled 20. */
const FEATURE_LEVEL: Record<string, number> = { disabled: 0, private: 10, enabled: 20 };

/** `project_feature.ndjson`: a single-object relation, one JSON document (ndjson_writer.rb `write_relation`). */
export async function* projectFeatureLines({ project: p }: ExportScope): Lines {
  yield {
    project_id: p.id,
    ...Object.fromEntries(FEATURES.map((f) => [`${f}_access_level`, FEATURE_LEVEL[featureLevel(p, f)] ?? 20])),
    created_at: at(p.createdAt),
    updated_at: at(p.updatedAt),
  };
}

const labelJson = (l: typeof labels.$inferSelect) => ({
  id: l.id,
  title: l.title,
  color: l.color,
  project_id: l.projectId,
  created_at: at(l.createdAt),
  updated_at: at(l.updatedAt),
  template: false,
  description: l.description ?? '',
  type: l.projectId ? 'ProjectLabel' : 'GroupLabel',
});

const milestoneJson = (m: typeof milestones.$inferSelect) => ({
  id: m.id,
  title: m.title,
  project_id: m.projectId,
  description: m.description,
  due_date: m.dueDate,
  start_date: m.startDate,
  created_at: at(m.createdAt),
  updated_at: at(m.updatedAt),
  state: m.state,
  iid: m.iid,
  ...(m.groupId ? { group_id: m.groupId } : {}),
});

export async function* labelLines({ db, project: { id: projectId }, after: start }: ExportScope): Lines {
  let after = start ?? 0;
  for (;;) {
    const rows = await db.select().from(labels).where(and(eq(labels.projectId, projectId), gt(labels.id, after))).orderBy(asc(labels.id)).limit(PAGE).all();
    if (!rows.length) return;
    const prios = await db.select().from(labelPriorities).where(and(eq(labelPriorities.projectId, projectId), inJson(labelPriorities.labelId, rows.map((r) => r.id)))).all();
    for (const l of rows) yield { ...labelJson(l), priorities: prios.filter((p) => p.labelId === l.id).map((p) => ({ project_id: p.projectId, priority: p.priority })) };
    after = rows[rows.length - 1].id;
  }
}

export async function* milestoneLines({ db, project: { id: projectId }, after: start }: ExportScope): Lines {
  let after = start ?? 0;
  for (;;) {
    const rows = await db.select().from(milestones).where(and(eq(milestones.projectId, projectId), gt(milestones.id, after))).orderBy(asc(milestones.id)).limit(PAGE).all();
    if (!rows.length) return;
    for (const m of rows) yield { ...milestoneJson(m), events: [] };
    after = rows[rows.length - 1].id;
  }
}

export type NoteRow = typeof notes.$inferSelect & { authorName: string | null };

/** A note as import_export.yml lists it: author by name only, its award emoji, no events kept here. */
export function noteJson(n: NoteRow, emoji: (typeof awardEmoji.$inferSelect)[]) {
  return {
    id: n.id,
    note: n.body,
    noteable_type: n.noteableType,
    author_id: n.authorId,
    created_at: at(n.createdAt),
    updated_at: at(n.updatedAt),
    project_id: n.projectId,
    attachment: { url: null },
    line_code: n.lineCode,
    commit_id: n.commitId,
    // A commit note has no noteable row (GitLab's noteable_id is null; commit_id names it).
    noteable_id: n.noteableType === 'Commit' ? null : n.noteableId,
    system: n.system,
    st_diff: null,
    updated_by_id: n.updatedById,
    type: n.type,
    // Gitlab::Diff::Position as its hash; this server keeps one position, the one the note was made at.
    position: n.position ? (JSON.parse(n.position) as unknown) : null,
    original_position: n.position ? (JSON.parse(n.position) as unknown) : null,
    resolved_at: at(n.resolvedAt),
    resolved_by_id: n.resolvedById,
    discussion_id: n.discussionId,
    confidential: n.internal,
    internal: n.internal,
    author: { name: n.authorName ?? '' },
    award_emoji: emoji.filter((e) => e.awardableType === 'Note' && e.awardableId === n.id).map(awardJson),
    events: [],
  };
}

export const awardJson = (e: typeof awardEmoji.$inferSelect) => ({
  id: e.id,
  name: e.name,
  user_id: e.userId,
  awardable_type: e.awardableType,
  awardable_id: e.awardableId,
  created_at: at(e.createdAt),
  updated_at: at(e.updatedAt),
});

/** The notes of a page of issuables and the award emoji on them and on the issuables, in one batch. */
export async function notesOf(db: Db, type: 'Issue' | 'MergeRequest', ids: number[]) {
  const [noteRows, emoji] = await db.batch([
    db
      .select({ note: notes, authorName: aliasedColumns(users, 'u_').name })
      .from(notes)
      .leftJoin(users, eq(users.id, notes.authorId))
      .where(and(eq(notes.noteableType, type), inJson(notes.noteableId, ids)))
      .orderBy(asc(notes.id)),
    db.select().from(awardEmoji).where(and(eq(awardEmoji.awardableType, type), inJson(awardEmoji.awardableId, ids))).orderBy(asc(awardEmoji.id)),
  ]);
  const noteEmoji = noteRows.length
    ? await db.select().from(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), inJson(awardEmoji.awardableId, noteRows.map((n) => n.note.id)))).all()
    : [];
  const byParent = new Map<number, ReturnType<typeof noteJson>[]>();
  for (const r of noteRows) {
    const list = byParent.get(r.note.noteableId) ?? [];
    list.push(noteJson({ ...r.note, authorName: r.authorName }, noteEmoji));
    byParent.set(r.note.noteableId, list);
  }
  return { notesOf: (id: number) => byParent.get(id) ?? [], awardsOf: (id: number) => emoji.filter((e) => e.awardableId === id).map(awardJson) };
}

/** Label links of a page of issuables, each with its label. */
export async function labelLinksOf(db: Db, type: 'Issue' | 'MergeRequest', ids: number[]) {
  const rows = await db
    .select({ link: labelLinks, label: labels })
    .from(labelLinks)
    .innerJoin(labels, eq(labels.id, labelLinks.labelId))
    .where(and(eq(labelLinks.targetType, type), inJson(labelLinks.targetId, ids)))
    .all();
  return (id: number) =>
    rows
      .filter((r) => r.link.targetId === id)
      .map((r) => ({ label_id: r.link.labelId, target_id: r.link.targetId, target_type: type, created_at: at(r.link.createdAt), updated_at: at(r.link.createdAt), label: labelJson(r.label) }));
}

export async function* issueLines({ db, project: { id: projectId }, after: start }: ExportScope): Lines {
  let after = start ?? 0;
  for (;;) {
    const rows = await db.select().from(issues).where(and(eq(issues.projectId, projectId), gt(issues.id, after))).orderBy(asc(issues.id)).limit(PAGE).all();
    if (!rows.length) return;
    const ids = rows.map((r) => r.id);
    const milestoneIds = [...new Set(rows.map((r) => r.milestoneId).filter((m): m is number => m != null))];
    const [assignees, logs, ms] = await db.batch([
      db.select().from(issueAssignees).where(inJson(issueAssignees.issueId, ids)).orderBy(asc(issueAssignees.position)),
      db.select().from(timelogs).where(inJson(timelogs.issueId, ids)).orderBy(asc(timelogs.id)),
      db.select().from(milestones).where(inJson(milestones.id, milestoneIds)),
    ]);
    const { notesOf: notesFor, awardsOf } = await notesOf(db, 'Issue', ids);
    const linksOf = await labelLinksOf(db, 'Issue', ids);
    const eventsOf = await resourceEventsOf(db, 'Issue', ids);
    for (const i of rows) {
      const milestone = ms.find((m) => m.id === i.milestoneId);
      yield {
        id: i.id,
        title: i.title,
        author_id: i.authorId,
        project_id: i.projectId,
        created_at: at(i.createdAt),
        updated_at: at(i.updatedAt),
        position: i.relativePosition ?? 0,
        branch_name: null,
        description: i.description,
        state: i.state,
        iid: i.iid,
        updated_by_id: i.lastEditedById,
        confidential: i.confidential,
        due_date: i.dueDate,
        moved_to_id: i.movedToId,
        closed_at: at(i.closedAt),
        closed_by_id: i.closedById,
        discussion_locked: i.discussionLocked,
        time_estimate: i.timeEstimate,
        weight: i.weight,
        health_status: i.healthStatus,
        issue_type: i.issueType,
        last_edited_at: at(i.lastEditedAt),
        last_edited_by_id: i.lastEditedById,
        issue_assignees: assignees.filter((a) => a.issueId === i.id).map((a) => ({ user_id: a.userId, issue_id: a.issueId })),
        award_emoji: awardsOf(i.id),
        ...(milestone ? { milestone: { ...milestoneJson(milestone), events: [] } } : {}),
        label_links: linksOf(i.id),
        notes: notesFor(i.id),
        timelogs: logs
          .filter((l) => l.issueId === i.id)
          .map((l) => ({ id: l.id, time_spent: l.timeSpent, user_id: l.userId, issue_id: l.issueId, merge_request_id: null, spent_at: at(l.spentAt), created_at: at(l.createdAt), updated_at: at(l.createdAt), summary: l.summary, note_id: null })),
        ...eventsOf(i.id),
        events: [],
      };
    }
    after = rows[rows.length - 1].id;
  }
}

type MemberRow = { m: typeof members.$inferSelect; id: number; email: string; publicEmail: string | null; username: string };

const memberJson = (r: MemberRow) => ({
  id: r.m.id,
  access_level: r.m.accessLevel,
  source_id: r.m.sourceId,
  // Group members become members of the imported project (ProjectExportPresenter#converted_group_members).
  source_type: 'Project',
  user_id: r.m.userId,
  notification_level: 3,
  created_at: at(r.m.createdAt),
  updated_at: at(r.m.updatedAt),
  created_by_id: r.m.createdById,
  invite_email: null,
  invite_token: null,
  invite_accepted_at: null,
  requested_at: null,
  expires_at: r.m.expiresAt,
  user: { id: r.id, public_email: r.publicEmail || null, email: r.email, username: r.username },
});

/**
 * `project_members` (ProjectExportPresenter#project_members): the direct members, then, when the
 * exporter may administer the project's group (an owner of it or an ancestor, or an administrator),
 * the group's members (inherited ones too, each user once at their highest level) who are not
 * members of the project themselves. `user` is `{id, public_email, email, username}`: import matches by email.
 */
export async function* memberLines(x: ExportScope): Lines {
  const { db, project, namespace, userId } = x;
  const groupIds = namespace.kind === 'Group' ? traversalIds(namespace) : [];
  // Named apart from the members' columns: a D1 batch keys rows by column name (db/aliased-columns.ts).
  const u = aliasedColumns(users, 'u_');
  const select = { m: members, id: u.id, email: u.email, publicEmail: u.publicEmail, username: u.username };
  const unexpired = or(isNull(members.expiresAt), gt(members.expiresAt, today()));
  const [direct, inGroups, exporter] = await db.batch([
    db.select(select).from(members).innerJoin(users, eq(users.id, members.userId)).where(and(eq(members.sourceType, 'Project'), eq(members.sourceId, project.id))).orderBy(asc(members.id)),
    db.select(select).from(members).innerJoin(users, eq(users.id, members.userId)).where(and(eq(members.sourceType, 'Namespace'), inJson(members.sourceId, groupIds), unexpired)).orderBy(asc(members.id)),
    db.select({ isAdmin: users.isAdmin }).from(users).where(eq(users.id, userId)).limit(1),
  ]);
  for (const r of direct) yield memberJson(r);
  const owner = exporter[0]?.isAdmin || inGroups.some((r) => r.id === userId && r.m.accessLevel >= ACCESS.OWNER);
  if (!owner) return;
  const best = new Map<number, MemberRow>();
  const projectUsers = new Set(direct.map((r) => r.id));
  for (const r of inGroups) {
    if (projectUsers.has(r.id)) continue;
    const seen = best.get(r.id);
    if (!seen || r.m.accessLevel > seen.m.accessLevel) best.set(r.id, r);
  }
  for (const r of best.values()) yield memberJson(r);
}

export async function* protectedBranchLines({ db, project: { id: projectId } }: ExportScope): Lines {
  const [branches, levels] = await db.batch([
    db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).orderBy(asc(protectedBranches.id)),
    db
      .select()
      .from(protectedBranchAccessLevels)
      .where(inArray(protectedBranchAccessLevels.protectedBranchId, db.select({ id: protectedBranches.id }).from(protectedBranches).where(eq(protectedBranches.projectId, projectId))))
      .orderBy(asc(protectedBranchAccessLevels.id)),
  ]);
  const levelJson = (l: typeof protectedBranchAccessLevels.$inferSelect) => ({
    id: l.id,
    protected_branch_id: l.protectedBranchId,
    access_level: l.accessLevel,
    created_at: at(l.createdAt),
    updated_at: at(l.updatedAt),
    user_id: l.userId,
    group_id: l.groupId,
  });
  for (const b of branches) {
    const of = (kind: string) => levels.filter((l) => l.protectedBranchId === b.id && l.kind === kind).map(levelJson);
    yield {
      id: b.id,
      project_id: b.projectId,
      name: b.name,
      created_at: at(b.createdAt),
      updated_at: at(b.updatedAt),
      code_owner_approval_required: b.codeOwnerApprovalRequired,
      allow_force_push: b.allowForcePush,
      merge_access_levels: of('merge'),
      push_access_levels: of('push'),
      unprotect_access_levels: of('unprotect'),
    };
  }
}
