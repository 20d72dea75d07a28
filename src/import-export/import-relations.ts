/**
 * One archive line -> the statements that write it into the new project (relation_factory.rb and
 * object_builder.rb, for what this server holds). Every id in the archive is ignored: rows get new
 * ids, point only at rows of the importing project (found by iid or title inside it), and users are
 * mapped through `users` (archive user id -> local user id; unmatched authors become the importer,
 * as GitLab's MembersMapper falls back to). A line that cannot be written throws LineError: that
 * line fails, not the import.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import type { BulkRows } from './import-bulk';
import { awardEmoji, issueAssignees, issues, labelPriorities, labels, mergeRequestDiffs, mergeRequests, milestones, protectedBranchAccessLevels, protectedBranches, timelogs } from '../db/schema';

import { archiveDiffStatements } from './import-diffs';
import { type ArchiveEvents, parseResourceEvents, pushResourceEvents } from './import-resource-events';

export class LineError extends Error {}

export interface ImportContext {
  db: Db;
  projectId: number;
  importerId: number;
  /** Archive user id -> local user id. */
  users: Record<string, number>;
  now: number;
  /** iids already taken in this project (issues, merge requests), so a repeated iid fails its line only. */
  issueIids: Set<number>;
  mrIids: Set<number>;
  openBranchPairs: Set<string>;
  /** Label titles written in this run. */
  labelsSeen: Set<string>;
  /** Milestone titles written in this run: an issuable's milestone then needs no statement of its own. */
  milestonesSeen: Set<string>;
  /** The chunk's rows written in bulk (issues, notes, label links), after its other statements. */
  bulk: BulkRows;
  /** The settings' diff limits for archive-stored merge request diffs (import-diffs.ts). */
  diffLimits?: { maxFiles: number; maxPatchBytes: number };
}

type Row = Record<string, unknown>;
type Stmt = BatchItem<'sqlite'>;

const str = (v: unknown, max = 1_000_000): string | null => (typeof v === 'string' ? v.slice(0, max) : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const bool = (v: unknown) => v === true;
const time = (v: unknown, fallback: number): number => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : fallback;
};
const day = (v: unknown): string | null => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null);
const list = (v: unknown): Row[] => (Array.isArray(v) ? v.filter((x): x is Row => !!x && typeof x === 'object' && !Array.isArray(x)) : []);
const obj = (v: unknown): Row | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : null);
const COLOR = /^#[0-9a-fA-F]{6}$/;

export const userOf = (ctx: ImportContext, archiveId: unknown): number => ctx.users[String(int(archiveId))] ?? ctx.importerId;
const knownUser = (ctx: ImportContext, archiveId: unknown): number | undefined => ctx.users[String(int(archiveId))];

function title(row: Row, max = 255): string {
  const t = str(row.title);
  if (!t || !t.trim()) throw new LineError("Validation failed: Title can't be blank");
  if (t.length > max) throw new LineError(`Validation failed: Title is too long (maximum is ${max} characters)`);
  return t;
}

const labelIdSql = (ctx: ImportContext, t: string) => sql<number>`(SELECT id FROM labels WHERE project_id = ${ctx.projectId} AND title = ${t})`;
const milestoneIdSql = (ctx: ImportContext, t: string) => sql<number>`(SELECT id FROM milestones WHERE project_id = ${ctx.projectId} AND title = ${t})`;

