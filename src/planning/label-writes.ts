/**
 * Label writes (GitLab Labels::CreateService, UpdateService, PromoteService, label_helpers.rb,
 * subscriptions.rb): create, update (with the project's priority), delete, promote a project label
 * to its group, and (un)subscribe. Each answers with the presented label, or 204/304.
 */
import { and, eq, getTableColumns, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { batchReads, writeThenRead } from '../db/batch-reads';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { labelLinks, labelPriorities, labels, namespaces, projects, resourceLabelEvents, subscriptions } from '../db/schema';
import { groupAccessRead, subtreeOf, traversalIds } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, conflict, forbidden, grapeError, validationFailed } from '../platform/errors';
import { requestParams } from '../platform/params';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import { availableProjectLabelsSql, labelErrors, labelWithExtras, type LabelWithExtras, normalizeColor, sanitizeLabelText } from './labels';
import { canAdminLabels, findLabel, findLabelQuery, foundLabel, type GroupParent, labelMatch, ownScope, type Parent, present, type ProjectParent, projectScope, requireLabelAdmin } from './label-lookup';

const PROMOTE_FAILED = 'Failed to promote project label to group label';

export async function createLabel(c: Context<AppEnv>, caller: Caller, parent: Parent, p: { name: string; color: string; description?: string; archived?: boolean; priority?: number }) {
  requireUser(caller);
  if (!canAdminLabels(caller, parent.level) || (parent.kind === 'project' && !parent.planning)) throw forbidden();
  const db = c.var.db;
  const title = sanitizeLabelText(p.name).trim();
  const available = parent.kind === 'project' ? availableProjectLabelsSql(parent.project, parent.namespace) : inArray(labels.groupId, [parent.group.id, ...traversalIds(parent.group)]);
  if (title && (await db.select({ id: labels.id }).from(labels).where(and(available, eq(labels.title, title))).get())) throw conflict('Label already exists');
  const color = normalizeColor(p.color);
  const description = p.description !== undefined ? labelDescription(p.description) : null;
  const errors = { ...labelErrors({ title, color, checkTitle: true, checkColor: true, description }), ...priorityErrors(p.priority) };
  if (Object.keys(errors).length) throw validationFailed(errors);
  const now = Date.now();
  const projectId = parent.kind === 'project' ? parent.project.id : null;
  const groupId = parent.kind === 'group' ? parent.group.id : null;
  const insert = db.insert(labels).values({ projectId, groupId, title, color, description, archived: p.archived ?? false, createdAt: now, updatedAt: now });
  const byTitle = and(projectId != null ? eq(labels.projectId, projectId) : eq(labels.groupId, groupId!), eq(labels.title, title));
  const priority =
    projectId != null && p.priority != null
      ? db.insert(labelPriorities).select(
          db
            .select({ projectId: sql<number>`${projectId}`.as('project_id'), labelId: labels.id, priority: sql<number>`${p.priority}`.as('priority') })
            .from(labels)
            .where(byTitle),
        )
      : undefined;
  // The write and the label as its entity shows it (subscription, priority), one round trip.
  const answer = db.select(labelWithExtras(caller.user?.id ?? null, projectId)).from(labels).where(byTitle).limit(1);
  let row: LabelWithExtras;
  try {
    [[row]] = await writeThenRead(db, priority ? [insert, priority] : [insert], [answer]);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('Label already exists');
    throw err;
  }
  return c.json((await present(c, caller, parent, [row]))[0], 201);
}

