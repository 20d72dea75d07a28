/**
 * Labels: which labels a project or group sees (GitLab app/finders/labels_finder.rb), the rules of
 * a label (app/models/label.rb, Labels::CreateService), and the helpers the issue endpoints use to
 * turn `labels=a,b` into label rows (Labels::FindOrCreateService).
 *
 * Available labels of a project = its own labels + the labels of its group and every ancestor
 * group (traversal ids of the namespace). A personal project has only its own labels.
 */
import { and, eq, getTableColumns, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Caller } from '../platform/context';
import type { Db } from '../db/client';
import { issueAssignees, issues, labelLinks, labelPriorities, labels, namespaces, projects, subscriptions } from '../db/schema';
import { COLOR_PATTERN, type LabelRow } from './label-entity';
import { ACCESS, featureAvailable, type NamespaceRow, projectLevelSql, projectVisibleSql, type ProjectRow, subtreeOf, traversalIds } from '../projects/abilities';
import { tooBig } from '../platform/text-limits';

export type { LabelRow };

/** Label::DEFAULT_COLOR of current GitLab (Gitlab::Color.of('#6699cc')): labels created implicitly by issues. */
export const DEFAULT_LABEL_COLOR = '#6699cc';

/** Group ids whose labels a project sees: its group and (by default) every ancestor. */
export function projectLabelGroupIds(ns: NamespaceRow, includeAncestorGroups = true): number[] {
  if (ns.kind !== 'Group') return [];
  return includeAncestorGroups ? traversalIds(ns) : [ns.id];
}

/**
 * SQL condition on `labels`: the labels available to a project (LabelsFinder with project_id).
 * Use it for lookups by title or id and for lists.
 */
export function availableProjectLabelsSql(project: Pick<ProjectRow, 'id'>, ns: NamespaceRow, includeAncestorGroups = true): SQL {
  const groupIds = projectLabelGroupIds(ns, includeAncestorGroups);
  return groupIds.length ? or(eq(labels.projectId, project.id), inArray(labels.groupId, groupIds))! : eq(labels.projectId, project.id);
}

/** `labels.title IN (...)` as one JSON parameter, whatever the number of titles (D1 allows 100 bound parameters). */
export const titleIn = (titles: string[]) => sql`${labels.title} IN (select value from json_each(${JSON.stringify(titles)}))`;

/**
 * `value.replace(/<[^>]*>/g, '')` in one pass: the regex rescans to the end from every `<` that
 * has no `>` after it, quadratic on a long run of `<`.
 */
function stripTags(value: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const lt = value.indexOf('<', from);
    if (lt < 0) break;
    const gt = value.indexOf('>', lt + 1);
    if (gt < 0) break;
    out += value.slice(from, lt);
    from = gt + 1;
  }
  return out + value.slice(from);
}