/** A label (project or group label in the archive) as a project label; an existing title is kept. */
function labelStatements(ctx: ImportContext, row: Row, fromLink = false): Stmt[] {
  const t = title(row);
  // A label an earlier link of this run already wrote needs no statement (its title is all a link uses).
  if (fromLink && ctx.labelsSeen.has(t)) return [];
  ctx.labelsSeen.add(t);
  const color = str(row.color) ?? '';
  const out: Stmt[] = [
    ctx.db
      .insert(labels)
      .values({ projectId: ctx.projectId, title: t, color: COLOR.test(color) ? color : '#428bca', description: str(row.description, 2000) || null, createdAt: time(row.created_at, ctx.now), updatedAt: time(row.updated_at, ctx.now) })
      .onConflictDoNothing(),
  ];
  const prio = list(row.priorities).map((p) => int(p.priority)).find((p) => p !== null);
  if (prio != null) out.push(ctx.db.insert(labelPriorities).select(sql`SELECT ${ctx.projectId}, ${labelIdSql(ctx, t)}, ${prio}`).onConflictDoNothing());
  return out;
}
export const labelRow = (ctx: ImportContext, row: Row) => labelStatements(ctx, row);

/** A milestone; its archive iid is kept unless taken, then the next free one. A taken title keeps the existing one. */
export function milestoneRow(ctx: ImportContext, row: Row): Stmt[] {
  const t = title(row);
  ctx.milestonesSeen.add(t);
  const iid = int(row.iid);
  const P = ctx.projectId;
  const iidSql =
    iid && iid > 0
      ? sql`(SELECT CASE WHEN EXISTS (SELECT 1 FROM milestones WHERE project_id = ${P} AND iid = ${iid}) THEN (SELECT max(iid) + 1 FROM milestones WHERE project_id = ${P}) ELSE ${iid} END)`
      : sql`(SELECT coalesce(max(iid), 0) + 1 FROM milestones WHERE project_id = ${P})`;
  return [
    ctx.db
      .insert(milestones)
      .values({
        projectId: P,
        iid: iidSql,
        title: t,
        description: str(row.description),
        state: row.state === 'closed' ? 'closed' : 'active',
        dueDate: day(row.due_date),
        startDate: day(row.start_date),
        createdAt: time(row.created_at, ctx.now),
        updatedAt: time(row.updated_at, ctx.now),
      })
      .onConflictDoNothing(),
  ];
}

/** A protected branch with its push and merge access levels (role levels only; users and groups of another instance mean nothing here). */
export function protectedBranchRow(ctx: ImportContext, row: Row): Stmt[] {
  const name = str(row.name, 255);
  if (!name) throw new LineError("Validation failed: Name can't be blank");
  const pbId = sql<number>`(SELECT id FROM protected_branches WHERE project_id = ${ctx.projectId} AND name = ${name})`;
  const out: Stmt[] = [ctx.db.insert(protectedBranches).values({ projectId: ctx.projectId, name, allowForcePush: bool(row.allow_force_push), createdAt: ctx.now, updatedAt: ctx.now }).onConflictDoNothing()];
  for (const [key, kind] of [['push_access_levels', 'push'], ['merge_access_levels', 'merge']] as const) {
    const levels = list(row[key]).map((a) => int(a.access_level)).filter((l): l is number => l === 0 || l === 30 || l === 40 || l === 60);
    for (const accessLevel of levels.length ? [...new Set(levels)] : [40])
      out.push(ctx.db.insert(protectedBranchAccessLevels).values({ protectedBranchId: pbId, kind, accessLevel, createdAt: ctx.now, updatedAt: ctx.now }));
  }
  return out;
}

/** `*By <name> on <updated_at without fraction> (imported from GitLab)*` (relation_factory.rb missing_author_note). */
export function missingAuthorNote(n: Row): string {
  const name = str(obj(n.author)?.name, 255) ?? '';
  const timestamp = (str(n.updated_at, 64) ?? new Date().toISOString()).split('.')[0];
  return `*By ${name} on ${timestamp} (imported from GitLab)*`;
}

/** A position's shas: 40 hex digits, or null where GitLab leaves one out. */
const shaOrNull = (v: unknown) => (typeof v === 'string' && /^[0-9a-f]{40}$/.test(v) ? v : null);
const lineOrNull = (v: unknown) => (int(v) !== null && int(v)! >= 0 ? int(v) : null);

