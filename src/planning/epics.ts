/**
 * Group epics (Premium; GitLab ee/lib/api/epics.rb, EpicPolicy): lookup, permissions, presentation
 * of a page in a fixed number of queries, the insert used by create and by issue promotion.
 */
import { and, count, eq, inArray, type SQL, sql, type SQLWrapper } from 'drizzle-orm';
import { batchReads, inJson, writeThenRead } from '../db/batch-reads';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { awardEmoji, epics, internalIds, issues, labelLinks, labels, namespaces, notes, subscriptions, users } from '../db/schema';
import { type EpicRow, epicEntity } from './epic-entity';
import type { LabelRow } from './label-entity';
import { userBasic } from '../users/user-entity';
import { ACCESS, groupAccess, type NamespaceRow, traversalIds } from '../projects/abilities';
import { ApiError, notFound } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { requirePlan } from '../platform/plan';
import { findReadableGroup, findReadableGroupWith } from '../projects/groups';
import { DEFAULT_LABEL_COLOR, normalizeLabelTitles, titleIn } from './labels';
import { systemNoteInsert } from '../issuables/system-notes';
import { stateEventInsert } from '../issuables/resource-events';
import { inChunks } from '../platform/chunks';

export type { EpicRow };

/** read_confidential_epic: Planner and above (Reporter historically), administrators, the author. */
export const canReadConfidentialEpic = (caller: Caller, level: number, epic: Pick<EpicRow, 'authorId'>) =>
  caller.isAdmin || level >= ACCESS.PLANNER || (caller.user != null && caller.user.id === epic.authorId);
/** create_epic / admin_epic: Planner and above (Reporter historically), administrators. */
export const canCreateEpic = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.PLANNER;
/** update_epic: admin_epic or the author. */
export const canUpdateEpic = (caller: Caller, level: number, epic: Pick<EpicRow, 'authorId'>) =>
  canCreateEpic(caller, level) || (caller.user != null && caller.user.id === epic.authorId);
/** destroy_epic: group owners and administrators. */
export const canDestroyEpic = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.OWNER;

/** `authorize_epics_feature!` then `user_group`: Premium (403), then a readable group (404). */
type IssueRow = typeof issues.$inferSelect;

export async function findEpicsGroup(c: Context<AppEnv>, caller: Caller, id: string) {
  requirePlan(c.var.config, 'premium');
  return findReadableGroup(c, caller, id);
}

/** `find_epic!`: `404 Epic Not Found` for a missing epic or a confidential one the caller may not read. */
/** With `withExtras`, the epic's entity extras (`presentEpics`) come in the same round trip. */
export async function findReadableEpic(c: Context<AppEnv>, caller: Caller, groupId: string, iid: number, withExtras = false) {
  const db = c.var.db;
  // The group, the caller's level, the epic and its entity's extras in one round trip.
  const found = await findReadableEpicWith(c, caller, groupId, { iid }, (epicId) => (withExtras ? epicExtrasReads(db, caller, (col) => sql`${col} IN (${epicId})`, true) : []));
  return { group: found.group, level: found.level, epic: found.epic, extras: withExtras ? (found.reads as unknown as EpicExtras) : undefined };
}

/**
 * `find_epic!` by iid (epics API) or by id (`noteable_id` of the notes API) in the group of the
 * request, with `reads` that need only the epic's id (`epicId`, a sub-select usable as
 * `IN (${epicId})`): the group, the caller's level, the epic and the reads in one round trip,
 * thrown away with the 404.
 */
export async function findReadableEpicWith<const R extends readonly BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  caller: Caller,
  groupId: string,
  by: { iid: number } | { id: number },
  reads: (epicId: SQL) => R,
) {
  requirePlan(c.var.config, 'premium');
  const db = c.var.db;
  const key = 'iid' in by ? by.iid : by.id;
  const safe = Number.isSafeInteger(key) ? key : -1;
  const found = await findReadableGroupWith(c, caller, groupId, (gid) => {
    const epicId = 'iid' in by ? sql`SELECT fe.id FROM epics fe WHERE fe.group_id = ${gid} AND fe.iid = ${safe}` : sql`SELECT fe.id FROM epics fe WHERE fe.group_id = ${gid} AND fe.id = ${safe}`;
    return [db.select().from(epics).where(sql`${epics.id} IN (${epicId})`).limit(1), ...reads(epicId)] as const;
  });
  const { group, level } = found;
  const [[epic], ...rest] = found.reads as unknown as [EpicRow[], ...unknown[]];
  if (!epic || (epic.confidential && !canReadConfidentialEpic(caller, level, epic))) throw notFound('Epic');
  return { group, level, epic, reads: rest as unknown as { -readonly [K in keyof R]: Awaited<R[K]> } };
}