/** Label#title= / description=: `Sanitize.clean` drops tags, then HTML entities are unescaped; titles and colours are stripped. */
export function sanitizeLabelText(value: string): string {
  return stripTags(value)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Issue `labels` titles as Labels::FindOrCreateService sees them: stripped, sanitized, blanks and duplicates dropped. */
export function normalizeLabelTitles(titles: string[]): string[] {
  const out: string[] = [];
  for (const t of titles) {
    const s = sanitizeLabelText(String(t)).trim();
    if (s && !s.includes(',') && s.length <= 255 && !out.includes(s)) out.push(s);
  }
  return out;
}

export interface FoundOrBuiltLabels {
  /** Available labels matching the titles (a project label wins over a group label of the same title). */
  existing: LabelRow[];
  /** Titles with no available label. */
  missing: string[];
  /**
   * Insert builders for the missing titles as project labels (colour DEFAULT_LABEL_COLOR); put them
   * in the same db.batch as the issue write. `onConflictDoNothing` makes a concurrent creator of the
   * same title harmless: both batches then link the one row.
   */
  inserts: ReturnType<typeof buildProjectLabelInsert>[];
  /**
   * For every title (in input order, after normalisation) the label id: a number for existing
   * labels, an SQL sub-select `(select id from labels where project_id = ? and title = ?)` for the
   * labels inserted earlier in the same batch. Use it as `labelId` in `db.insert(labelLinks).values(...)`.
   */
  ids: { title: string; id: number | SQL }[];
}

function buildProjectLabelInsert(db: Db, projectId: number, title: string, now: number) {
  return db
    .insert(labels)
    .values({ projectId, groupId: null, title, color: DEFAULT_LABEL_COLOR, description: null, createdAt: now, updatedAt: now })
    .onConflictDoNothing();
}

/** SQL sub-select of a project label's id by title (valid after its insert ran earlier in the batch). */
export const projectLabelIdSql = (projectId: number, title: string) => sql<number>`(select ${labels.id} from ${labels} where ${labels.projectId} = ${projectId} and ${labels.title} = ${title})`;

/**
 * Labels::FindOrCreateService for the `labels` parameter of issue and merge request writes, from
 * the available labels with those titles (project-planning-reads.ts `projectLabelsByTitleRead`, read
 * in the batch that finds the project): builds inserts for the missing ones as new project labels.
 * GitLab creates a missing label only when the user may `admin_label` in the project (planner+ or
 * administrator); pass `create: false` otherwise and the missing titles are simply dropped from `ids`.
 */
export function labelsFoundOrBuilt(db: Db, projectId: number, rows: readonly LabelRow[], titles: string[], now: number, opts: { create?: boolean } = {}): FoundOrBuiltLabels {
  const wanted = normalizeLabelTitles(titles);
  const byTitle = new Map<string, LabelRow>();
  for (const r of rows) {
    const prev = byTitle.get(r.title);
    if (!prev || (prev.projectId == null && r.projectId != null)) byTitle.set(r.title, r);
  }
  const missing = wanted.filter((t) => !byTitle.has(t));
  const create = opts.create ?? true;
  const inserts = create ? missing.map((t) => buildProjectLabelInsert(db, projectId, t, now)) : [];
  const ids: FoundOrBuiltLabels['ids'] = [];
  for (const t of wanted) {
    const hit = byTitle.get(t);
    if (hit) ids.push({ title: t, id: hit.id });
    else if (create) ids.push({ title: t, id: projectLabelIdSql(projectId, t) });
  }
  return { existing: [...byTitle.values()], missing, inserts, ids };
}

/**
 * ProjectPolicy `issues_disabled & merge_requests_disabled` prevents read/create/update/destroy of
 * labels and milestones (for administrators too; the features are per caller).
 */
export function planningAvailable(caller: Caller, project: ProjectRow, level: number): boolean {
  const x = { level, isAdmin: caller.isAdmin };
  return featureAvailable(project, 'issues', x) || featureAvailable(project, 'merge_requests', x);
}

/** Labels by id (chunked), for presenters. */
export async function labelsByIds(db: Db, ids: number[]): Promise<Map<number, LabelRow>> {
  const out = new Map<number, LabelRow>();
  const uniq = [...new Set(ids)];
  for (let i = 0; i < uniq.length; i += 90) for (const l of await db.select().from(labels).where(inArray(labels.id, uniq.slice(i, i + 90))).all()) out.set(l.id, l);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation (app/models/label.rb, Labels::BaseService)

/** Gitlab::Color::Constants::COLOR_NAME_TO_HEX (CSS colour names). */
const COLOR_NAMES: Record<string, string> = {
  black: '#000000', silver: '#C0C0C0', gray: '#808080', white: '#FFFFFF', maroon: '#800000', red: '#FF0000', purple: '#800080', fuchsia: '#FF00FF',
  green: '#008000', lime: '#00FF00', olive: '#808000', yellow: '#FFFF00', navy: '#000080', blue: '#0000FF', teal: '#008080', aqua: '#00FFFF',
  orange: '#FFA500', aliceblue: '#F0F8FF', antiquewhite: '#FAEBD7', aquamarine: '#7FFFD4', azure: '#F0FFFF', beige: '#F5F5DC', bisque: '#FFE4C4',
  blanchedalmond: '#FFEBCD', blueviolet: '#8A2BE2', brown: '#A52A2A', burlywood: '#DEB887', cadetblue: '#5F9EA0', chartreuse: '#7FFF00',
  chocolate: '#D2691E', coral: '#FF7F50', cornflowerblue: '#6495ED', cornsilk: '#FFF8DC', crimson: '#DC143C', darkblue: '#00008B',
  darkcyan: '#008B8B', darkgoldenrod: '#B8860B', darkgray: '#A9A9A9', darkgreen: '#006400', darkgrey: '#A9A9A9', darkkhaki: '#BDB76B',
  darkmagenta: '#8B008B', darkolivegreen: '#556B2F', darkorange: '#FF8C00', darkorchid: '#9932CC', darkred: '#8B0000', darksalmon: '#E9967A',
  darkseagreen: '#8FBC8F', darkslateblue: '#483D8B', darkslategray: '#2F4F4F', darkslategrey: '#2F4F4F', darkturquoise: '#00CED1',
  darkviolet: '#9400D3', deeppink: '#FF1493', deepskyblue: '#00BFFF', dimgray: '#696969', dimgrey: '#696969', dodgerblue: '#1E90FF',
  firebrick: '#B22222', floralwhite: '#FFFAF0', forestgreen: '#228B22', gainsboro: '#DCDCDC', ghostwhite: '#F8F8FF', gold: '#FFD700',
  goldenrod: '#DAA520', greenyellow: '#ADFF2F', grey: '#808080', honeydew: '#F0FFF0', hotpink: '#FF69B4', indianred: '#CD5C5C', indigo: '#4B0082',
  ivory: '#FFFFF0', khaki: '#F0E68C', lavender: '#E6E6FA', lavenderblush: '#FFF0F5', lawngreen: '#7CFC00', lemonchiffon: '#FFFACD',
  lightblue: '#ADD8E6', lightcoral: '#F08080', lightcyan: '#E0FFFF', lightgoldenrodyellow: '#FAFAD2', lightgray: '#D3D3D3', lightgreen: '#90EE90',
  lightgrey: '#D3D3D3', lightpink: '#FFB6C1', lightsalmon: '#FFA07A', lightseagreen: '#20B2AA', lightskyblue: '#87CEFA', lightslategray: '#778899',
  lightslategrey: '#778899', lightsteelblue: '#B0C4DE', lightyellow: '#FFFFE0', limegreen: '#32CD32', linen: '#FAF0E6', mediumaquamarine: '#66CDAA',
  mediumblue: '#0000CD', mediumorchid: '#BA55D3', mediumpurple: '#9370DB', mediumseagreen: '#3CB371', mediumslateblue: '#7B68EE',
  mediumspringgreen: '#00FA9A', mediumturquoise: '#48D1CC', mediumvioletred: '#C71585', midnightblue: '#191970', mintcream: '#F5FFFA',
  mistyrose: '#FFE4E1', moccasin: '#FFE4B5', navajowhite: '#FFDEAD', oldlace: '#FDF5E6', olivedrab: '#6B8E23', orangered: '#FF4500', orchid: '#DA70D6',
  palegoldenrod: '#EEE8AA', palegreen: '#98FB98', paleturquoise: '#AFEEEE', palevioletred: '#DB7093', papayawhip: '#FFEFD5', peachpuff: '#FFDAB9',
  peru: '#CD853F', pink: '#FFC0CB', plum: '#DDA0DD', powderblue: '#B0E0E6', rosybrown: '#BC8F8F', royalblue: '#4169E1', saddlebrown: '#8B4513',
  salmon: '#FA8072', sandybrown: '#F4A460', seagreen: '#2E8B57', seashell: '#FFF5EE', sienna: '#A0522D', skyblue: '#87CEEB', slateblue: '#6A5ACD',
  slategray: '#708090', slategrey: '#708090', snow: '#FFFAFA', springgreen: '#00FF7F', steelblue: '#4682B4', tan: '#D2B48C', thistle: '#D8BFD8',
  tomato: '#FF6347', turquoise: '#40E0D0', violet: '#EE82EE', wheat: '#F5DEB3', whitesmoke: '#F5F5F5', yellowgreen: '#9ACD32', rebeccapurple: '#663399',
};

/** Labels::BaseService#convert_color_name_to_hex: a CSS name becomes its hex code; anything else stays (stripped). */
export function normalizeColor(color: string): string {
  const s = color.trim();
  return COLOR_NAMES[s.toLowerCase()] ?? s;
}

/** Label::DESCRIPTION_LENGTH_MAX (512 kilobytes, a bytesize validation). */
export const LABEL_DESCRIPTION_MAX_BYTES = 512 * 1024;

/**
 * Label validations in model order (color, title, description): `{"color":["must be a valid color code"]}` etc.
 * `description` is checked when it changes (`previous`: the stored one); like Label#validate_description_length?,
 * a description already over the cap may be edited as long as it does not grow.
 */
export function labelErrors(f: {
  title?: string | null;
  color?: string | null;
  checkTitle: boolean;
  checkColor: boolean;
  description?: string | null;
  previous?: string | null;
}): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (f.checkColor && !COLOR_PATTERN.test(f.color ?? '')) errors.color = ['must be a valid color code'];
  if (f.checkTitle) {
    const t = f.title ?? '';
    const msgs: string[] = [];
    if (!t.trim()) msgs.push("can't be blank");
    if (!/^[^,]+$/.test(t)) msgs.push('is invalid');
    if (t.length > 255) msgs.push('is too long (maximum is 255 characters)');
    if (msgs.length) errors.title = msgs;
  }
  if (f.description != null) {
    const prevBytes = f.previous ? utf8Bytes(f.previous) : 0;
    const grandfathered = prevBytes > LABEL_DESCRIPTION_MAX_BYTES && utf8Bytes(f.description) <= prevBytes;
    const message = grandfathered ? null : tooBig(f.description, LABEL_DESCRIPTION_MAX_BYTES);
    if (message) errors.description = [message];
  }
  return errors;
}

const utf8Bytes = (s: string) => new TextEncoder().encode(s).byteLength;

// ---------------------------------------------------------------------------------------------
// Per-page extras: subscriptions, priorities, counts

/**
 * A label row with what its entity shows for the caller as columns of the same statement (no read
 * per page): `subscribed` (Label#subscribed?(user) || subscribed?(user, project)) and the project's
 * `priority` (null for group labels presented as such).
 */
export function labelWithExtras(userId: number | null, projectId: number | null) {
  const id = sql.raw('"labels"."id"');
  const inProject = projectId != null ? sql` OR s.project_id = ${projectId}` : sql``;
  return {
    ...getTableColumns(labels),
    subscribed: (userId
      ? sql<number>`EXISTS (SELECT 1 FROM subscriptions s WHERE s.subscribable_type = 'Label' AND s.subscribable_id = ${id} AND s.user_id = ${userId} AND s.subscribed = 1 AND (s.project_id IS NULL${inProject}))`
      : sql<number>`0`
    ).as('subscribed'),
    priority: (projectId != null ? sql<number | null>`(SELECT lp.priority FROM label_priorities lp WHERE lp.project_id = ${projectId} AND lp.label_id = ${id})` : sql<number | null>`NULL`).as('priority'),
  };
}
export type LabelWithExtras = LabelRow & { subscribed: number; priority: number | null };

/** Label#subscribed?(user) || (parent project && subscribed?(user, project)) for every label of a page. */
export async function loadLabelSubscriptions(db: Db, userId: number | null, labelIds: number[], projectId: number | null): Promise<Set<number>> {
  const out = new Set<number>();
  if (!userId || !labelIds.length) return out;
  const scope = projectId != null ? or(isNull(subscriptions.projectId), eq(subscriptions.projectId, projectId)) : isNull(subscriptions.projectId);
  for (let i = 0; i < labelIds.length; i += 90) {
    const rows = await db
      .select({ id: subscriptions.subscribableId })
      .from(subscriptions)
      .where(and(eq(subscriptions.subscribableType, 'Label'), inArray(subscriptions.subscribableId, labelIds.slice(i, i + 90)), eq(subscriptions.userId, userId), eq(subscriptions.subscribed, true), scope))
      .all();
    for (const r of rows) out.add(r.id);
  }
  return out;
}

/** Label#priority(project) for the labels of a page. */
export async function loadLabelPriorities(db: Db, projectId: number, labelIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < labelIds.length; i += 90) {
    const rows = await db.select().from(labelPriorities).where(and(eq(labelPriorities.projectId, projectId), inArray(labelPriorities.labelId, labelIds.slice(i, i + 90)))).all();
    for (const r of rows) out.set(r.labelId, r.priority);
  }
  return out;
}

