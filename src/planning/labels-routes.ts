/**
 * Project and group labels (GitLab lib/api/labels.rb, group_labels.rb, helpers/label_helpers.rb)
 * and label subscriptions (lib/api/subscriptions.rb). Every route runs `authenticate!`.
 *
 * Rights: reading needs a readable project or group; creating, updating, deleting and promoting
 * need `admin_label` (planner or above, i.e. level >= 15; administrators always).
 */
import { and, asc, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { labelLinks, labelPriorities, labels, namespaces, projects, subscriptions } from '../db/schema';
import { labelEntity, type LabelRow, projectLabelEntity } from './label-entity';
import { ACCESS, groupAccess, groupVisibleSql, type NamespaceRow, projectVisibleSql, type ProjectRow, subtreeOf, traversalIds } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, conflict, forbidden, grapeError, notFound, validationFailed } from '../platform/errors';
import { countUpTo, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import {
  createGroupLabelParams,
  createProjectLabelParams,
  deleteLabelParams,
  deleteProjectLabelLegacyParams,
  getGroupLabelParams,
  getProjectLabelParams,
  listGroupLabelsParams,
  listProjectLabelsParams,
  promoteLabelParams,
  subscribeLabelParams,
  updateGroupLabelLegacyParams,
  updateGroupLabelParams,
  updateProjectLabelLegacyParams,
  updateProjectLabelParams,
} from './labels-params';
import { findReadableGroup } from '../projects/groups';
import { availableProjectLabelsSql, labelErrors, planningAvailable, loadLabelCounts, loadLabelPriorities, loadLabelSubscriptions, normalizeColor, sanitizeLabelText } from './labels';
import { findReadableProject } from '../projects/projects';

const TAGS = ['labels'];
const PROMOTE_FAILED = 'Failed to promote project label to group label';

/** `planning`: the issues or merge requests feature is available to the caller (ProjectPolicy prevents every label ability otherwise). */
type ProjectParent = { kind: 'project'; project: ProjectRow; namespace: NamespaceRow; level: number; planning: boolean };
type GroupParent = { kind: 'group'; group: NamespaceRow; level: number };
type Parent = ProjectParent | GroupParent;

const canAdminLabels = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.PLANNER;

/** Label.search (fuzzy_search on title and description): every word in one column, case-insensitive; instr has no LIKE length limit. */
function searchSql(q: string): SQL | undefined {
  const words = q.split(/\s+/).filter(Boolean);
  if (!words.length) return undefined;
  const inCol = (col: SQL) => and(...words.map((w) => sql`instr(lower(${col}), lower(${w})) > 0`));
  return or(inCol(sql`${labels.title}`), inCol(sql`coalesce(${labels.description}, '')`));
}

/** Group ids whose labels a group request covers (LabelsFinder#group_ids_for), readable ones only. */
async function groupIdsFor(c: Context<AppEnv>, caller: Caller, group: NamespaceRow, o: { ancestors: boolean; descendants: boolean }): Promise<number[]> {
  const ids = new Set<number>([group.id]);
  if (o.ancestors) for (const id of traversalIds(group)) ids.add(id);
  if (o.descendants && group.traversalPath) {
    const rows = await c.var.db
      .select({ id: namespaces.id })
      .from(namespaces)
      .where(and(subtreeOf(group.traversalPath), eq(namespaces.kind, 'Group'), groupVisibleSql(caller)))
      .all();
    for (const r of rows) ids.add(r.id);
  }
  return [...ids];
}

/** SQL on `labels` for a group request; `only_group_labels=false` adds labels of the group's readable projects. */
async function groupLabelsSql(c: Context<AppEnv>, caller: Caller, group: NamespaceRow, o: { ancestors: boolean; descendants: boolean; onlyGroupLabels: boolean }): Promise<SQL> {
  const groupIds = await groupIdsFor(c, caller, group, o);
  const own = inArray(labels.groupId, groupIds);
  if (o.onlyGroupLabels) return own;
  const visibleProjects = c.var.db
    .select({ id: projects.id })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(eq(projects.namespaceId, group.id), projectVisibleSql(caller)));
  return or(own, inArray(labels.projectId, visibleProjects))!;
}