/** SQL on `epics`: confidential epics only for those who may read them (list filter). */
export function epicVisibleSql(caller: Caller, level: number): SQL | undefined {
  if (caller.isAdmin || level >= ACCESS.PLANNER) return undefined;
  return caller.user ? sql`(${epics.confidential} = 0 OR ${epics.authorId} = ${caller.user.id})` : sql`${epics.confidential} = 0`;
}


/**
 * What the Epic entity shows beyond its row, for the epics `idIn` selects (a condition on an epic
 * id column: `inJson` over a page's ids, or a sub-select), as unexecuted reads for one batch: group
 * paths, authors, parents, labels, votes and, when asked, the caller's subscriptions.
 */
export function epicExtrasReads(db: Db, caller: Caller, idIn: (column: SQLWrapper) => SQL, withSubscriptions: boolean) {
  const ofEpics = (col: string) => sql`(SELECT ${sql.raw(`xe.${col}`)} FROM epics xe WHERE ${idIn(sql.raw('xe.id'))})`;
  return [
    db.select({ id: namespaces.id, fullPath: namespaces.fullPath }).from(namespaces).where(sql`${namespaces.id} IN ${ofEpics('group_id')}`),
    db.select().from(users).where(sql`${users.id} IN ${ofEpics('author_id')}`),
    db.select({ id: epics.id, iid: epics.iid, groupId: epics.groupId }).from(epics).where(sql`${epics.id} IN ${ofEpics('parent_id')}`),
    db.select({ targetId: labelLinks.targetId, label: labels }).from(labelLinks).innerJoin(labels, eq(labels.id, labelLinks.labelId)).where(and(eq(labelLinks.targetType, 'Epic'), idIn(labelLinks.targetId))),
    db
      .select({ id: awardEmoji.awardableId, name: awardEmoji.name, n: count() })
      .from(awardEmoji)
      .where(and(eq(awardEmoji.awardableType, 'Epic'), idIn(awardEmoji.awardableId), inArray(awardEmoji.name, ['thumbsup', 'thumbsdown'])))
      .groupBy(awardEmoji.awardableId, awardEmoji.name),
    db
      .select({ id: subscriptions.subscribableId, subscribed: subscriptions.subscribed })
      .from(subscriptions)
      .where(and(eq(subscriptions.subscribableType, 'Epic'), withSubscriptions && caller.user ? idIn(subscriptions.subscribableId) : sql`0`, eq(subscriptions.userId, caller.user?.id ?? 0))),
  ] as const;
}
type EpicExtrasReads = ReturnType<typeof epicExtrasReads>;
type AwaitedAll<T> = { -readonly [K in keyof T]: Awaited<T[K]> };
export type EpicExtras = AwaitedAll<EpicExtrasReads>;

/** Epic entities; the extras are read in one round trip unless given (read with the rows). */
export async function presentEpics(
  c: Context<AppEnv>,
  caller: Caller,
  rows: EpicRow[],
  o: { withLabelsDetails?: boolean; contextGroupId?: number; includeSubscribed?: boolean } = {},
  extras?: EpicExtras,
) {
  if (!rows.length) return [];
  const db = c.var.db;
  const base = baseUrl(c);
  const ids = rows.map((e) => e.id);
  // The subscription is shown on a single epic (GET, POST, PUT), never on a page.
  const withSubscription = Boolean(o.includeSubscribed && rows.length === 1);
  const [groups, authors, parents, labelRows, votes, subs] = extras ?? (await batchReads(db, epicExtrasReads(db, caller, (col) => inJson(col, ids), withSubscription)));
  const paths = new Map(groups.map((g) => [g.id, g.fullPath]));
  const authorById = new Map<number, UserRow>(authors.map((u) => [u.id, u]));
  const parentById = new Map(parents.map((p) => [p.id, p]));
  const labelsBy = new Map<number, LabelRow[]>();
  for (const l of labelRows) labelsBy.set(l.targetId, [...(labelsBy.get(l.targetId) ?? []), l.label]);
  const vote = (id: number, name: string) => votes.find((v) => v.id === id && v.name === name)?.n ?? 0;
  let subscribed: boolean | undefined;
  if (withSubscription) {
    // Subscribable#subscribed?: an explicit row decides, else the author is subscribed.
    const row = subs.find((r) => r.id === rows[0].id);
    subscribed = caller.user ? (row ? Boolean(row.subscribed) : rows[0].authorId === caller.user.id) : false;
  }
  return rows.map((e) => {
    const parent = e.parentId != null ? parentById.get(e.parentId) : undefined;
    const author = authorById.get(e.authorId);
    return epicEntity(e, {
      base,
      groupFullPath: paths.get(e.groupId) ?? '',
      contextGroupId: o.contextGroupId,
      author: author ? userBasic(author, { base }) : null,
      parentIid: parent?.iid ?? null,
      parentGroupId: parent?.groupId ?? null,
      labels: labelsBy.get(e.id) ?? [],
      withLabelsDetails: Boolean(o.withLabelsDetails),
      upvotes: vote(e.id, 'thumbsup'),
      downvotes: vote(e.id, 'thumbsdown'),
      subscribed,
    });
  });
}