/**
 * SQL: the caller may see this issue row (joined with `projects` and `namespaces`): the project is
 * readable with its issues feature available, and a confidential issue needs administrator, planner+ in the project, authorship or an
 * assignment (services/issues.ts canReadConfidentialIssue, in SQL).
 */
export function issueVisibleSql(caller: Caller): SQL | undefined {
  if (caller.isAdmin) return undefined;
  const uid = caller.user?.id;
  // ProjectFeature `issues`: disabled for everyone, private for members (featureAvailable in SQL).
  const feature = sql`coalesce(json_extract(nullif(${projects.features}, ''), '$.issues'), 'enabled')`;
  const featureOk = uid
    ? sql`(${feature} = 'enabled' OR (${feature} = 'private' AND ${projectLevelSql(uid)} >= ${ACCESS.GUEST}))`
    : sql`${feature} = 'enabled'`;
  const readable = and(projectVisibleSql(caller), featureOk);
  const confidential = uid
    ? sql`(${issues.confidential} = 0 OR ${issues.authorId} = ${uid}
        OR EXISTS (SELECT 1 FROM ${issueAssignees} WHERE ${issueAssignees.issueId} = ${issues.id} AND ${issueAssignees.userId} = ${uid})
        OR ${projectLevelSql(uid)} >= ${ACCESS.PLANNER})`
    : sql`${issues.confidential} = 0`;
  return and(readable, confidential);
}