export async function updateLabel(
  c: Context<AppEnv>,
  caller: Caller,
  parent: Parent,
  idOrTitle: string,
  p: { new_name?: string; color?: string; description?: string; archived?: boolean; priority?: number },
) {
  requireUser(caller);
  // update_label: `authorize! :update_label, parent` comes before the label lookup.
  if (!canAdminLabels(caller, parent.level) || (parent.kind === 'project' && !parent.planning)) throw forbidden();
  const db = c.var.db;
  const raw = await requestParams(c);
  const set: Partial<typeof labels.$inferInsert> = {};
  if (p.new_name !== undefined) set.title = sanitizeLabelText(p.new_name).trim();
  if (p.color !== undefined) set.color = normalizeColor(p.color);
  if (p.description !== undefined) set.description = labelDescription(p.description);
  if (p.archived !== undefined) set.archived = p.archived;
  // The label and what deciding on the change needs, in one round trip: whether the new title is
  // taken in the project or in its group (the label's own scope is one of them), and the caller's
  // level in the project's group (which governs a group label changed through the project).
  const ownGroupId = parent.kind === 'group' ? parent.group.id : parent.namespace.kind === 'Group' ? parent.namespace.id : null;
  const titleTaken = (owner: SQL) => db.select({ id: labels.id }).from(labels).where(and(owner, eq(labels.title, set.title!))).limit(1);
  const [[found], inProject, inGroup, groupLevelRows] = await batchReads(db, [
    findLabelQuery(db, ownScope(parent), idOrTitle),
    set.title !== undefined && parent.kind === 'project' ? titleTaken(eq(labels.projectId, parent.project.id)) : undefined,
    set.title !== undefined && ownGroupId != null ? titleTaken(eq(labels.groupId, ownGroupId)) : undefined,
    Object.keys(set).length && parent.kind === 'project' && ownGroupId != null && !caller.isAdmin ? groupAccessRead(db, caller.user, ownGroupId) : undefined,
  ]);
  const label = foundLabel(found);
  const badPriority = parent.kind === 'project' ? priorityErrors(p.priority) : {};
  if (Object.keys(badPriority).length) throw validationFailed(badPriority);
  const now = Date.now();
  const writes: BatchItem<'sqlite'>[] = [];
  if (Object.keys(set).length) {
    await requireLabelAdmin(c, caller, parent, label, groupLevelRows ? Number(groupLevelRows[0]?.level ?? 0) : undefined);
    const errors = labelErrors({
      title: set.title,
      color: set.color,
      checkTitle: set.title !== undefined,
      checkColor: set.color !== undefined,
      description: set.description !== label.description ? set.description : undefined,
      previous: label.description,
    });
    if (set.title !== undefined && set.title !== label.title && !errors.title) {
      if (label.projectId != null ? inProject?.length : inGroup?.length) errors.title = ['has already been taken'];
      // ProjectLabel#title_must_not_exist_at_group_level (the project's own group only).
      else if (label.projectId != null && parent.kind === 'project' && inGroup?.length)
        errors.title = [`already exists at group level for ${escapeHtml(parent.namespace.name)}. Please choose another one.`];
    }
    if (Object.keys(errors).length) throw validationFailed(errors);
    writes.push(db.update(labels).set({ ...set, updatedAt: now }).where(eq(labels.id, label.id)));
  }
  if (parent.kind === 'project' && 'priority' in raw) {
    const pid = parent.project.id;
    if (p.priority == null) writes.push(db.delete(labelPriorities).where(and(eq(labelPriorities.projectId, pid), eq(labelPriorities.labelId, label.id))));
    else
      writes.push(
        db
          .insert(labelPriorities)
          .values({ projectId: pid, labelId: label.id, priority: p.priority })
          .onConflictDoUpdate({ target: [labelPriorities.projectId, labelPriorities.labelId], set: { priority: p.priority } }),
      );
  }
  const answer = db.select(labelWithExtras(caller.user?.id ?? null, parent.kind === 'project' ? parent.project.id : null)).from(labels).where(eq(labels.id, label.id)).limit(1);
  let row: LabelWithExtras;
  try {
    [[row]] = await writeThenRead(db, writes, [answer]);
  } catch (err) {
    if (isUniqueViolation(err)) throw validationFailed({ title: ['has already been taken'] });
    throw err;
  }
  return c.json((await present(c, caller, parent, [row]))[0]);
}

/**
 * LabelPriority validates `priority` as an integer >= 0 (GitLab raises on save!, after the label is
 * written); here it is a 400 before anything is written. The upper bound is PostgreSQL's integer.
 */
function priorityErrors(priority: number | undefined): Record<string, string[]> {
  if (priority == null) return {};
  if (priority < 0) return { priority: ['must be greater than or equal to 0'] };
  if (priority > 2147483647) return { priority: ['must be less than or equal to 2147483647'] };
  return {};
}

