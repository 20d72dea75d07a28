/**
 * Project and group milestones (GitLab lib/api/project_milestones.rb, group_milestones.rb,
 * milestone_responses.rb, app/finders/milestones_finder.rb). Every route runs `authenticate!`.
 *
 * `:milestone_id` is the milestone's global id, looked up among the parent's own milestones
 * (`parent.milestones.find`, so a miss is ActiveRecord's `404 Not found`). Managing milestones needs
 * `admin_milestone`: planner or above (level >= 15), or an administrator.
 */
import { and, asc, desc, eq, gt, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { issues, mergeRequests, milestones, namespaces, projects } from '../db/schema';
import { milestoneRemovedEvents } from '../issuables/resource-events';
import { type MilestoneRow, MilestoneSchema } from './milestone-entity';
import { ACCESS, groupAccessRead, groupVisibleSql, type NamespaceRow, projectVisibleSql, type ProjectRow, subtreeOf, traversalIds } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, forbidden, grapeError, recordNotFound } from '../platform/errors';
import { checkText, MAX_TEXT_SIZE, NAME_MAX } from '../platform/text-limits';
import { baseUrl, countUpTo, countUpToQuery, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import {
  createMilestoneParams,
  listGroupMilestonesParams,
  listProjectMilestonesParams,
  milestoneIdParams,
  updateMilestoneParams,
} from './milestones-params';
import { findReadableGroup } from '../projects/groups';
import { planningAvailable, sanitizeLabelText } from './labels';
import { bumpIid, iidSql, milestoneWithPath, type MilestoneWithPath, presentMilestones } from './milestones';
import { batchReads, writeThenRead } from '../db/batch-reads';
import type { Db } from '../db/client';
import { findReadableProject } from '../projects/projects';

const TAGS = ['milestones'];
/** The body of a promotion: the number 200 (see promoteMilestone). */
const PromotedSchema = z.literal(200);
/** GitLab lists MergeRequestBasic here; this server answers an empty page (see emptyMergeRequests). */

type ProjectParent = { kind: 'project'; project: ProjectRow; namespace: NamespaceRow; level: number };
type GroupParent = { kind: 'group'; group: NamespaceRow; level: number };
export type Parent = ProjectParent | GroupParent;

export async function loadParent(c: Context<AppEnv>, caller: Caller, kind: 'project' | 'group', id: string): Promise<Parent> {
  if (kind === 'project') {
    const { project, namespace, level } = await findReadableProject(c, caller, id);
    // `authorize! :read_milestone/:admin_milestone, user_project`: refused when neither issues nor merge requests are available.
    if (!planningAvailable(caller, project, level)) throw forbidden();
    return { kind, project, namespace, level };
  }
  const { group, level } = await findReadableGroup(c, caller, id);
  return { kind, group, level };
}

function requireAdminMilestone(caller: Caller, parent: Parent) {
  requireUser(caller);
  if (!(caller.isAdmin || parent.level >= ACCESS.PLANNER)) throw forbidden();
}

const ownSql = (parent: Parent) => (parent.kind === 'project' ? eq(milestones.projectId, parent.project.id) : eq(milestones.groupId, parent.group.id));

/** `parent.milestones.find(id)`. */
export async function findMilestone(c: Context<AppEnv>, parent: Parent, id: number): Promise<MilestoneWithPath> {
  const [m] = await findMilestoneQuery(c.var.db, parent, id);
  return foundMilestone(m);
}

/** `parent.milestones.find(id)` as an unexecuted read for a batch (`foundMilestone` on its row). */
export const findMilestoneQuery = (db: Db, parent: Parent, id: number) => db.select(milestoneWithPath).from(milestones).where(and(ownSql(parent), eq(milestones.id, id))).limit(1);

export function foundMilestone<T>(m: T | undefined): T {
  if (!m) throw recordNotFound();
  return m;
}

/** Timebox.search (fuzzy_search on title and description); instr has no LIKE length limit. */
function searchSql(q: string): SQL | undefined {
  const words = q.split(/\s+/).filter(Boolean);
  if (!words.length) return undefined;
  const inCol = (col: SQL) => and(...words.map((w) => sql`instr(lower(${col}), lower(${w})) > 0`));
  return or(inCol(sql`${milestones.title}`), inCol(sql`coalesce(${milestones.description}, '')`));
}

/** API::Concerns::Milestones::GroupProjectParams: which parents a list covers. */
async function listScope(c: Context<AppEnv>, caller: Caller, parent: Parent, includeAncestors: boolean, includeDescendants: boolean): Promise<SQL> {
  const db = c.var.db;
  if (parent.kind === 'project') {
    if (!includeAncestors || parent.namespace.kind !== 'Group') return eq(milestones.projectId, parent.project.id);
    return or(eq(milestones.projectId, parent.project.id), inArray(milestones.groupId, traversalIds(parent.namespace)))!;
  }
  const group = parent.group;
  if (!includeAncestors && !includeDescendants) return eq(milestones.groupId, group.id);
  const parts: SQL[] = [];
  const ancestorIds = includeAncestors ? traversalIds(group) : [group.id];
  const groupIds = db
    .select({ id: namespaces.id })
    .from(namespaces)
    .where(and(or(inArray(namespaces.id, ancestorIds), includeDescendants ? subtreeOf(group.traversalPath!) : undefined), eq(namespaces.kind, 'Group'), groupVisibleSql(caller)));
  parts.push(inArray(milestones.groupId, groupIds));
  if (includeDescendants) {
    const projectIds = db
      .select({ id: projects.id })
      .from(projects)
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(and(subtreeOf(group.traversalPath!), projectVisibleSql(caller)));
    parts.push(inArray(milestones.projectId, projectIds));
  }
  return or(...parts)!;
}

async function list(c: Context<AppEnv>, caller: Caller, parent: Parent, p: {
  state: 'active' | 'closed' | 'all';
  iids?: number[];
  title?: string;
  search?: string;
  include_parent_milestones?: boolean;
  include_ancestors?: boolean;
  include_descendants?: boolean;
  updated_before?: number;
  updated_after?: number;
  page?: number;
  per_page?: number;
}) {
  const db = c.var.db;
  // milestone_responses.rb: include_parent_milestones is the deprecated name of include_ancestors.
  const includeAncestors = Boolean(p.include_parent_milestones ?? p.include_ancestors);
  const scope = await listScope(c, caller, parent, includeAncestors, Boolean(p.include_descendants));
  const conds: (SQL | undefined)[] = [scope];
  if (p.state !== 'all') conds.push(eq(milestones.state, p.state));
  if (p.title !== undefined) conds.push(eq(milestones.title, p.title));
  if (p.search) conds.push(searchSql(p.search));
  if (p.updated_before != null) conds.push(lt(milestones.updatedAt, p.updated_before));
  if (p.updated_after != null) conds.push(gt(milestones.updatedAt, p.updated_after));
  // One JSON parameter for any number of iids (D1's 100-parameter limit).
  if (p.iids?.length) conds.push(sql`${milestones.iid} IN (select value from json_each(${JSON.stringify(p.iids)}))`);
  const where = and(...conds);
  const raw = await requestParams(c);
  const rows = await paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, { state: 'all' }),
    // MilestonesFinder default sort due_date_asc: due date ascending, nulls last, then id descending.
    (limit, offset) => db.select(milestoneWithPath).from(milestones).where(where).orderBy(sql`${milestones.dueDate} is null`, asc(milestones.dueDate), desc(milestones.id)).limit(limit).offset(offset),
    (limit) => countUpToQuery(db, milestones, where, limit),
  );
  return c.json(await presentMilestones(db, baseUrl(c), rows));
}