/**
 * A DiffNote's position (the archive's `position`, else `original_position`: an object, or its JSON)
 * as Position#to_h stores it, only its known keys; null when it names no file or no diff refs.
 */
function positionOf(n: Row): string | null {
  let v = n.position ?? n.original_position;
  if (typeof v === 'string' && v.length < 10_000) {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return null;
    }
  }
  const p = obj(v);
  if (!p) return null;
  const base = { base_sha: shaOrNull(p.base_sha), start_sha: shaOrNull(p.start_sha), head_sha: shaOrNull(p.head_sha), old_path: str(p.old_path, 4096), new_path: str(p.new_path, 4096) };
  if (!base.head_sha || (!base.old_path && !base.new_path)) return null;
  if (p.position_type === 'image') return JSON.stringify({ ...base, position_type: 'image', width: int(p.width), height: int(p.height), x: int(p.x), y: int(p.y) });
  const range = obj(p.line_range);
  return JSON.stringify({ ...base, position_type: 'text', old_line: lineOrNull(p.old_line), new_line: lineOrNull(p.new_line), line_range: range ? JSON.parse(JSON.stringify(range).slice(0, 4096)) : null, ignore_whitespace_change: false });
}

/**
 * A noteable's notes, held in the chunk's bulk rows (import-bulk.ts) and written after their
 * noteable: discussion ids, DiscussionNote/DiffNote (with its position, line code and commit) and
 * the resolved state come over as exported; on a merge request a discussion note is resolvable
 * (Note#resolvable?: RESOLVABLE_TYPES, not system), and its resolver is mapped like any user.
 */
export function noteRows(ctx: ImportContext, noteableType: 'Issue' | 'MergeRequest' | 'Commit', noteableIid: number, rows: Row[]): void {
  for (const n of rows) {
    let body = str(n.note);
    const mapped = knownUser(ctx, n.author_id) !== undefined;
    if ((body === null || body === '') && mapped) continue;
    // RelationFactory#set_note_author: a note whose author is not mapped names the original author.
    if (!mapped) body = `${body || '*Blank note*'}\n\n ${missingAuthorNote(n)}`;
    const discussion = str(n.discussion_id);
    const position = n.type === 'DiffNote' ? positionOf(n) : null;
    // A DiffNote whose position cannot be held stays in its discussion as a plain discussion note.
    const type = position ? 'DiffNote' : n.type === 'DiscussionNote' || n.type === 'DiffNote' ? 'DiscussionNote' : null;
    const resolvable = noteableType === 'MergeRequest' && type !== null && !bool(n.system);
    const resolvedAt = resolvable && typeof n.resolved_at === 'string' ? time(n.resolved_at, ctx.now) : null;
    ctx.bulk.note({
      noteableType,
      noteableIid,
      authorId: userOf(ctx, n.author_id),
      body: body!,
      system: bool(n.system),
      internal: bool(n.internal) || bool(n.confidential),
      type,
      discussionId: discussion && /^[0-9a-f]{40}$/.test(discussion) ? discussion : null,
      resolvable,
      resolvedAt,
      resolvedById: resolvedAt !== null ? userOf(ctx, n.resolved_by_id) : null,
      commitId: noteableType === 'Commit' || position ? str(n.commit_id, 64) : null,
      position,
      lineCode: position ? str(n.line_code, 255) : null,
      createdAt: time(n.created_at, ctx.now),
      updatedAt: time(n.updated_at, ctx.now),
    });
  }
}

function awardStatements(ctx: ImportContext, type: 'Issue' | 'MergeRequest', targetId: ReturnType<typeof sql>, rows: Row[]): { stmts: Stmt[]; up: number; down: number } {
  const seen = new Set<string>();
  let up = 0;
  let down = 0;
  const stmts: Stmt[] = [];
  for (const a of rows) {
    const name = str(a.name, 255);
    const userId = userOf(ctx, a.user_id);
    if (!name || !/^[a-z0-9_+-]+$/.test(name) || seen.has(`${name}:${userId}`)) continue;
    seen.add(`${name}:${userId}`);
    if (name === 'thumbsup') up++;
    if (name === 'thumbsdown') down++;
    stmts.push(ctx.db.insert(awardEmoji).values({ name, userId, awardableType: type, awardableId: targetId as never, createdAt: time(a.created_at, ctx.now), updatedAt: time(a.updated_at, ctx.now) }).onConflictDoNothing());
  }
  return { stmts, up, down };
}