/** Label#description=: a blank value is written as given (clearing it), anything else sanitized. */
const labelDescription = (d: string) => (d.trim() ? sanitizeLabelText(d) : d);

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

export async function deleteLabel(c: Context<AppEnv>, caller: Caller, parent: Parent, idOrTitle: string) {
  requireUser(caller);
  const db = c.var.db;
  const label = await findLabel(c, ownScope(parent), idOrTitle);
  await requireLabelAdmin(c, caller, parent, label);
  checkUnmodifiedSince(c, label.updatedAt);
  await db.batch([
    db.delete(labelLinks).where(eq(labelLinks.labelId, label.id)),
    db.delete(labelPriorities).where(eq(labelPriorities.labelId, label.id)),
    db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'Label'), eq(subscriptions.subscribableId, label.id))),
    db.delete(labels).where(eq(labels.id, label.id)),
  ]);
  return c.body(null, 204);
}

/**
 * Labels::PromoteService: the project label becomes a label of the project's group, keeping its id
 * (or merges into the group's label of the same title); project labels of the same title in the
 * group's other projects merge into it (their links, priorities and subscriptions move over).
 */
export async function promoteLabel(c: Context<AppEnv>, caller: Caller, parent: ProjectParent, idOrTitle: string) {
  requireUser(caller);
  const db = c.var.db;
  const group = parent.namespace;
  if (group.kind !== 'Group') throw new ApiError(400, { message: PROMOTE_FAILED });
  // The caller's level in the group, the label, and the group's label of the same title (which
  // the label merges into), in one round trip: the title comes from the label's own lookup.
  const match = labelMatch(ownScope(parent), idOrTitle);
  const titleOfFound = db.select({ title: labels.title }).from(labels).where(match.where).orderBy(...match.order).limit(1);
  const [[levelRow], [found], [existing]] = await batchReads(db, [
    groupAccessRead(db, caller.user, group.id),
    db.select().from(labels).where(match.where).orderBy(...match.order).limit(1),
    db.select().from(labels).where(and(eq(labels.groupId, group.id), inArray(labels.title, titleOfFound))).limit(1),
  ]);
  const groupLevel = Number(levelRow?.level ?? 0);
  if (!canAdminLabels(caller, groupLevel)) throw forbidden();
  const label = foundLabel(found);
  if (label.projectId == null) throw new ApiError(400, { message: PROMOTE_FAILED });
  const targetId = existing?.id ?? label.id;
  const now = Date.now();
  // Project labels of this title in the group's projects (subgroups included), except the target.
  const groupProjects = db.select({ id: projects.id }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(subtreeOf(group.traversalPath!));
  const merged = db
    .select({ id: labels.id })
    .from(labels)
    .where(and(inArray(labels.projectId, groupProjects), eq(labels.title, label.title), sql`${labels.id} != ${targetId}`));
  const statements = [
    ...(existing ? [] : [db.update(labels).set({ projectId: null, groupId: group.id, updatedAt: now }).where(eq(labels.id, label.id))]),
    // Links, priorities and subscriptions the target already has win; the rest move to the target.
    db.delete(labelLinks).where(
      and(inArray(labelLinks.labelId, merged), sql`exists (select 1 from label_links t where t.label_id = ${targetId} and t.target_type = ${labelLinks.targetType} and t.target_id = ${labelLinks.targetId})`),
    ),
    db.update(labelLinks).set({ labelId: targetId }).where(inArray(labelLinks.labelId, merged)),
    // Labels::PromoteService#update_events: the resource label events follow the label to the group.
    db.update(resourceLabelEvents).set({ labelId: targetId }).where(inArray(resourceLabelEvents.labelId, merged)),
    db.delete(labelPriorities).where(
      and(inArray(labelPriorities.labelId, merged), sql`exists (select 1 from label_priorities t where t.label_id = ${targetId} and t.project_id = ${labelPriorities.projectId})`),
    ),
    db.update(labelPriorities).set({ labelId: targetId }).where(inArray(labelPriorities.labelId, merged)),
    db.delete(subscriptions).where(
      and(
        eq(subscriptions.subscribableType, 'Label'),
        inArray(subscriptions.subscribableId, merged),
        sql`exists (select 1 from subscriptions t where t.subscribable_type = 'Label' and t.subscribable_id = ${targetId} and t.user_id = ${subscriptions.userId} and t.project_id is ${subscriptions.projectId})`,
      ),
    ),
    db.update(subscriptions).set({ subscribableId: targetId }).where(and(eq(subscriptions.subscribableType, 'Label'), inArray(subscriptions.subscribableId, merged))),
    db.delete(labels).where(inArray(labels.id, merged)),
  ] as const;
  const answer = db.select(labelWithExtras(caller.user?.id ?? null, null)).from(labels).where(eq(labels.id, targetId)).limit(1);
  const [[row]] = await writeThenRead(db, statements, [answer]);
  const groupParent: GroupParent = { kind: 'group', group, level: groupLevel };
  return c.json((await present(c, caller, groupParent, [row]))[0]);
}

/** Subscribable#subscribed?(user, project): the one row for this user and parent (project or none). */
const subscriptionScope = (labelId: number, userId: number, projectId: number | null) =>
  and(
    eq(subscriptions.subscribableType, 'Label'),
    eq(subscriptions.subscribableId, labelId),
    eq(subscriptions.userId, userId),
    projectId != null ? eq(subscriptions.projectId, projectId) : isNull(subscriptions.projectId),
  );

export async function toggleSubscription(c: Context<AppEnv>, caller: Caller, parent: Parent, idOrTitle: string, subscribe: boolean) {
  const user = requireUser(caller);
  const db = c.var.db;
  const scope = parent.kind === 'project' ? projectScope(parent) : inArray(labels.groupId, [parent.group.id, ...traversalIds(parent.group)]);
  const projectId = parent.kind === 'project' ? parent.project.id : null;
  const m = labelMatch(scope, idOrTitle);
  // The label with the caller's row for this parent: null when there is none, else whether it subscribes.
  const id = sql.raw('"labels"."id"');
  const onParent = projectId != null ? sql`s.project_id = ${projectId}` : sql`s.project_id IS NULL`;
  const mine = sql<number | null>`(SELECT max(s.subscribed) FROM subscriptions s WHERE s.subscribable_type = 'Label' AND s.subscribable_id = ${id} AND s.user_id = ${user.id} AND ${onParent})`.as('mine');
  const [found] = await db.select({ ...getTableColumns(labels), mine }).from(labels).where(m.where).orderBy(...m.order).limit(1);
  const label = foundLabel(found);
  // subscriptions.rb: already in the requested state answers 304 Not Modified.
  if (Boolean(Number(label.mine ?? 0)) === subscribe) return c.body(null, 304);
  const now = Date.now();
  // A row without a project is not unique to SQLite (NULLs differ), so an existing row is updated, never upserted.
  const write =
    label.mine != null
      ? db.update(subscriptions).set({ subscribed: subscribe, updatedAt: now }).where(subscriptionScope(label.id, user.id, projectId))
      : db
          .insert(subscriptions)
          .values({ userId: user.id, subscribableType: 'Label', subscribableId: label.id, projectId, subscribed: subscribe, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: [subscriptions.subscribableType, subscriptions.subscribableId, subscriptions.userId, subscriptions.projectId], set: { subscribed: subscribe, updatedAt: now } });
  const [[row]] = await writeThenRead(db, [write], [db.select(labelWithExtras(user.id, projectId)).from(labels).where(eq(labels.id, label.id)).limit(1)]);
  return c.json((await present(c, caller, parent, [row]))[0], 201);
}

/** `at_least_one_of` of project_label_update_params by key presence (Grape counts `"priority": null`), before the handler body. */
export async function requireSomeProjectUpdate(c: Context<AppEnv>) {
  const raw = await requestParams(c);
  if (!['new_name', 'color', 'description', 'priority', 'archived'].some((k) => k in raw))
    throw grapeError('new_name, color, description, priority, archived are missing, at least one parameter must be provided');
}
