/**
 * The import's bulk writer: the rows of many archive lines (issues, notes, label links) go in with
 * one statement a table and chunk, `INSERT ... SELECT ... FROM json_each(?)` over one bound JSON
 * array, instead of one statement a row. Why: with one statement a row, a 10,000-issue import
 * spent most of its time building and running ~50,000 statements (query building, prepared-statement
 * lookups, garbage) for rows of a few values each (bench import_export, issue 15 item 7). One bound
 * value a statement also stays far under D1's 100 bound parameters, and each JSON array is kept
 * under MAX_JSON_CHARS (D1 refuses a string over 2 MB).
 *
 * Rows refer to their parent by iid inside the project, as the per-row statements did; the
 * statements come in dependency order (issues, then what names an issue, then notes and links).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';

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
  noteableType: 'Issue' | 'MergeRequest';
  noteableIid: number;
  authorId: number;
  body: string;
  system: boolean;
  internal: boolean;
  type: string | null;
  discussionId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface LabelLinkValues {
  targetType: 'Issue' | 'MergeRequest';
  targetIid: number;
  labelTitle: string;
  createdAt: number;
}

const ISSUE_COLUMNS = ['iid', 'title', 'description', 'state', 'authorId', 'issueType', 'confidential', 'discussionLocked', 'milestoneTitle', 'dueDate', 'weight', 'timeEstimate', 'totalTimeSpent', 'upvotes', 'downvotes', 'closedAt', 'closedById', 'createdAt', 'updatedAt'] as const;
const NOTE_COLUMNS = ['noteableType', 'noteableIid', 'authorId', 'body', 'system', 'internal', 'type', 'discussionId', 'createdAt', 'updatedAt'] as const;
const LINK_COLUMNS = ['targetType', 'targetIid', 'labelTitle', 'createdAt'] as const;

/** `json_extract(value, '$[i]')` for each named column (a row is an array in ISSUE_COLUMNS/... order). */
function cols<C extends readonly string[]>(names: C): Record<C[number], SQL> {
  return Object.fromEntries(names.map((n, i) => [n, sql.raw(`json_extract(value, '$[${i}]')`)])) as Record<C[number], SQL>;
}
const I = cols(ISSUE_COLUMNS);
const N = cols(NOTE_COLUMNS);
const L = cols(LINK_COLUMNS);
/** The new row of the importing project with that type and iid. */
const parentId = (type: SQL, iid: SQL, projectId: number) =>
  sql`CASE ${type} WHEN 'Issue' THEN (SELECT id FROM issues WHERE project_id = ${projectId} AND iid = ${iid}) ELSE (SELECT id FROM merge_requests WHERE project_id = ${projectId} AND iid = ${iid}) END`;

/** One chunk's rows, turned into statements by `statements()` at the chunk's end. */
export class BulkRows {
  private issues: Value[][] = [];
  private notes: Value[][] = [];
  private links: Value[][] = [];
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
  get size() {
    return this.issues.length + this.notes.length + this.links.length + this.after.length;
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
        db.run(sql`INSERT INTO issues (project_id, iid, title, description, state, author_id, issue_type, confidential, discussion_locked, milestone_id, due_date, weight, time_estimate, total_time_spent, upvotes, downvotes, closed_at, closed_by_id, created_at, updated_at)
          SELECT ${P}, ${I.iid}, ${I.title}, ${I.description}, ${I.state}, ${I.authorId}, ${I.issueType}, ${I.confidential}, ${I.discussionLocked},
            (SELECT id FROM milestones WHERE project_id = ${P} AND title = ${I.milestoneTitle}), ${I.dueDate}, ${I.weight}, ${I.timeEstimate}, ${I.totalTimeSpent},
            ${I.upvotes}, ${I.downvotes}, ${I.closedAt}, ${I.closedById}, ${I.createdAt}, ${I.updatedAt}
          FROM json_each(${json}) ORDER BY key`),
      );
    out.push(...this.after);
    for (const json of arrays(this.notes))
      out.push(
        db.run(sql`INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, body, system, internal, type, discussion_id, created_at, updated_at)
          SELECT ${N.noteableType}, ${parentId(N.noteableType, N.noteableIid, P)}, ${P}, ${N.authorId}, ${N.body}, ${N.system}, ${N.internal}, ${N.type}, ${N.discussionId}, ${N.createdAt}, ${N.updatedAt}
          FROM json_each(${json}) ORDER BY key`),
      );
    // The label by title in the project (written earlier in the batch); a repeated link is kept once.
    for (const json of arrays(this.links))
      out.push(
        db.run(sql`INSERT INTO label_links (label_id, target_type, target_id, created_at)
          SELECT l.id, ${L.targetType}, ${parentId(L.targetType, L.targetIid, P)}, ${L.createdAt}
          FROM json_each(${json}) JOIN labels l ON l.project_id = ${P} AND l.title = ${L.labelTitle} WHERE true ORDER BY key
          ON CONFLICT DO NOTHING`),
      );
    this.issues = [];
    this.notes = [];
    this.links = [];
    this.after.length = 0;
    this.chars = 0;
    return out;
  }
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