// ---------------------------------------------------------------------------------------------
// Validation and writes

/** Rails' Date cast of a String parameter: unparseable values become nil. */
export function castDate(v: string | null | undefined): string | null {
  if (v == null) return null;
  const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T\s].*)?$/.exec(v);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${m[1]}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Ruby's Hash#inspect of `errors.messages`, as milestone_responses.rb interpolates it. */
function rubyInspect(errors: Record<string, string[]>): string {
  return `{${Object.entries(errors)
    .map(([k, msgs]) => `:${k}=>[${msgs.map((m) => JSON.stringify(m)).join(', ')}]`)
    .join(', ')}}`;
}

const TITLE_TAKEN = 'already being used for another group or project milestone.';

/** Milestone#uniqueness_of_title: unique over the project and its ancestor groups, or over a group's whole hierarchy and its projects. */
async function titleTaken(c: Context<AppEnv>, parent: Parent, title: string, exceptId?: number): Promise<boolean> {
  const db = c.var.db;
  let scope: SQL;
  if (parent.kind === 'project') {
    const groupIds = parent.namespace.kind === 'Group' ? traversalIds(parent.namespace) : [];
    scope = groupIds.length ? or(eq(milestones.projectId, parent.project.id), inArray(milestones.groupId, groupIds))! : eq(milestones.projectId, parent.project.id);
  } else {
    const path = parent.group.traversalPath!;
    const hierarchy = db.select({ id: namespaces.id }).from(namespaces).where(or(inArray(namespaces.id, traversalIds(parent.group)), subtreeOf(path)));
    const subtreeProjects = db.select({ id: projects.id }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(subtreeOf(path));
    scope = or(inArray(milestones.groupId, hierarchy), inArray(milestones.projectId, subtreeProjects))!;
  }
  const hit = await db
    .select({ id: milestones.id })
    .from(milestones)
    .where(and(scope, eq(milestones.title, title), exceptId != null ? sql`${milestones.id} != ${exceptId}` : undefined))
    .get();
  return Boolean(hit);
}

/**
 * Caps on a milestone's text: the title is a `string(255)` column, the description a text column
 * held to Gitlab::Database::MAX_TEXT_SIZE_LIMIT, as GitLab holds text without a limit of its own.
 */
const MILESTONE_TEXT = { title: { max: NAME_MAX }, description: { max: MAX_TEXT_SIZE } };

async function milestoneErrors(
  c: Context<AppEnv>,
  parent: Parent,
  m: { title: string; startDate: string | null; dueDate: string | null; description?: string | null },
  titleChanged: boolean,
  exceptId?: number,
) {
  const errors: Record<string, string[]> = {};
  // Timebox#start_date_should_be_less_than_due_date (an equal date is refused too).
  if (m.startDate && m.dueDate && m.dueDate <= m.startDate) errors.due_date = ['must be greater than start date'];
  checkText(errors, { title: titleChanged ? m.title : undefined, description: m.description }, MILESTONE_TEXT);
  if (errors.title) return errors;
  if (!m.title) errors.title = ["can't be blank"];
  else if (titleChanged && (await titleTaken(c, parent, m.title, exceptId))) errors.title = [TITLE_TAKEN];
  return errors;
}

/** Timebox#title= (sanitized, blank ignored) with strip_attributes. */
const cleanTitle = (t: string) => sanitizeLabelText(t).trim();

async function createMilestone(c: Context<AppEnv>, caller: Caller, parent: Parent, p: { title: string; description?: string; due_date?: string; start_date?: string }) {
  requireAdminMilestone(caller, parent);
  const db = c.var.db;
  const title = cleanTitle(p.title);
  const startDate = castDate(p.start_date);
  const dueDate = castDate(p.due_date);
  const fail = (errors: Record<string, string[]>) => new ApiError(400, { message: `Failed to create milestone ${rubyInspect(errors)}` });
  const errors = await milestoneErrors(c, parent, { title, startDate, dueDate, description: p.description }, true);
  if (Object.keys(errors).length) throw fail(errors);
  const now = Date.now();
  const [usage, scopeId] = parent.kind === 'project' ? (['milestones', parent.project.id] as const) : (['group_milestones', parent.group.id] as const);
  let created: MilestoneWithPath[];
  try {
    // The new row is read back (with its path) inside the write's own batch.
    [created] = await writeThenRead(db, [
      bumpIid(db, usage, scopeId),
      db.insert(milestones).values({
        projectId: parent.kind === 'project' ? parent.project.id : null,
        groupId: parent.kind === 'group' ? parent.group.id : null,
        iid: iidSql(usage, scopeId),
        title,
        description: p.description ?? null,
        state: 'active',
        dueDate,
        startDate,
        createdAt: now,
        updatedAt: now,
      }),
    ], [db.select(milestoneWithPath).from(milestones).where(and(ownSql(parent), eq(milestones.title, title))).limit(1)]);
  } catch (err) {
    // A concurrent creator of the same title lost on milestones_project_title / milestones_group_title.
    if (isUniqueViolation(err)) throw fail({ title: [TITLE_TAKEN] });
    throw err;
  }
  return c.json((await presentMilestones(db, baseUrl(c), [created[0]]))[0], 201);
}

async function updateMilestone(
  c: Context<AppEnv>,
  caller: Caller,
  parent: Parent,
  p: { milestone_id: number; title?: string; state_event?: 'close' | 'activate'; description?: string; due_date?: string; start_date?: string },
) {
  requireAdminMilestone(caller, parent);
  const db = c.var.db;
  const raw = await requestParams(c);
  const m = await findMilestone(c, parent, p.milestone_id);
  const set: Partial<typeof milestones.$inferInsert> = {};
  // Timebox#title= ignores a blank title: the old one stays.
  const newTitle = p.title !== undefined ? cleanTitle(p.title) : '';
  if (newTitle && newTitle !== m.title) set.title = newTitle;
  if (p.description !== undefined || raw.description === null) set.description = p.description ?? null;
  if (p.start_date !== undefined || raw.start_date === null) set.startDate = castDate(p.start_date);
  if (p.due_date !== undefined || raw.due_date === null) set.dueDate = castDate(p.due_date);
  if (p.state_event === 'close') set.state = 'closed';
  if (p.state_event === 'activate') set.state = 'active';
  const next = { title: set.title ?? m.title, startDate: set.startDate !== undefined ? set.startDate : m.startDate, dueDate: set.dueDate !== undefined ? set.dueDate : m.dueDate };
  const fail = (errors: Record<string, string[]>) => new ApiError(400, { message: `Failed to update milestone ${rubyInspect(errors)}` });
  const errors = await milestoneErrors(c, parent, { ...next, description: set.description }, set.title !== undefined, m.id);
  if (Object.keys(errors).length) throw fail(errors);
  let row: MilestoneWithPath = m;
  if (Object.keys(set).length) {
    try {
      // The updated row is read back inside the update's own batch.
      [[row]] = await writeThenRead(db, [db.update(milestones).set({ ...set, updatedAt: Date.now() }).where(eq(milestones.id, m.id))], [db.select(milestoneWithPath).from(milestones).where(eq(milestones.id, m.id)).limit(1)]);
    } catch (err) {
      if (isUniqueViolation(err)) throw fail({ title: [TITLE_TAKEN] });
      throw err;
    }
  }
  return c.json((await presentMilestones(db, baseUrl(c), [row]))[0]);
}

/** `at_least_one_of` of update_params, by key presence like Grape (a null value counts), ahead of the handler body. */
async function requireSomeUpdate(c: Context<AppEnv>) {
  const raw = await requestParams(c);
  if (!['title', 'description', 'start_date', 'due_date', 'state_event'].some((k) => k in raw))
    throw grapeError('title, description, start_date, due_date, state_event are missing, at least one parameter must be provided');
}

/** Milestones::DestroyService: issues lose the milestone, then it is removed. */
async function deleteMilestone(c: Context<AppEnv>, caller: Caller, parent: Parent, milestoneId: number) {
  requireAdminMilestone(caller, parent);
  const db = c.var.db;
  const m = await findMilestone(c, parent, milestoneId);
  checkUnmodifiedSince(c, m.updatedAt);
  const now = Date.now();
  const userId = requireUser(caller).id;
  await db.batch([
    // Issues::UpdateService / MergeRequests::UpdateService with `milestone_id: nil` for each: a `remove` event apiece, first.
    milestoneRemovedEvents(db, 'Issue', m.id, userId, now),
    milestoneRemovedEvents(db, 'MergeRequest', m.id, userId, now),
    db.update(issues).set({ milestoneId: null, updatedAt: now }).where(eq(issues.milestoneId, m.id)),
    db.update(mergeRequests).set({ milestoneId: null, updatedAt: now }).where(eq(mergeRequests.milestoneId, m.id)),
    db.delete(milestones).where(eq(milestones.id, m.id)),
  ]);
  return c.body(null, 204);
}

/**
 * Milestones::PromoteService: a copy of the project milestone becomes a milestone of the project's
 * group (new group iid, active), the issues of every same-titled milestone in the group's projects
 * move to it, and those project milestones are removed. project_milestones.rb answers `status(200)`,
 * whose value Grape renders as the body.
 */
async function promoteMilestone(c: Context<AppEnv>, caller: Caller, parent: ProjectParent, milestoneId: number) {
  requireAdminMilestone(caller, parent);
  const db = c.var.db;
  const group = parent.namespace;
  // `authorize! :admin_milestone, user_project.group`: no group (a personal project) is a refusal too.
  if (group.kind !== 'Group') throw forbidden();
  // The caller's level in the group and the milestone, in one round trip.
  const [[levelRow], [found]] = await batchReads(db, [groupAccessRead(db, caller.user, group.id), findMilestoneQuery(db, parent, milestoneId)]);
  if (!(caller.isAdmin || Number(levelRow?.level ?? 0) >= ACCESS.PLANNER)) throw forbidden();
  const m = foundMilestone(found);
  const now = Date.now();
  const directProjects = db.select({ id: projects.id }).from(projects).where(eq(projects.namespaceId, group.id));
  const sameTitle = and(eq(milestones.title, m.title), or(inArray(milestones.projectId, directProjects), eq(milestones.id, m.id)));
  const newId = sql<number>`(select ${milestones.id} from ${milestones} where ${milestones.groupId} = ${group.id} and ${milestones.title} = ${m.title})`;
  try {
    await db.batch([
      bumpIid(db, 'group_milestones', group.id),
      db.insert(milestones).values({
        projectId: null,
        groupId: group.id,
        iid: iidSql('group_milestones', group.id),
        title: m.title,
        description: m.description,
        state: 'active',
        dueDate: m.dueDate,
        startDate: m.startDate,
        createdAt: now,
        updatedAt: now,
      }),
      db.update(issues).set({ milestoneId: newId, updatedAt: now }).where(inArray(issues.milestoneId, db.select({ id: milestones.id }).from(milestones).where(sameTitle))),
      db.delete(milestones).where(sameTitle),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(400, { message: 'Failed to promote milestone' });
    throw err;
  }
  return c.json(200, 200);
}

export function mountMilestones(r: Router) {
  const auth = { signedIn: true as const };
  for (const kind of ['project', 'group'] as const) {
    const base = kind === 'project' ? '/projects/:id/milestones' : '/groups/:id/milestones';
    const noun = kind === 'project' ? 'project' : 'group';
    r.route(
      { ...auth, method: 'GET', path: base, summary: `List ${noun} milestones`, tags: TAGS, params: kind === 'project' ? listProjectMilestonesParams : listGroupMilestonesParams, responses: { 200: z.array(MilestoneSchema) } },
      async ({ c, p, caller }) => list(c, caller, await loadParent(c, caller, kind, p.id), p),
    );
    r.route({ ...auth, method: 'POST', path: base, summary: `Create a ${noun} milestone`, tags: TAGS, params: createMilestoneParams, responses: { 201: MilestoneSchema } }, async ({ c, p, caller }) =>
      createMilestone(c, caller, await loadParent(c, caller, kind, p.id), p),
    );
    r.route({ ...auth, method: 'GET', path: `${base}/:milestone_id`, summary: `Get a ${noun} milestone`, tags: TAGS, params: milestoneIdParams, responses: { 200: MilestoneSchema } }, async ({ c, p, caller }) => {
      const parent = await loadParent(c, caller, kind, p.id);
      const m = await findMilestone(c, parent, p.milestone_id);
      return c.json((await presentMilestones(c.var.db, baseUrl(c), [m]))[0]);
    });
    r.route({ ...auth, method: 'PUT', path: `${base}/:milestone_id`, summary: `Update a ${noun} milestone`, tags: TAGS, params: updateMilestoneParams, responses: { 200: MilestoneSchema } }, async ({ c, p, caller }) => {
      await requireSomeUpdate(c);
      return updateMilestone(c, caller, await loadParent(c, caller, kind, p.id), p);
    });
    r.route({ ...auth, method: 'DELETE', path: `${base}/:milestone_id`, summary: `Delete a ${noun} milestone`, tags: TAGS, params: milestoneIdParams, responses: { 204: null } }, async ({ c, p, caller }) =>
      deleteMilestone(c, caller, await loadParent(c, caller, kind, p.id), p.milestone_id),
    );
    if (kind === 'project')
      r.route({ ...auth, method: 'POST', path: `${base}/:milestone_id/promote`, summary: 'Promote a project milestone to a group milestone', tags: TAGS, params: milestoneIdParams, responses: { 200: PromotedSchema } }, async ({ c, p, caller }) =>
        promoteMilestone(c, caller, (await loadParent(c, caller, 'project', p.id)) as ProjectParent, p.milestone_id),
      );
  }
}