export interface LabelCounts {
  openIssues: number;
  closedIssues: number;
  openMergeRequests: number;
}

/**
 * Label#open_issues_count / closed_issues_count for a page of labels (`labelIds`: a SELECT of their
 * ids, e.g. hung off the page query), over the issues the caller may see, as one unexecuted read: a
 * project label counts issues of its project, a group label issues of the projects in its group's
 * subtree, in both cases issues carrying any label with the same title (IssuesFinder
 * `label_name`). Merge requests do not exist here: 0. Rows: label id, issue state, count.
 */
export function labelCountsQuery(db: Db, caller: Caller, labelIds: SQL) {
  const pl = alias(labels, 'pl');
  const groupPath = sql`(SELECT g.traversal_path FROM namespaces g WHERE g.id = ${pl.groupId})`;
  return db
    .select({ labelId: sql<number>`${pl.id}`.as('label_id'), state: issues.state, n: sql<number>`count(distinct ${issues.id})`.as('n') })
    .from(issues)
    .innerJoin(labelLinks, and(eq(labelLinks.targetType, 'Issue'), eq(labelLinks.targetId, issues.id)))
    .innerJoin(labels, eq(labels.id, labelLinks.labelId))
    .innerJoin(pl, and(sql`${pl.id} IN (${labelIds})`, eq(pl.title, labels.title)))
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(
      and(
        or(
          eq(issues.projectId, pl.projectId),
          and(isNull(pl.projectId), sql`${namespaces.traversalPath} >= ${groupPath} AND ${namespaces.traversalPath} < ${groupPath} || ':'`),
        ),
        issueVisibleSql(caller),
      ),
    )
    .groupBy(pl.id, issues.state);
}