/**
 * An epic write and its answer in one round trip: `writes` run (all or none), then the epic `id`
 * names (SQL evaluated inside the batch, after the writes) and its entity's extras with the
 * caller's subscription. Returns undefined when the epic is not there after the writes.
 */
export async function writeAndPresentEpic(c: Context<AppEnv>, caller: Caller, writes: BatchItem<'sqlite'>[], id: SQL, contextGroupId: number) {
  const db = c.var.db;
  const [rows, ...extras] = await writeThenRead(db, writes, [db.select().from(epics).where(sql`${epics.id} = ${id}`).limit(1), ...epicExtrasReads(db, caller, (col) => sql`${col} = ${id}`, true)]);
  if (!rows[0]) return undefined;
  return (await presentEpics(c, caller, rows, { contextGroupId, includeSubscribed: true }, extras as unknown as EpicExtras))[0];
}

/** The id of the epic inserted earlier in the same batch (its iid is the group's current `epics` counter). */
export const newEpicIdSql = (groupId: number) =>
  sql<number>`(select ${epics.id} from ${epics} where ${epics.groupId} = ${groupId} and ${epics.iid} = (select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'epics' and ${internalIds.scopeId} = ${groupId}))`;

/** Bump the group's epic iid counter and insert the epic (returning its id, second result), for one db.batch. */
export function epicInsertStatements(db: Db, v: Omit<typeof epics.$inferInsert, 'iid' | 'id'>): BatchItem<'sqlite'>[] {
  return [
    db
      .insert(internalIds)
      .values({ usage: 'epics', scopeId: v.groupId, lastValue: 1 })
      .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`${internalIds.lastValue} + 1` } }),
    db.insert(epics).values({ ...v, iid: sql`(select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'epics' and ${internalIds.scopeId} = ${v.groupId})` }).returning({ id: epics.id }),
  ];
}

/**
 * Labels::FindOrCreateService for a group: labels of the group and its ancestors by title; missing
 * titles become group labels when `create` (admin_label), else they are dropped.
 */
export async function findOrBuildGroupLabels(db: Db, group: NamespaceRow, titles: string[], now: number, create: boolean) {
  const read = groupLabelsRead(db, group, titles);
  return buildGroupLabels(db, group, titles, read ? await read : [], now, create);
}

/** The read of `findOrBuildGroupLabels`, for a batch: labels of the group and its ancestors by title (undefined: no title). */
export function groupLabelsRead(db: Db, group: NamespaceRow, titles: string[]) {
  const wanted = normalizeLabelTitles(titles);
  return wanted.length ? db.select().from(labels).where(and(inArray(labels.groupId, traversalIds(group)), titleIn(wanted))) : undefined;
}

/** The rest of `findOrBuildGroupLabels`, from `groupLabelsRead`'s rows. */
export function buildGroupLabels(db: Db, group: NamespaceRow, titles: string[], rows: LabelRow[], now: number, create: boolean) {
  const wanted = normalizeLabelTitles(titles);
  const byTitle = new Map<string, LabelRow>();
  // The nearest group's label wins (deeper groups have longer traversal paths; ids grow downwards in practice).
  const depth = new Map(traversalIds(group).map((id, i) => [id, i]));
  for (const r of rows) {
    const prev = byTitle.get(r.title);
    if (!prev || (depth.get(r.groupId!) ?? 0) > (depth.get(prev.groupId!) ?? 0)) byTitle.set(r.title, r);
  }
  const inserts: BatchItem<'sqlite'>[] = [];
  const ids: (number | SQL<number>)[] = [];
  for (const t of wanted) {
    const hit = byTitle.get(t);
    if (hit) ids.push(hit.id);
    else if (create) {
      inserts.push(db.insert(labels).values({ groupId: group.id, projectId: null, title: t, color: DEFAULT_LABEL_COLOR, createdAt: now, updatedAt: now }).onConflictDoNothing());
      ids.push(sql<number>`(select ${labels.id} from ${labels} where ${labels.groupId} = ${group.id} and ${labels.title} = ${t})`);
    }
  }
  return { existing: [...byTitle.values()], inserts, ids };
}