/**
 * Labels an issuable refers to, created on the fly when the archive's own list lacks them (the
 * statements answered); its links to them go in the chunk's bulk rows, written after it.
 */
function labelLinkStatements(ctx: ImportContext, targetType: 'Issue' | 'MergeRequest', targetIid: number, rows: Row[]): Stmt[] {
  const out: Stmt[] = [];
  for (const link of rows) {
    const label = obj(link.label);
    if (!label) continue;
    try {
      out.push(...labelStatements(ctx, label, true));
    } catch {
      continue;
    }
    ctx.bulk.labelLink({ targetType, targetIid, labelTitle: String(label.title), createdAt: time(link.created_at, ctx.now) });
  }
  return out;
}

/** The milestone an issuable refers to: created on the fly when the archive's own list lacks it. */
function milestoneRef(ctx: ImportContext, row: Row): { stmts: Stmt[]; title: string | null } {
  const m = obj(row.milestone);
  if (!m || typeof m.title !== 'string' || !m.title) return { stmts: [], title: null };
  // Written earlier in this run: its row exists (a title is unique in a project), only the title is needed.
  if (ctx.milestonesSeen.has(m.title)) return { stmts: [], title: m.title };
  try {
    return { stmts: milestoneRow(ctx, m), title: m.title };
  } catch {
    return { stmts: [], title: null };
  }
}

/** The line's resource events, checked before anything of the line is held (a bad one fails the line). */
function eventsOf(row: Row): ArchiveEvents {
  const events = parseResourceEvents(row);
  if (typeof events === 'string') throw new LineError(events);
  return events;
}

/**
 * The labels and milestones the events name, created on the fly like a link's (ObjectBuilder finds
 * or creates them by title); the events themselves go in the bulk rows, after their issuable.
 */
function eventStatements(ctx: ImportContext, type: 'Issue' | 'MergeRequest', iid: number, events: ArchiveEvents): Stmt[] {
  const out: Stmt[] = [];
  const labelTitle = (label: Row | null) => {
    if (!label) return null;
    try {
      out.push(...labelStatements(ctx, label, true));
      return String(label.title);
    } catch {
      return null;
    }
  };
  const milestoneTitle = (milestone: Row | null) => {
    const ref = milestoneRef(ctx, { milestone });
    out.push(...ref.stmts);
    return ref.title;
  };
  pushResourceEvents(ctx.bulk, type, iid, events, { user: (id) => userOf(ctx, id), time: (v) => time(v, ctx.now), labelTitle, milestoneTitle });
  return out;
}

function takeIid(taken: Set<number>, row: Row, what: string): number {
  const iid = int(row.iid);
  if (iid !== null && iid > 0) {
    if (taken.has(iid)) throw new LineError(`Validation failed: ${what} iid has already been taken`);
    taken.add(iid);
    return iid;
  }
  const next = Math.max(0, ...taken) + 1;
  taken.add(next);
  return next;
}

const ISSUE_TYPES = new Set(['issue', 'incident', 'test_case', 'task']);

