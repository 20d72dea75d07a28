/**
 * Group epics (Premium; GitLab ee/lib/api/epics.rb and epic_issues.rb): list, get, create, update,
 * delete, and the issues of an epic. Issues join an epic through `epic_id` on issue create/update.
 */
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { epics, issues, labelLinks, labels, namespaces, notes, awardEmoji, resourceLabelEvents, subscriptions, users } from '../db/schema';
import { labelEvents, labelsRemovedEvents } from '../issuables/resource-events';
import { subtreeOf, traversalIds } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden, notFound, validationFailed } from '../platform/errors';
import { linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { batchReads } from '../db/batch-reads';
import type { Db } from '../db/client';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { requireUser } from '../platform/guards';
import { createEpicParams, epicRefParams, listEpicsParams, updateEpicParams } from './epics-params';
import {
  canCreateEpic,
  canDestroyEpic,
  canUpdateEpic,
  epicInsertStatements,
  epicExtrasReads,
  type EpicExtras,
  type EpicRow,
  epicVisibleSql,
  findEpicsGroup,
  buildGroupLabels,
  groupLabelsRead,
  findReadableEpic,
  newEpicIdSql,
  presentEpics,
  writeAndPresentEpic,
} from './epics';
import { EpicSchema } from './epic-entity';
import { relatedEpicLinksDelete } from './related-epic-links';
import { COLOR_PATTERN } from './label-entity';
import { dueDate } from '../platform/time';
import { textErrors } from '../issuables/issuable-fields';

/** Issuable's title and description validations, and the epic's colour. */
function epicErrors(f: { title?: string; description?: string; color?: string }): Record<string, string[]> {
  const errors = textErrors({ title: f.title, description: f.description });
  if (f.color !== undefined && !COLOR_PATTERN.test(f.color.trim())) errors.color = ['must be a valid color code'];
  return errors;
}

export function mountEpics(r: Router) {
  r.route({ method: 'GET', path: '/groups/:id/epics', summary: 'List epics of a group', tags: ['epics'], params: listEpicsParams, responses: { 200: z.array(EpicSchema) } }, async ({ c, p, caller }) => {
    const { group, level } = await findEpicsGroup(c, caller, p.id);
    const db = c.var.db;
    const conds: (SQL | undefined)[] = [epicVisibleSql(caller, level)];
    if (p.include_descendant_groups) conds.push(inArray(epics.groupId, db.select({ id: namespaces.id }).from(namespaces).where(subtreeOf(group.traversalPath!))));
    else conds.push(eq(epics.groupId, group.id));
    if (p.include_ancestor_groups) conds[1] = sql`(${conds[1]} OR ${inArray(epics.groupId, traversalIds(group))})`;
    if (p.state !== 'all') conds.push(eq(epics.state, p.state));
    if (p.author_id !== undefined) conds.push(eq(epics.authorId, p.author_id));
    if (p.author_username !== undefined) conds.push(sql`${epics.authorId} = (select ${users.id} from ${users} where lower(${users.username}) = lower(${p.author_username}))`);
    if (p.confidential !== undefined) conds.push(eq(epics.confidential, p.confidential));
    if (p.created_after !== undefined) conds.push(sql`${epics.createdAt} >= ${p.created_after}`);
    if (p.created_before !== undefined) conds.push(sql`${epics.createdAt} <= ${p.created_before}`);
    if (p.updated_after !== undefined) conds.push(sql`${epics.updatedAt} >= ${p.updated_after}`);
    if (p.updated_before !== undefined) conds.push(sql`${epics.updatedAt} <= ${p.updated_before}`);
    if (p.search) {
      const q = `%${p.search.slice(0, 40).replace(/[%_\\]/g, '\\$&')}%`;
      conds.push(sql`(${epics.title} LIKE ${q} ESCAPE '\\' OR ${epics.description} LIKE ${q} ESCAPE '\\')`);
    }
    for (const title of p.labels ?? []) {
      if (/^none$/i.test(title)) conds.push(sql`NOT EXISTS (select 1 from ${labelLinks} where ${labelLinks.targetType} = 'Epic' and ${labelLinks.targetId} = ${epics.id})`);
      else if (/^any$/i.test(title)) conds.push(sql`EXISTS (select 1 from ${labelLinks} where ${labelLinks.targetType} = 'Epic' and ${labelLinks.targetId} = ${epics.id})`);
      else
        conds.push(
          sql`EXISTS (select 1 from ${labelLinks} join ${labels} on ${labels.id} = ${labelLinks.labelId} where ${labelLinks.targetType} = 'Epic' and ${labelLinks.targetId} = ${epics.id} and ${labels.title} = ${title})`,
        );
    }
    const where = and(...conds);
    const col = p.order_by === 'title' ? epics.title : p.order_by === 'updated_at' ? epics.updatedAt : epics.createdAt;
    const dir = p.sort === 'asc' ? asc : desc;
    const raw = await requestParams(c);
    const req = pageRequest(p, raw.per_page);
    // The page, its bounded count and the entities' extras hung off the page query: one round trip whatever the page size.
    const page = db.select().from(epics).where(where).orderBy(dir(col), desc(epics.id)).limit(req.perPage).offset(req.offset);
    const count = db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(epics).where(where).limit(MAX_COUNT + 1).as('t'));
    const [rows, [n], ...extras] = await batchReads(db, [page, count, ...epicExtrasReads(db, caller, (column) => sql`${column} IN (SELECT id FROM (${page.getSQL()}))`, false)]);
    const total = Number(n?.n ?? 0);
    setPaginationHeaders(c, req, linkParamsFrom(raw, {}), total > MAX_COUNT ? null : total, rows.length);
    return c.json(await presentEpics(c, caller, rows, { withLabelsDetails: p.with_labels_details, contextGroupId: group.id }, extras as unknown as EpicExtras));
  });

  r.route({ method: 'GET', path: '/groups/:id/epics/:epic_iid', summary: 'Get an epic', tags: ['epics'], params: epicRefParams, responses: { 200: EpicSchema } }, async ({ c, p, caller }) => {
    const { group, epic, extras } = await findReadableEpic(c, caller, p.id, p.epic_iid, true);
    return c.json((await presentEpics(c, caller, [epic], { contextGroupId: group.id, includeSubscribed: true }, extras))[0]);
  });

  r.route({ method: 'POST', path: '/groups/:id/epics', summary: 'Create an epic', tags: ['epics'], params: createEpicParams, responses: { 201: EpicSchema } }, async ({ c, p, caller }) => {
    const user = requireUser(caller);
    const { group, level } = await findEpicsGroup(c, caller, p.id);
    if (!canCreateEpic(caller, level)) throw forbidden();
    const errors = epicErrors({ title: p.title, description: p.description, color: p.color });
    if (Object.keys(errors).length) throw validationFailed(errors);
    const db = c.var.db;
    const now = Date.now();
    // The parent epic and the labels by title in one round trip.
    const [parentRows, labelRows] = await batchReads(db, [p.parent_id ? parentEpicRead(db, p.parent_id) : undefined, p.labels?.length ? groupLabelsRead(db, group, p.labels) : undefined]);
    const parentId = p.parent_id ? readableParent(parentRows?.[0], group) : null;
    const labelsFound = p.labels?.length ? buildGroupLabels(db, group, p.labels, labelRows ?? [], now, true) : null;
    const createdAt = caller.isAdmin || level >= 50 ? (p.created_at ?? now) : now;
    const idSql = newEpicIdSql(group.id);
    const statements: BatchItem<'sqlite'>[] = [
      ...(labelsFound?.inserts ?? []),
      ...epicInsertStatements(db, {
        groupId: group.id,
        title: p.title,
        description: p.description ?? null,
        authorId: user.id,
        confidential: p.confidential ?? false,
        parentId,
        color: p.color?.trim() ?? '#1068bf',
        startDate: p.start_date_is_fixed === false ? null : dueDate(p.start_date_fixed),
        dueDate: p.due_date_is_fixed === false ? null : dueDate(p.due_date_fixed),
        createdAt,
        updatedAt: createdAt,
      }),
      ...labelEvents(db, { type: 'Epic', id: idSql }, labelsFound?.ids ?? [], [], user.id, now),
      ...(labelsFound?.ids ?? []).map((labelId) => db.insert(labelLinks).values({ labelId, targetType: 'Epic', targetId: idSql, createdAt: now }).onConflictDoNothing()),
    ];
    // `idSql` read inside the batch (one transaction) names the epic just inserted, and no other.
    return c.json((await writeAndPresentEpic(c, caller, statements, idSql, group.id))!, 201);
  });

  r.route({ method: 'PUT', path: '/groups/:id/epics/:epic_iid', summary: 'Update an epic', tags: ['epics'], params: updateEpicParams, responses: { 200: EpicSchema } }, async ({ c, p, caller }) => {
    const user = requireUser(caller);
    const { group, level, epic } = await findReadableEpic(c, caller, p.id, p.epic_iid);
    if (!canUpdateEpic(caller, level, epic)) throw forbidden();
    const errors = epicErrors({ title: p.title, description: p.description, color: p.color });
    if (Object.keys(errors).length) throw validationFailed(errors);
    const db = c.var.db;
    const now = Date.now();
    const set: Partial<typeof epics.$inferInsert> = {};
    if (p.title !== undefined) set.title = p.title;
    if (p.description !== undefined) set.description = p.description;
    if (p.confidential !== undefined) set.confidential = p.confidential;
    if (p.color !== undefined) set.color = p.color.trim();
    if (p.state_event === 'close' && epic.state !== 'closed') Object.assign(set, { state: 'closed', closedAt: now, closedById: user.id });
    if (p.state_event === 'reopen' && epic.state === 'closed') Object.assign(set, { state: 'opened', closedAt: null, closedById: null });
    if (p.start_date_is_fixed === false) set.startDate = null;
    else if (p.start_date_fixed !== undefined) set.startDate = dueDate(p.start_date_fixed);
    if (p.due_date_is_fixed === false) set.dueDate = null;
    else if (p.due_date_fixed !== undefined) set.dueDate = dueDate(p.due_date_fixed);
    const labelsGiven = p.labels !== undefined || p.add_labels !== undefined || p.remove_labels !== undefined;
    const addTitles = [...(p.labels ?? []), ...(p.add_labels ?? [])];
    // The parent epic and the labels to add and to remove, by title, in one round trip.
    const [parentRows, addRows, removeRows] = await batchReads(db, [
      p.parent_id ? parentEpicRead(db, p.parent_id) : undefined,
      labelsGiven ? groupLabelsRead(db, group, addTitles) : undefined,
      labelsGiven && p.remove_labels?.length ? groupLabelsRead(db, group, p.remove_labels) : undefined,
    ]);
    if (p.parent_id !== undefined) set.parentId = p.parent_id ? readableParent(parentRows?.[0], group, epic.id) : null;
    if (p.updated_at !== undefined && (caller.isAdmin || level >= 50)) set.updatedAt = p.updated_at;
    const statements: BatchItem<'sqlite'>[] = [];
    if (labelsGiven) {
      const add = buildGroupLabels(db, group, addTitles, addRows ?? [], now, true);
      const remove = p.remove_labels?.length ? buildGroupLabels(db, group, p.remove_labels, removeRows ?? [], now, false) : null;
      const removeIds = (remove?.existing ?? []).map((l) => l.id);
      statements.push(...add.inserts);
      // Label events before the link statements (each checks the links as the batch reaches them).
      const kept = add.ids.filter((id): id is number => typeof id === 'number');
      if (p.labels !== undefined) statements.push(labelsRemovedEvents(db, { type: 'Epic', id: epic.id }, kept, user.id, now));
      statements.push(...labelEvents(db, { type: 'Epic', id: epic.id }, add.ids.filter((id) => typeof id !== 'number' || !removeIds.includes(id)), p.labels !== undefined ? [] : removeIds, user.id, now));
      if (p.labels !== undefined) statements.push(db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Epic'), eq(labelLinks.targetId, epic.id))));
      else if (removeIds.length) statements.push(db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Epic'), eq(labelLinks.targetId, epic.id), inArray(labelLinks.labelId, removeIds))));
      for (const labelId of add.ids) if (typeof labelId !== 'number' || !removeIds.includes(labelId)) statements.push(db.insert(labelLinks).values({ labelId, targetType: 'Epic', targetId: epic.id, createdAt: now }).onConflictDoNothing());
    }
    set.updatedAt ??= now;
    statements.unshift(db.update(epics).set(set).where(eq(epics.id, epic.id)));
    return c.json((await writeAndPresentEpic(c, caller, statements, sql`${epic.id}`, group.id))!);
  });

  r.route({ method: 'DELETE', path: '/groups/:id/epics/:epic_iid', summary: 'Delete an epic', tags: ['epics'], params: epicRefParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const { level, epic } = await findReadableEpic(c, caller, p.id, p.epic_iid);
    if (!canDestroyEpic(caller, level)) throw forbidden();
    checkUnmodifiedSince(c, epic.updatedAt);
    const db = c.var.db;
    await db.batch([
      db.update(issues).set({ epicId: null }).where(eq(issues.epicId, epic.id)),
      db.update(epics).set({ parentId: null }).where(eq(epics.parentId, epic.id)),
      db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Epic'), eq(labelLinks.targetId, epic.id))),
      db.delete(resourceLabelEvents).where(eq(resourceLabelEvents.epicId, epic.id)),
      db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Epic'), eq(awardEmoji.awardableId, epic.id))),
      db.delete(notes).where(and(eq(notes.noteableType, 'Epic'), eq(notes.noteableId, epic.id))),
      db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'Epic'), eq(subscriptions.subscribableId, epic.id))),
      relatedEpicLinksDelete(db, sql`(${epic.id})`),
      db.delete(epics).where(eq(epics.id, epic.id)),
    ]);
    return c.body(null, 204);
  });

}

/** The parent epic by id, for a batch (`readableParent` judges the row). */
const parentEpicRead = (db: Db, parentId: number) => db.select().from(epics).where(eq(epics.id, parentId)).limit(1);

/** A parent epic must be readable in the group's hierarchy and must not be the epic itself. */
function readableParent(parent: EpicRow | undefined, group: { traversalPath: string | null; id: number }, selfId?: number) {
  if (!parent || parent.id === selfId || !traversalIds(group as never).includes(parent.groupId)) throw notFound('Epic');
  return parent.id;
}