/** `find_label`: by id when the parameter is an integer, else (or when no such id) by title. */
async function findLabel(c: Context<AppEnv>, scope: SQL, idOrTitle: string): Promise<LabelRow> {
  const db = c.var.db;
  if (/^\d+$/.test(idOrTitle)) {
    const byId = await db.select().from(labels).where(and(scope, eq(labels.id, Number(idOrTitle)))).get();
    if (byId) return byId;
  }
  // A project label wins over a group label of the same title.
  const byTitle = await db.select().from(labels).where(and(scope, eq(labels.title, idOrTitle))).orderBy(sql`${labels.projectId} is null`, asc(labels.id)).get();
  if (!byTitle) throw notFound('Label');
  return byTitle;
}

async function loadParent(c: Context<AppEnv>, caller: Caller, kind: 'project' | 'group', id: string): Promise<Parent> {
  if (kind === 'project') {
    const { project, namespace, level } = await findReadableProject(c, caller, id);
    return { kind, project, namespace, level, planning: planningAvailable(caller, project, level) };
  }
  const { group, level } = await findReadableGroup(c, caller, id);
  return { kind, group, level };
}

/** Labels a project request covers; none when the caller may not read labels there (LabelsFinder drops the project). */
function projectScope(parent: ProjectParent, includeAncestorGroups = true): SQL {
  return parent.planning ? availableProjectLabelsSql(parent.project, parent.namespace, includeAncestorGroups) : sql`0 = 1`;
}

/** The scope of `find_label` for writes (`include_ancestor_groups: false`): own labels, and a project's direct group. */
function ownScope(parent: Parent): SQL {
  return parent.kind === 'project' ? projectScope(parent, false) : eq(labels.groupId, parent.group.id);
}

/** `authorize! :update_label/:delete_label, label`: a group label is governed by its group. */
async function requireLabelAdmin(c: Context<AppEnv>, caller: Caller, parent: Parent, label: LabelRow): Promise<void> {
  if (caller.isAdmin) return;
  if (parent.kind === 'project' && label.projectId === parent.project.id) {
    if (!canAdminLabels(caller, parent.level)) throw forbidden();
    return;
  }
  if (parent.kind === 'group' && label.groupId === parent.group.id) {
    if (!canAdminLabels(caller, parent.level)) throw forbidden();
    return;
  }
  const group = label.groupId != null ? await c.var.db.select().from(namespaces).where(eq(namespaces.id, label.groupId)).get() : undefined;
  const level = group ? await groupAccess(c.var.db, caller.user, group) : 0;
  if (!canAdminLabels(caller, level)) throw forbidden();
}

/** Presents labels as ProjectLabel (with the project's priorities) or GroupLabel. */
async function present(c: Context<AppEnv>, caller: Caller, parent: Parent, rows: LabelRow[], withCounts = false) {
  const db = c.var.db;
  const ids = rows.map((l) => l.id);
  const projectId = parent.kind === 'project' ? parent.project.id : null;
  const [subscribed, priorities, counts] = await Promise.all([
    loadLabelSubscriptions(db, caller.user?.id ?? null, ids, projectId),
    projectId != null ? loadLabelPriorities(db, projectId, ids) : Promise.resolve(new Map<number, number>()),
    withCounts ? loadLabelCounts(db, caller, rows) : Promise.resolve(null),
  ]);
  return rows.map((l) => {
    const x = { subscribed: subscribed.has(l.id), counts: counts?.get(l.id) ?? null };
    return parent.kind === 'project' ? projectLabelEntity(l, { ...x, priority: priorities.get(l.id) ?? null }) : labelEntity(l, x);
  });
}

async function list(
  c: Context<AppEnv>,
  caller: Caller,
  parent: Parent,
  scope: SQL,
  p: { search?: string; archived?: boolean; with_counts: boolean; page?: number; per_page?: number },
  defaults: Record<string, unknown>,
) {
  const db = c.var.db;
  const where = and(scope, p.search ? searchSql(p.search) : undefined, p.archived !== undefined ? eq(labels.archived, p.archived) : undefined);
  const raw = await requestParams(c);
  const rows = await paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, defaults),
    (limit, offset) => db.select().from(labels).where(where).orderBy(asc(labels.title), asc(labels.id)).limit(limit).offset(offset).all(),
    (limit) => countUpTo(db, labels, where, limit),
  );
  return c.json(await present(c, caller, parent, rows, p.with_counts));
}

// ---------------------------------------------------------------------------------------------
// Writes