/** An issue with its notes, award emoji, labels, milestone, assignees and timelogs. */
export function issueRow(ctx: ImportContext, row: Row): Stmt[] {
  const t = title(row);
  const events = eventsOf(row);
  const iid = takeIid(ctx.issueIids, row, 'Issue');
  const P = ctx.projectId;
  const idSql = sql`(SELECT id FROM issues WHERE project_id = ${P} AND iid = ${iid})`;
  const ms = milestoneRef(ctx, row);
  const awards = awardStatements(ctx, 'Issue', idSql, list(row.award_emoji));
  const logs = list(row.timelogs).filter((l) => int(l.time_spent) !== null);
  const closed = row.state === 'closed';
  // The issue row itself goes in the chunk's bulk insert; what names it by iid runs after that.
  ctx.bulk.issue({
    iid,
    title: t,
    description: str(row.description),
    state: closed ? 'closed' : 'opened',
    authorId: userOf(ctx, row.author_id),
    issueType: typeof row.issue_type === 'string' && ISSUE_TYPES.has(row.issue_type) ? row.issue_type : 'issue',
    confidential: bool(row.confidential),
    discussionLocked: bool(row.discussion_locked),
    milestoneTitle: ms.title,
    dueDate: day(row.due_date),
    weight: int(row.weight),
    timeEstimate: Math.max(0, int(row.time_estimate) ?? 0),
    totalTimeSpent: logs.reduce((s, l) => s + (int(l.time_spent) ?? 0), 0),
    upvotes: awards.up,
    downvotes: awards.down,
    closedAt: closed ? time(row.closed_at, time(row.updated_at, ctx.now)) : null,
    // members_mapper.rb maps closed_by_id like every user reference: an unmatched closer is the importer.
    closedById: closed && int(row.closed_by_id) !== null ? userOf(ctx, row.closed_by_id) : null,
    createdAt: time(row.created_at, ctx.now),
    updatedAt: time(row.updated_at, ctx.now),
  });
  const assignees = [...new Set(list(row.issue_assignees).map((a) => knownUser(ctx, a.user_id)).filter((u): u is number => u !== undefined))];
  noteRows(ctx, 'Issue', iid, list(row.notes));
  ctx.bulk.after.push(
    ...assignees.map((userId, position) => ctx.db.insert(issueAssignees).select(sql`SELECT ${idSql}, ${userId}, ${position}`).onConflictDoNothing()),
    ...awards.stmts,
    ...logs.map((l) =>
      ctx.db.insert(timelogs).values({
        issueId: idSql as never,
        userId: userOf(ctx, l.user_id),
        timeSpent: int(l.time_spent)!,
        summary: str(l.summary, 255),
        spentAt: time(l.spent_at, time(l.created_at, ctx.now)),
        createdAt: time(l.created_at, ctx.now),
      }),
    ),
  );
  // Milestone and labels first: the bulk rows find them by title.
  return [...ms.stmts, ...labelLinkStatements(ctx, 'Issue', iid, list(row.label_links)), ...eventStatements(ctx, 'Issue', iid, events)];
}

const MR_STATES = new Set(['opened', 'closed', 'merged', 'locked']);

/**
 * A merge request with its notes, award emoji, labels and milestone. Its head, base and start shas
 * (merge_request_diff, or diff_head_sha) are kept where they name a commit of the imported
 * repository (the repository step runs first), with a diff version pointing at them.
 */