/** `labelCountsQuery`'s rows by label id (labels without a row count nothing). */
export function labelCountsFrom(rows: { labelId: number; state: string; n: number }[]): Map<number, LabelCounts> {
  const out = new Map<number, LabelCounts>();
  for (const r of rows) {
    const o = out.get(Number(r.labelId)) ?? { openIssues: 0, closedIssues: 0, openMergeRequests: 0 };
    if (r.state === 'opened') o.openIssues = Number(r.n);
    else if (r.state === 'closed') o.closedIssues = Number(r.n);
    out.set(Number(r.labelId), o);
  }
  return out;
}

/**
 * Statements removing the labels of a project or group being deleted (with their links, priorities
 * and subscriptions), for the deleting module's db.batch. `owner` is a project id or a subquery of
 * group ids.
 */
export function labelDeletionStatements(db: Db, owner: { projectId: number } | { groupIds: SQL | number[] }) {
  const own = 'projectId' in owner ? eq(labels.projectId, owner.projectId) : inArray(labels.groupId, owner.groupIds as number[]);
  const ids = db.select({ id: labels.id }).from(labels).where(own);
  return [
    db.delete(labelLinks).where(inArray(labelLinks.labelId, ids)),
    db.delete(labelPriorities).where(inArray(labelPriorities.labelId, ids)),
    ...('projectId' in owner ? [db.delete(labelPriorities).where(eq(labelPriorities.projectId, owner.projectId))] : []),
    db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'Label'), inArray(subscriptions.subscribableId, ids))),
    db.delete(labels).where(own),
  ] as const;
}