async function createLabel(c: Context<AppEnv>, caller: Caller, parent: Parent, p: { name: string; color: string; description?: string; archived?: boolean; priority?: number }) {
  requireUser(caller);
  if (!canAdminLabels(caller, parent.level) || (parent.kind === 'project' && !parent.planning)) throw forbidden();
  const db = c.var.db;
  const title = sanitizeLabelText(p.name).trim();
  const available = parent.kind === 'project' ? availableProjectLabelsSql(parent.project, parent.namespace) : inArray(labels.groupId, [parent.group.id, ...traversalIds(parent.group)]);
  if (title && (await db.select({ id: labels.id }).from(labels).where(and(available, eq(labels.title, title))).get())) throw conflict('Label already exists');
  const color = normalizeColor(p.color);
  const errors = { ...labelErrors({ title, color, checkTitle: true, checkColor: true }), ...priorityErrors(p.priority) };
  if (Object.keys(errors).length) throw validationFailed(errors);
  const now = Date.now();
  const projectId = parent.kind === 'project' ? parent.project.id : null;
  const groupId = parent.kind === 'group' ? parent.group.id : null;
  const description = p.description !== undefined ? labelDescription(p.description) : null;
  const insert = db.insert(labels).values({ projectId, groupId, title, color, description, archived: p.archived ?? false, createdAt: now, updatedAt: now });
  const byTitle = and(projectId != null ? eq(labels.projectId, projectId) : eq(labels.groupId, groupId!), eq(labels.title, title));
  try {
    if (projectId != null && p.priority != null) {
      await db.batch([
        insert,
        db.insert(labelPriorities).select(
          db
            .select({ projectId: sql<number>`${projectId}`.as('project_id'), labelId: labels.id, priority: sql<number>`${p.priority}`.as('priority') })
            .from(labels)
            .where(byTitle),
        ),
      ]);
    } else await insert.run();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('Label already exists');
    throw err;
  }
  const row = (await db.select().from(labels).where(byTitle).get())!;
  return c.json((await present(c, caller, parent, [row]))[0], 201);
}