export function mergeRequestRow(ctx: ImportContext, row: Row): Stmt[] {
  const t = title(row);
  const source = str(row.source_branch, 255);
  const target = str(row.target_branch, 255);
  if (!source || !target) throw new LineError("Validation failed: Source branch can't be blank, Target branch can't be blank");
  const state = typeof row.state === 'string' && MR_STATES.has(row.state) ? row.state : 'opened';
  // merge_requests_open_branches: one open merge request per branch pair; a second one fails its line.
  const pair = `${source}\n${target}`;
  const open = state === 'opened' || state === 'locked';
  if (open && ctx.openBranchPairs.has(pair)) throw new LineError('Validation failed: Another open merge request already exists for this source branch');
  const events = eventsOf(row);
  const iid = takeIid(ctx.mrIids, row, 'Merge request');
  if (open) ctx.openBranchPairs.add(pair);
  const P = ctx.projectId;
  const idSql = sql`(SELECT id FROM merge_requests WHERE project_id = ${P} AND iid = ${iid})`;
  const ms = milestoneRef(ctx, row);
  const awards = awardStatements(ctx, 'MergeRequest', idSql, list(row.award_emoji));
  const diff = obj(row.merge_request_diff);
  const mergedAt = state === 'merged' ? time(obj(row.metrics)?.merged_at, time(row.updated_at, ctx.now)) : null;
  const mr = ctx.db.insert(mergeRequests).values({
    projectId: P,
    iid,
    sourceProjectId: P,
    sourceBranch: source,
    targetBranch: target,
    title: t,
    description: str(row.description),
    state,
    draft: /^\s*(\[draft\]|\(draft\)|draft:|draft -|\[wip\]|wip:)/i.test(t),
    authorId: userOf(ctx, row.author_id),
    milestoneId: (ms.title === null ? null : milestoneIdSql(ctx, ms.title)) as never,
    mergeUserId: knownUser(ctx, row.merge_user_id) ?? null,
    mergedById: state === 'merged' ? (knownUser(ctx, obj(row.metrics)?.merged_by_id) ?? null) : null,
    mergedAt,
    squash: bool(row.squash),
    mergeWhenPipelineSucceeds: bool(row.merge_when_pipeline_succeeds),
    mergeStatus: 'unchecked',
    discussionLocked: row.discussion_locked === true ? true : null,
    approvalsBeforeMerge: int(row.approvals_before_merge),
    timeEstimate: Math.max(0, int(row.time_estimate) ?? 0),
    upvotes: awards.up,
    downvotes: awards.down,
    closedById: state === 'closed' && int(obj(row.metrics)?.latest_closed_by_id) !== null ? userOf(ctx, obj(row.metrics)?.latest_closed_by_id) : null,
    closedAt: state === 'closed' ? time(obj(row.metrics)?.latest_closed_at, time(row.updated_at, ctx.now)) : null,
    headSha: commitOf(ctx, diff?.head_commit_sha ?? row.diff_head_sha) as never,
    baseSha: commitOf(ctx, diff?.base_commit_sha) as never,
    startSha: commitOf(ctx, diff?.start_commit_sha) as never,
    createdAt: time(row.created_at, ctx.now),
    updatedAt: time(row.updated_at, ctx.now),
  });
  const version = ctx.db.insert(mergeRequestDiffs).select(
    sql`SELECT NULL, id, 'collected', head_sha, base_sha, start_sha, ${str(diff?.real_size, 16) ?? null}, NULL, created_at, updated_at FROM merge_requests WHERE project_id = ${P} AND iid = ${iid} AND head_sha IS NOT NULL`,
  );
  noteRows(ctx, 'MergeRequest', iid, list(row.notes));
  return [...ms.stmts, mr, version, ...archiveDiffStatements(ctx, iid, diff), ...labelLinkStatements(ctx, 'MergeRequest', iid, list(row.label_links)), ...awards.stmts, ...eventStatements(ctx, 'MergeRequest', iid, events)];
}

/** A sha of the archive, kept only when the imported repository holds that commit. */
function commitOf(ctx: ImportContext, sha: unknown) {
  if (typeof sha !== 'string' || !/^[0-9a-f]{40}$/.test(sha)) return null;
  return sql`(SELECT sha FROM repo_commits WHERE project_id = ${ctx.projectId} AND sha = ${sha})`;
}

/** Rows of the project already written (a resumed import), so iids and open branch pairs are known. */
export function takenReads(db: Db, projectId: number) {
  return [
    db.select({ iid: issues.iid }).from(issues).where(eq(issues.projectId, projectId)),
    db.select({ iid: mergeRequests.iid, state: mergeRequests.state, source: mergeRequests.sourceBranch, target: mergeRequests.targetBranch }).from(mergeRequests).where(and(eq(mergeRequests.projectId, projectId))),
  ] as const;
}