/**
 * Epics::IssuePromoteService (the `/promote` quick action): a new epic in the project's group with
 * the issue's title, description, confidentiality and labels; the issue is closed and both sides
 * get a system note. Returns the statements for the note's db.batch and the new epic's id SQL.
 * Throws a 400 naming the failure when the promotion is not allowed.
 */
export async function promoteIssueToEpic(
  c: Context<AppEnv>,
  caller: Caller,
  found: { issue: IssueRow; namespace: NamespaceRow; project: { id: number; path: string }; level: number },
  now: number,
): Promise<{ statements: BatchItem<'sqlite'>[]; epicIdSql: SQL<number> }> {
  const user = caller.user!;
  const { issue, namespace, project } = found;
  const fail = (why: string) => new ApiError(400, { message: `400 Bad request - Note {:commands_only=>["${why}"]}` });
  if (namespace.kind !== 'Group') throw fail('Cannot promote issue because it does not belong to a group.');
  // create_epic is decided on the group: a member of the project alone may not promote.
  const groupLevel = await groupAccess(c.var.db, caller.user, namespace);
  if (!canCreateEpic(caller, groupLevel)) throw fail('Could not apply promote command.');
  const db = c.var.db;
  // Issue#promoted?: the quick action is not offered twice. Promotion leaves its system note behind.
  const promoted = await db
    .select({ id: notes.id })
    .from(notes)
    .where(and(eq(notes.noteableType, 'Issue'), eq(notes.noteableId, issue.id), eq(notes.system, true), sql`${notes.body} LIKE 'promoted to epic %'`))
    .get();
  if (promoted) throw fail('Could not apply promote command.');
  const issueLabels = await db
    .select({ title: labels.title })
    .from(labelLinks)
    .innerJoin(labels, eq(labels.id, labelLinks.labelId))
    .where(and(eq(labelLinks.targetType, 'Issue'), eq(labelLinks.targetId, issue.id)))
    .all();
  const groupLabels = await findOrBuildGroupLabels(db, namespace, issueLabels.map((l) => l.title), now, true);
  const epicIdSql = newEpicIdSql(namespace.id);
  const iidSql = sql<number>`(select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'epics' and ${internalIds.scopeId} = ${namespace.id})`;
  const statements: BatchItem<'sqlite'>[] = [
    ...groupLabels.inserts,
    ...epicInsertStatements(db, {
      groupId: namespace.id,
      title: issue.title,
      description: issue.description,
      authorId: user.id,
      confidential: issue.confidential,
      createdAt: now,
      updatedAt: now,
    }),
    ...groupLabels.ids.map((labelId) => db.insert(labelLinks).values({ labelId, targetType: 'Epic', targetId: epicIdSql, createdAt: now }).onConflictDoNothing()),
    // Issues::CloseService: the promoted issue's state event.
    stateEventInsert(db, { type: 'Issue', id: issue.id }, 'closed', user.id, now, sql`EXISTS (SELECT 1 FROM issues se WHERE se.id = ${issue.id} AND se.state = 'opened')`),
    db.update(issues).set({ state: 'closed', closedAt: now, closedById: user.id, updatedAt: now }).where(eq(issues.id, issue.id)),
    systemNoteInsert(db, {
      noteableType: 'Issue',
      noteableId: issue.id,
      projectId: project.id,
      authorId: user.id,
      body: sql`'promoted to epic ' || ${namespace.fullPath} || '&' || ${iidSql}` as unknown as string,
      at: now,
    }),
    systemNoteInsert(db, {
      noteableType: 'Epic',
      noteableId: epicIdSql,
      projectId: null,
      authorId: user.id,
      body: `promoted from issue ${namespace.fullPath}/${project.path}#${issue.iid}`,
      at: now,
    }),
  ];
  return { statements, epicIdSql };
}