async function updateLabel(
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
  const label = await findLabel(c, ownScope(parent), idOrTitle);
  const badPriority = parent.kind === 'project' ? priorityErrors(p.priority) : {};
  if (Object.keys(badPriority).length) throw validationFailed(badPriority);
  const set: Partial<typeof labels.$inferInsert> = {};
  if (p.new_name !== undefined) set.title = sanitizeLabelText(p.new_name).trim();
  if (p.color !== undefined) set.color = normalizeColor(p.color);
  if (p.description !== undefined) set.description = labelDescription(p.description);
  if (p.archived !== undefined) set.archived = p.archived;
  const now = Date.now();
  if (Object.keys(set).length) {
    await requireLabelAdmin(c, caller, parent, label);
    const errors = labelErrors({ title: set.title, color: set.color, checkTitle: set.title !== undefined, checkColor: set.color !== undefined });
    if (set.title !== undefined && set.title !== label.title && !errors.title) {
      const sameScope = label.projectId != null ? eq(labels.projectId, label.projectId) : eq(labels.groupId, label.groupId!);
      if (await db.select({ id: labels.id }).from(labels).where(and(sameScope, eq(labels.title, set.title))).get()) errors.title = ['has already been taken'];
      else if (label.projectId != null && parent.kind === 'project' && parent.namespace.kind === 'Group') {
        // ProjectLabel#title_must_not_exist_at_group_level (the project's own group only).
        if (await db.select({ id: labels.id }).from(labels).where(and(eq(labels.groupId, parent.namespace.id), eq(labels.title, set.title))).get())
          errors.title = [`already exists at group level for ${escapeHtml(parent.namespace.name)}. Please choose another one.`];
      }
    }
    if (Object.keys(errors).length) throw validationFailed(errors);
    try {
      await db.update(labels).set({ ...set, updatedAt: now }).where(eq(labels.id, label.id)).run();
    } catch (err) {
      if (isUniqueViolation(err)) throw validationFailed({ title: ['has already been taken'] });
      throw err;
    }
  }
  if (parent.kind === 'project' && 'priority' in raw) {
    const pid = parent.project.id;
    if (p.priority == null) await db.delete(labelPriorities).where(and(eq(labelPriorities.projectId, pid), eq(labelPriorities.labelId, label.id))).run();
    else
      await db
        .insert(labelPriorities)
        .values({ projectId: pid, labelId: label.id, priority: p.priority })
        .onConflictDoUpdate({ target: [labelPriorities.projectId, labelPriorities.labelId], set: { priority: p.priority } })
        .run();
  }
  const row = (await db.select().from(labels).where(eq(labels.id, label.id)).get())!;
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

async function deleteLabel(c: Context<AppEnv>, caller: Caller, parent: Parent, idOrTitle: string) {
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
async function promoteLabel(c: Context<AppEnv>, caller: Caller, parent: ProjectParent, idOrTitle: string) {
  requireUser(caller);
  const db = c.var.db;
  const group = parent.namespace;
  if (group.kind !== 'Group') throw new ApiError(400, { message: PROMOTE_FAILED });
  const groupLevel = await groupAccess(db, caller.user, group);
  if (!canAdminLabels(caller, groupLevel)) throw forbidden();
  const label = await findLabel(c, ownScope(parent), idOrTitle);
  if (label.projectId == null) throw new ApiError(400, { message: PROMOTE_FAILED });
  const existing = await db.select().from(labels).where(and(eq(labels.groupId, group.id), eq(labels.title, label.title))).get();
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
  await db.batch(statements as unknown as [(typeof statements)[0], ...(typeof statements)[number][]]);
  const row = (await db.select().from(labels).where(eq(labels.id, targetId)).get())!;
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

async function toggleSubscription(c: Context<AppEnv>, caller: Caller, parent: Parent, idOrTitle: string, subscribe: boolean) {
  const user = requireUser(caller);
  const db = c.var.db;
  const scope = parent.kind === 'project' ? projectScope(parent) : inArray(labels.groupId, [parent.group.id, ...traversalIds(parent.group)]);
  const label = await findLabel(c, scope, idOrTitle);
  const projectId = parent.kind === 'project' ? parent.project.id : null;
  const rows = await db.select().from(subscriptions).where(subscriptionScope(label.id, user.id, projectId)).all();
  const current = rows.some((r) => r.subscribed);
  // subscriptions.rb: already in the requested state answers 304 Not Modified.
  if (current === subscribe) return c.body(null, 304);
  const now = Date.now();
  if (rows.length) await db.update(subscriptions).set({ subscribed: subscribe, updatedAt: now }).where(subscriptionScope(label.id, user.id, projectId)).run();
  else
    await db
      .insert(subscriptions)
      .values({ userId: user.id, subscribableType: 'Label', subscribableId: label.id, projectId, subscribed: subscribe, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [subscriptions.subscribableType, subscriptions.subscribableId, subscriptions.userId, subscriptions.projectId], set: { subscribed: subscribe, updatedAt: now } })
      .run();
  return c.json((await present(c, caller, parent, [label]))[0], 201);
}

/** `at_least_one_of` of project_label_update_params by key presence (Grape counts `"priority": null`), before the handler body. */
async function requireSomeProjectUpdate(c: Context<AppEnv>) {
  const raw = await requestParams(c);
  if (!['new_name', 'color', 'description', 'priority', 'archived'].some((k) => k in raw))
    throw grapeError('new_name, color, description, priority, archived are missing, at least one parameter must be provided');
}

// ---------------------------------------------------------------------------------------------

export function mountLabels(r: Router) {
  const auth = { signedIn: true as const };

  // ---- project labels (lib/api/labels.rb)
  r.route({ ...auth, method: 'GET', path: '/projects/:id/labels', summary: 'List project labels', tags: TAGS, params: listProjectLabelsParams }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    const scope = projectScope(parent, p.include_ancestor_groups);
    return list(c, caller, parent, scope, p, { with_counts: false, include_ancestor_groups: true });
  });

  r.route({ ...auth, method: 'POST', path: '/projects/:id/labels', summary: 'Create a project label', tags: TAGS, params: createProjectLabelParams, status: 201 }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'project', p.id);
    return createLabel(c, caller, parent, p);
  });

  // Deprecated body-addressed forms (12.4), registered before `/:name` routes.
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels', summary: 'Update a project label (deprecated)', tags: TAGS, params: updateProjectLabelLegacyParams }, async ({ c, p, caller }) => {
    await requireSomeProjectUpdate(c);
    const parent = await loadParent(c, caller, 'project', p.id);
    return updateLabel(c, caller, parent, String(p.label_id ?? p.name), p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/projects/:id/labels', summary: 'Delete a project label (deprecated)', tags: TAGS, params: deleteProjectLabelLegacyParams }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'project', p.id);
    return deleteLabel(c, caller, parent, String(p.label_id ?? p.name));
  });
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels/promote', summary: 'Promote a project label (deprecated)', tags: TAGS, params: promoteLabelParams }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    return promoteLabel(c, caller, parent, p.name);
  });

  r.route({ ...auth, method: 'GET', path: '/projects/:id/labels/:name', summary: 'Get a project label', tags: TAGS, params: getProjectLabelParams }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    const label = await findLabel(c, projectScope(parent, p.include_ancestor_groups), p.name);
    return c.json((await present(c, caller, parent, [label]))[0]);
  });
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels/:name', summary: 'Update a project label', tags: TAGS, params: updateProjectLabelParams }, async ({ c, p, caller }) => {
    await requireSomeProjectUpdate(c);
    const parent = await loadParent(c, caller, 'project', p.id);
    return updateLabel(c, caller, parent, p.name, p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/projects/:id/labels/:name', summary: 'Delete a project label', tags: TAGS, params: deleteLabelParams, status: 204 }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'project', p.id);
    return deleteLabel(c, caller, parent, p.name);
  });
  r.route({ ...auth, method: 'PUT', path: '/projects/:id/labels/:name/promote', summary: 'Promote a project label to a group label', tags: TAGS, params: promoteLabelParams }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'project', p.id)) as ProjectParent;
    return promoteLabel(c, caller, parent, p.name);
  });
  r.route(
    { ...auth, method: 'POST', path: '/projects/:id/labels/:subscribable_id/subscribe', summary: 'Subscribe to a project label', tags: TAGS, params: subscribeLabelParams, status: 201 },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'project', p.id), p.subscribable_id, true),
  );
  r.route(
    { ...auth, method: 'POST', path: '/projects/:id/labels/:subscribable_id/unsubscribe', summary: 'Unsubscribe from a project label', tags: TAGS, params: subscribeLabelParams, status: 201 },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'project', p.id), p.subscribable_id, false),
  );

  // ---- group labels (lib/api/group_labels.rb)
  r.route({ ...auth, method: 'GET', path: '/groups/:id/labels', summary: 'List group labels', tags: TAGS, params: listGroupLabelsParams }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'group', p.id)) as GroupParent;
    const scope = await groupLabelsSql(c, caller, parent.group, { ancestors: p.include_ancestor_groups, descendants: p.include_descendant_groups, onlyGroupLabels: p.only_group_labels });
    return list(c, caller, parent, scope, p, { with_counts: false, include_ancestor_groups: true, include_descendant_groups: false, only_group_labels: true });
  });
  r.route({ ...auth, method: 'POST', path: '/groups/:id/labels', summary: 'Create a group label', tags: TAGS, params: createGroupLabelParams, status: 201 }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return createLabel(c, caller, parent, p);
  });
  r.route({ ...auth, method: 'PUT', path: '/groups/:id/labels', summary: 'Update a group label (deprecated)', tags: TAGS, params: updateGroupLabelLegacyParams }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return updateLabel(c, caller, parent, String(p.label_id ?? p.name), p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/groups/:id/labels', summary: 'Delete a group label (deprecated)', tags: TAGS, params: deleteLabelParams }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return deleteLabel(c, caller, parent, p.name);
  });
  r.route({ ...auth, method: 'GET', path: '/groups/:id/labels/:name', summary: 'Get a group label', tags: TAGS, params: getGroupLabelParams }, async ({ c, p, caller }) => {
    const parent = (await loadParent(c, caller, 'group', p.id)) as GroupParent;
    const scope = await groupLabelsSql(c, caller, parent.group, { ancestors: p.include_ancestor_groups, descendants: p.include_descendant_groups, onlyGroupLabels: p.only_group_labels });
    const label = await findLabel(c, scope, p.name);
    return c.json((await present(c, caller, parent, [label]))[0]);
  });
  r.route({ ...auth, method: 'PUT', path: '/groups/:id/labels/:name', summary: 'Update a group label', tags: TAGS, params: updateGroupLabelParams }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return updateLabel(c, caller, parent, p.name, p);
  });
  r.route({ ...auth, method: 'DELETE', path: '/groups/:id/labels/:name', summary: 'Delete a group label', tags: TAGS, params: deleteLabelParams, status: 204 }, async ({ c, p, caller }) => {
    const parent = await loadParent(c, caller, 'group', p.id);
    return deleteLabel(c, caller, parent, p.name);
  });
  r.route(
    { ...auth, method: 'POST', path: '/groups/:id/labels/:subscribable_id/subscribe', summary: 'Subscribe to a group label', tags: TAGS, params: subscribeLabelParams, status: 201 },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'group', p.id), p.subscribable_id, true),
  );
  r.route(
    { ...auth, method: 'POST', path: '/groups/:id/labels/:subscribable_id/unsubscribe', summary: 'Unsubscribe from a group label', tags: TAGS, params: subscribeLabelParams, status: 201 },
    async ({ c, p, caller }) => toggleSubscription(c, caller, await loadParent(c, caller, 'group', p.id), p.subscribable_id, false),
  );
}
