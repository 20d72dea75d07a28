/**
 * The import's bulk writer: the rows of many archive lines (issues, notes, label links, resource
 * events) go in with one statement a table and chunk, `INSERT ... SELECT ... FROM json_each(?)` over one bound JSON
 * array, instead of one statement a row. Why: with one statement a row, a 10,000-issue import
 * spent most of its time building and running ~50,000 statements (query building, prepared-statement
 * lookups, garbage) for rows of a few values each (bench import_export, issue 15 item 7). One bound
 * value a statement also stays far under D1's 100 bound parameters, and each JSON array is kept
 * under MAX_JSON_CHARS (D1 refuses a string over 2 MB).
 *
 * Rows refer to their parent by iid inside the project, as the per-row statements did; the
 * statements come in dependency order (issues, then what names an issue, then notes and links).
 */
import { getTableColumns, is, SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { issues, labelLinks, notes, resourceLabelEvents, resourceMilestoneEvents, resourceStateEvents } from '../db/schema';

type Stmt = BatchItem<'sqlite'>;
type Value = string | number | boolean | null;

/** Characters of one statement's JSON array (a single larger row goes alone). */
const MAX_JSON_CHARS = 512 * 1024;

export interface IssueValues {
  iid: number;
  title: string;
  description: string | null;
  state: string;
  authorId: number;
  issueType: string;
  confidential: boolean;
  discussionLocked: boolean;
  /** The milestone by title inside the project (its id is found by the statement). */
  milestoneTitle: string | null;
  dueDate: string | null;
  weight: number | null;
  timeEstimate: number;
  totalTimeSpent: number;
  upvotes: number;
  downvotes: number;
  closedAt: number | null;
  closedById: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface NoteValues {
  noteableType: 'Issue' | 'MergeRequest' | 'Commit';
  /** The issue's or merge request's iid; 0 for a commit note (commit_id names its commit). */
  noteableIid: number;
  authorId: number;
  body: string;
  system: boolean;
  internal: boolean;
  type: string | null;
  discussionId: string | null;
  resolvable: boolean;
  resolvedAt: number | null;
  resolvedById: number | null;
  commitId: string | null;
  /** A DiffNote's position as stored (JSON of Position#to_h). */
  position: string | null;
  lineCode: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface LabelLinkValues {
  targetType: 'Issue' | 'MergeRequest';
  targetIid: number;
  labelTitle: string;
  createdAt: number;
}

/** Resource events (import-resource-events.ts): their issuable by type and iid, their label or milestone by title. */
export interface LabelEventValues {
  targetType: 'Issue' | 'MergeRequest';
  targetIid: number;
  action: string;
  labelTitle: string | null;
  userId: number;
  createdAt: number;
}
export interface MilestoneEventValues {
  targetType: 'Issue' | 'MergeRequest';
  targetIid: number;
  action: string;
  milestoneTitle: string | null;
  state: string;
  userId: number;
  createdAt: number;
}
export interface StateEventValues {
  targetType: 'Issue' | 'MergeRequest';
  targetIid: number;
  state: string;
  userId: number;
  createdAt: number;
  sourceCommit: string | null;
}

const ISSUE_COLUMNS = ['iid', 'title', 'description', 'state', 'authorId', 'issueType', 'confidential', 'discussionLocked', 'milestoneTitle', 'dueDate', 'weight', 'timeEstimate', 'totalTimeSpent', 'upvotes', 'downvotes', 'closedAt', 'closedById', 'createdAt', 'updatedAt'] as const;
const NOTE_COLUMNS = ['noteableType', 'noteableIid', 'authorId', 'body', 'system', 'internal', 'type', 'discussionId', 'resolvable', 'resolvedAt', 'resolvedById', 'commitId', 'position', 'lineCode', 'createdAt', 'updatedAt'] as const;
const LINK_COLUMNS = ['targetType', 'targetIid', 'labelTitle', 'createdAt'] as const;
const LABEL_EVENT_COLUMNS = ['targetType', 'targetIid', 'action', 'labelTitle', 'userId', 'createdAt'] as const;
const MILESTONE_EVENT_COLUMNS = ['targetType', 'targetIid', 'action', 'milestoneTitle', 'state', 'userId', 'createdAt'] as const;
const STATE_EVENT_COLUMNS = ['targetType', 'targetIid', 'state', 'userId', 'createdAt', 'sourceCommit'] as const;

/** `json_extract(value, '$[i]')` for each named column (a row is an array in ISSUE_COLUMNS/... order). */
function cols<C extends readonly string[]>(names: C): Record<C[number], SQL> {
  return Object.fromEntries(names.map((n, i) => [n, sql.raw(`json_extract(value, '$[${i}]')`)])) as Record<C[number], SQL>;
}
const I = cols(ISSUE_COLUMNS);
const N = cols(NOTE_COLUMNS);
const L = cols(LINK_COLUMNS);
const LE = cols(LABEL_EVENT_COLUMNS);
const ME = cols(MILESTONE_EVENT_COLUMNS);
const SE = cols(STATE_EVENT_COLUMNS);
/** The new row of the importing project with that type and iid (a commit note has none: 0, as the notes API writes). */
const parentId = (type: SQL, iid: SQL, projectId: number) =>
  sql`CASE ${type} WHEN 'Issue' THEN (SELECT id FROM issues WHERE project_id = ${projectId} AND iid = ${iid}) WHEN 'Commit' THEN 0 ELSE (SELECT id FROM merge_requests WHERE project_id = ${projectId} AND iid = ${iid}) END`;

/** An event's owner columns: the issue or the merge request of the importing project, the other NULL. */
const owners = (type: SQL, iid: SQL, projectId: number) => ({
  issueId: sql`CASE WHEN ${type} = 'Issue' THEN ${parentId(type, iid, projectId)} END`,
  mergeRequestId: sql`CASE WHEN ${type} = 'MergeRequest' THEN ${parentId(type, iid, projectId)} END`,
});

/** One chunk's rows, turned into statements by `statements()` at the chunk's end. */
export class BulkRows {
  private issues: Value[][] = [];
  private notes: Value[][] = [];
  private links: Value[][] = [];
  private labelEvents: Value[][] = [];
  private milestoneEvents: Value[][] = [];
  private stateEvents: Value[][] = [];
  /** Statements naming a row of this chunk's issues by iid (assignees, timelogs, award emoji): run after the issues. */
  readonly after: Stmt[] = [];
  /** Approximate size of what is held, so the job can flush by bytes as well as by lines. */
  chars = 0;

  issue(v: IssueValues) {
    this.push(this.issues, ISSUE_COLUMNS.map((c) => v[c]));
  }
  note(v: NoteValues) {
    this.push(this.notes, NOTE_COLUMNS.map((c) => v[c]));
  }
  labelLink(v: LabelLinkValues) {
    this.push(this.links, LINK_COLUMNS.map((c) => v[c]));
  }
  labelEvent(v: LabelEventValues) {
    this.push(this.labelEvents, LABEL_EVENT_COLUMNS.map((c) => v[c]));
  }
  milestoneEvent(v: MilestoneEventValues) {
    this.push(this.milestoneEvents, MILESTONE_EVENT_COLUMNS.map((c) => v[c]));
  }
  stateEvent(v: StateEventValues) {
    this.push(this.stateEvents, STATE_EVENT_COLUMNS.map((c) => v[c]));
  }
  get size() {
    return this.issues.length + this.notes.length + this.links.length + this.labelEvents.length + this.milestoneEvents.length + this.stateEvents.length + this.after.length;
  }

  private push(into: Value[][], row: Value[]) {
    into.push(row);
    for (const v of row) this.chars += typeof v === 'string' ? v.length + 3 : 8;
  }

  /** The chunk's statements in dependency order; the held rows are cleared. */
  statements(db: Db, projectId: number): Stmt[] {
    const P = projectId;
    const out: Stmt[] = [];
    for (const json of arrays(this.issues))
      out.push(
        insertSelect(db, issues, {
          projectId: sql`${P}`,
          ...pick(I, ['iid', 'title', 'description', 'state', 'authorId', 'issueType', 'confidential', 'discussionLocked', 'dueDate', 'weight', 'timeEstimate', 'totalTimeSpent', 'upvotes', 'downvotes', 'closedAt', 'closedById', 'createdAt', 'updatedAt']),
          milestoneId: sql`(SELECT id FROM milestones WHERE project_id = ${P} AND title = ${I.milestoneTitle})`,
        }, sql`FROM json_each(${json}) ORDER BY key`),
      );
    out.push(...this.after);
    for (const json of arrays(this.notes))
      out.push(
        insertSelect(db, notes, {
          ...pick(N, ['noteableType', 'authorId', 'body', 'system', 'internal', 'type', 'discussionId', 'resolvable', 'resolvedAt', 'resolvedById', 'commitId', 'position', 'lineCode', 'createdAt', 'updatedAt']),
          noteableId: parentId(N.noteableType, N.noteableIid, P),
          projectId: sql`${P}`,
        }, sql`FROM json_each(${json}) ORDER BY key`),
      );
    // The label by title in the project (written earlier in the batch); a repeated link is kept once.
    // A WHERE after the join: SQLite would read a last ON as the upsert's.
    for (const json of arrays(this.links))
      out.push(
        insertSelect(db, labelLinks, {
          labelId: sql`l.id`,
          targetType: L.targetType,
          targetId: parentId(L.targetType, L.targetIid, P),
          createdAt: L.createdAt,
        }, sql`FROM json_each(${json}) JOIN labels l ON l.project_id = ${P} AND l.title = ${L.labelTitle} WHERE true ORDER BY key`).onConflictDoNothing(),
      );
    // Resource events: a label or milestone missing by title (a deleted one in the archive) leaves it NULL, as GitLab keeps such events.
    for (const json of arrays(this.labelEvents))
      out.push(
        insertSelect(db, resourceLabelEvents, {
          action: LE.action,
          ...owners(LE.targetType, LE.targetIid, P),
          labelId: sql`(SELECT id FROM labels WHERE project_id = ${P} AND title = ${LE.labelTitle})`,
          userId: LE.userId,
          createdAt: LE.createdAt,
        }, sql`FROM json_each(${json}) ORDER BY key`),
      );
    for (const json of arrays(this.milestoneEvents))
      out.push(
        insertSelect(db, resourceMilestoneEvents, {
          action: ME.action,
          ...owners(ME.targetType, ME.targetIid, P),
          milestoneId: sql`(SELECT id FROM milestones WHERE project_id = ${P} AND title = ${ME.milestoneTitle})`,
          state: ME.state,
          userId: ME.userId,
          createdAt: ME.createdAt,
        }, sql`FROM json_each(${json}) ORDER BY key`),
      );
    for (const json of arrays(this.stateEvents))
      out.push(
        insertSelect(db, resourceStateEvents, { ...owners(SE.targetType, SE.targetIid, P), state: SE.state, userId: SE.userId, createdAt: SE.createdAt, sourceCommit: SE.sourceCommit }, sql`FROM json_each(${json}) ORDER BY key`),
      );
    this.issues = [];
    this.notes = [];
    this.links = [];
    this.labelEvents = [];
    this.milestoneEvents = [];
    this.stateEvents = [];
    this.after.length = 0;
    this.chars = 0;
    return out;
  }
}

const pick = <K extends string>(from: Record<string, SQL>, keys: K[]) => Object.fromEntries(keys.map((k) => [k, from[k]])) as Record<K, SQL>;

/**
 * `INSERT INTO table SELECT <every column> <from>`: drizzle's insert-select names every column in
 * table order, so the columns without an expression get their default (NULL for the id), as an
 * insert of values would; a column added to the table later needs nothing here. (A raw `db.run`
 * would do, but drizzle's D1 batch cannot carry one.)
 */
function insertSelect<T extends SQLiteTable>(db: Db, table: T, exprs: Partial<Record<keyof T['_']['columns'], SQL>>, from: SQL) {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  for (const k of Object.keys(exprs)) if (!(k in columns)) throw new Error(`insertSelect: ${k} is not a column`);
  const list = Object.entries(columns)
    .filter(([, c]) => !(c as unknown as { shouldDisableInsert(): boolean }).shouldDisableInsert()) // generated columns, as drizzle leaves out
    .map(([k, c]) => (exprs as Record<string, SQL>)[k] ?? (c.default == null ? sql`NULL` : is(c.default, SQL) ? c.default : sql.param(c.default, c)));
  return db.insert(table).select(sql`SELECT ${sql.join(list, sql`, `)} ${from}`);
}

/** `rows` as JSON arrays of at most MAX_JSON_CHARS each (a larger single row alone). */
function arrays(rows: Value[][]): string[] {
  const out: string[] = [];
  let part: string[] = [];
  let chars = 0;
  for (const row of rows) {
    const json = JSON.stringify(row);
    if (part.length && chars + json.length > MAX_JSON_CHARS) {
      out.push(`[${part.join(',')}]`);
      part = [];
      chars = 0;
    }
    part.push(json);
    chars += json.length + 1;
  }
  if (part.length) out.push(`[${part.join(',')}]`);
  return out;
}
