/** Projects API (GitLab lib/api/projects.rb; spec: Access, Pagination). */
import { and, asc, desc, eq, gt, lt, or, type SQL, sql } from 'drizzle-orm';
import { today } from '../platform/time';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { decimalId } from '../platform/record-id';
import { members, namespaces, projectImportStates, projects, repoBranches, users } from '../db/schema';
import { accepted, AcceptedSchema, BasicProjectDetailsSchema, ProjectSchema, projectWithAccess, ProjectWithAccessSchema } from './project-entity';
import { ACCESS, groupMembershipLevelSql, projectLevelSql, projectVisibleSql, restrictedVisibilityError, subtreeOf } from './abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden, grapeError, notFound, validationFailed } from '../platform/errors';
import { baseUrl, checkOffsetLimit, linkParamsFrom, pageRequest, paginateWith, toQuery } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { customAttributesFilter } from './custom-attributes-filter';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireAdmin, requireUser } from '../platform/guards';
import {
  createProjectParams,
  createUserProjectParams,
  getProjectParams,
  listGroupProjectsParams,
  listProjectsParams,
  listSharedProjectsParams,
  listShape,
  listUserProjectsParams,
  projectIdParams,
  updateProjectParams,
} from './projects-params';
import { createProject, featureSet, presentReadBack, projectConflictErrors, projectConflictRead, projectReadBack } from './project-writes';
import { writeThenRead } from '../db/batch-reads';
import {
  presentProjects,
  projectFieldErrors,
  projectListQuery,
  projectVisibilityError,
  presentProjectRows,
  projectExtras,
  projectExtrasReads,
  readCode,
} from './projects';
import { findReadableGroup } from './groups';
import { findReadableProject, findReadableProjectWith } from './projects';
import { settingsOf } from '../settings/settings';
import { defaultBranchReads, defaultBranchStatements } from './default-branch-hooks';
import { cascade, runDeletion } from '../platform/cascade';

export { findReadableProject };

/** groups.rb `:id/projects/shared`: its declared defaults, for Link URLs. */
const SHARED_LINK_DEFAULTS: Record<string, unknown> = {
  order_by: 'created_at',
  sort: 'desc',
  simple: false,
  starred: false,
  with_issues_enabled: false,
  with_merge_requests_enabled: false,
  with_custom_attributes: false,
};

type ListP = z.output<z.ZodObject<typeof listShape>>;

/** A page of projects: Project, or BasicProjectDetails with `simple=true`. */
const ProjectList = z.array(z.union([ProjectSchema, BasicProjectDetailsSchema]));

/** Declared defaults of the project lists, repeated in their Link URLs (Grape's `params`). */
const LIST_LINK_DEFAULTS: Record<string, unknown> = {
  order_by: 'created_at',
  sort: 'desc',
  owned: false,
  starred: false,
  imported: false,
  membership: false,
  with_issues_enabled: false,
  with_merge_requests_enabled: false,
  simple: false,
  statistics: false,
  with_custom_attributes: false,
};

/** GET lists of projects: filters, order, offset or id keyset pagination (keyset: Link rel=next only). */
/**
 * `offsetCap`: whether the list goes through paginate_with_strategies and so through its offset cap
 * (projects.rb `present_projects`: /projects, /users/:id/projects). A group's projects are paged by
 * plain `paginate` (groups.rb `find_group_projects`), which has no cap.
 */
async function listProjects(c: Context<AppEnv>, caller: Caller, p: ListP, scope: (SQL | undefined)[], defaults: Record<string, unknown> = {}, offsetCap = true, linkDefaults = LIST_LINK_DEFAULTS) {
  const raw = await requestParams(c);
  const user = caller.user;
  const conds: (SQL | undefined)[] = [...scope];
  if (p.archived !== undefined) conds.push(eq(projects.archived, p.archived));
  if (p.visibility) conds.push(eq(projects.visibility, p.visibility));
  if (p.search) {
    const q = `%${p.search.replace(/[%_\\]/g, '\\$&')}%`;
    const ns = p.search_namespaces ? sql` OR ${namespaces.fullPath} LIKE ${q} ESCAPE '\\'` : sql``;
    conds.push(sql`(${projects.name} LIKE ${q} ESCAPE '\\' OR ${projects.path} LIKE ${q} ESCAPE '\\' OR ${projects.description} LIKE ${q} ESCAPE '\\'${ns})`);
  }
  if (user && p.owned) conds.push(sql`(${namespaces.kind} = 'User' AND ${namespaces.ownerId} = ${user.id})`);
  if (user && p.membership) conds.push(sql`${projectLevelSql(user.id)} > 0`);
  if (user && p.min_access_level) conds.push(sql`${projectLevelSql(user.id)} >= ${p.min_access_level}`);
  if (p.starred || p.imported) conds.push(sql`0`);
  if (p.id_after !== undefined) conds.push(gt(projects.id, p.id_after));
  if (p.id_before !== undefined) conds.push(lt(projects.id, p.id_before));
  if (p.last_activity_after !== undefined) conds.push(sql`${projects.lastActivityAt} > ${p.last_activity_after}`);
  if (p.last_activity_before !== undefined) conds.push(sql`${projects.lastActivityAt} < ${p.last_activity_before}`);
  if (p.with_issues_enabled) conds.push(sql`coalesce(json_extract(${projects.features}, '$.issues'), 'enabled') != 'disabled'`);
  if (p.with_merge_requests_enabled) conds.push(sql`coalesce(json_extract(${projects.features}, '$.merge_requests'), 'enabled') != 'disabled'`);
  conds.push(customAttributesFilter(caller, p.custom_attributes, 'project', projects.id));
  if (p.topic?.length) for (const t of p.topic.slice(0, 20)) conds.push(sql`EXISTS (SELECT 1 FROM json_each(${projects.topics}) WHERE lower(value) = lower(${t}))`);
  const dir = p.sort === 'asc' ? asc : desc;
  const col = {
    id: projects.id,
    name: projects.name,
    path: projects.path,
    created_at: projects.createdAt,
    updated_at: projects.updatedAt,
    last_activity_at: projects.lastActivityAt,
    similarity: projects.id,
    star_count: projects.id,
  }[p.order_by];
  const db = c.var.db;

  if (p.pagination === 'keyset') {
    // Keyset: projects ordered by id only (request_context.rb); `order_by` absent counts as id.
    if (raw.order_by !== undefined && p.order_by !== 'id') throw grapeError('Keyset pagination is not yet available for this type of request', 405);
    const perPage = !p.per_page || p.per_page < 1 ? 20 : Math.min(p.per_page, 100);
    const rows = await projectListQuery(db, caller, conds).orderBy(dir(projects.id)).limit(perPage).all();
    c.header('X-Per-Page', String(perPage));
    if (rows.length) {
      const lastId = rows[rows.length - 1].project.id;
      const next = { ...linkParamsFrom(raw, { ...defaults, order_by: 'id', sort: p.sort }), per_page: raw.per_page ?? perPage, ...(p.sort === 'asc' ? { id_after: lastId } : { id_before: lastId }) };
      c.header('Link', `<${baseUrl(c)}${new URL(c.req.url).pathname}?${toQuery(next)}>; rel="next"`);
    }
    return c.json(await presentProjects(c, caller, rows, p.simple));
  }
  // pagination_strategies.rb: offset paging of a keyset-capable type stops at the plan's offset limit.
  if (offsetCap) checkOffsetLimit(p, 'Project');
  const req = pageRequest(p, raw.per_page);
  const visible = and(projectVisibleSql(caller), ...conds);
  const pageIds = (limit: number, offset: number) =>
    db.select({ id: projects.id }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(visible).orderBy(dir(col), dir(projects.id)).limit(limit).offset(offset);
  // The page, its count and the presenter's extras (hung off the page by a sub-select) in one round trip.
  const { rows, reads } = await paginateWith(
    c,
    req,
    linkParamsFrom(raw, { ...linkDefaults, ...defaults }),
    (limit, offset) => projectListQuery(db, caller, conds).orderBy(dir(col), dir(projects.id)).limit(limit).offset(offset),
    (limit) => db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(visible).limit(limit).as('t')),
    projectExtrasReads(db, (column) => sql`${column} IN (${pageIds(req.perPage, req.offset)})`),
    () => undefined,
  );
  return c.json(presentProjectRows(c, caller, rows, p.simple, projectExtras(reads)));
}


export function mountProjects(r: Router) {
  r.route({ method: 'GET', path: '/projects', summary: 'List projects', tags: ['projects'], params: listProjectsParams, responses: { 200: ProjectList } }, async ({ c, p, caller }) => listProjects(c, caller, p, []));

  r.route({ method: 'POST', path: '/projects', summary: 'Create a project', tags: ['projects'], params: createProjectParams, responses: { 201: ProjectSchema } }, async ({ c, p, caller }) => {
    const user = requireUser(caller);
    return createProject(c, caller, user.id, p);
  });

  r.route(
    { method: 'POST', path: '/projects/user/:user_id', summary: 'Create a project for a user (administrators)', tags: ['projects'], params: createUserProjectParams, responses: { 201: ProjectSchema }, admin: true },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      return createProject(c, caller, p.user_id, p);
    },
  );

  r.route({ method: 'GET', path: '/projects/:id', summary: 'Get a project', tags: ['projects'], params: getProjectParams, responses: { 200: ProjectWithAccessSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const uid = caller.user?.id;
    // The project, the caller's level, the entity's extras and the caller's direct and group
    // memberships (ProjectWithAccess), all in one round trip.
    const pr = await findReadableProjectWith(c, caller, p.id, (pid) => [
      ...projectExtrasReads(db, (col) => eq(col, pid)),
      db
        .select({ level: members.accessLevel })
        .from(members)
        .where(and(eq(members.userId, uid ?? 0), eq(members.sourceType, 'Project'), eq(members.sourceId, pid)))
        .limit(1),
      db
        .select({ level: (uid === undefined ? sql<number>`0` : groupMembershipLevelSql(uid)).as('level') })
        .from(namespaces)
        .where(and(eq(namespaces.kind, 'Group'), sql`${namespaces.id} = (SELECT p.namespace_id FROM projects p WHERE p.id = ${pid})`))
        .limit(1),
      // import_status / import_type / import_error of an imported project (the import job writes this row).
      db.select({ status: projectImportStates.status, type: projectImportStates.importType, error: projectImportStates.lastError }).from(projectImportStates).where(eq(projectImportStates.projectId, pid)).limit(1),
    ]);
    const [counts, branches, names, owners, shared, direct, group, imported] = pr.reads;
    const extras = projectExtras([counts, branches, names, owners, shared]);
    const id = pr.project.id;
    return c.json(
      projectWithAccess(pr.project, pr.namespace, {
        base: baseUrl(c),
        namespaceFullName: extras.fullName(id),
        owner: pr.namespace.ownerId ? extras.owner(id) : null,
        readCode: readCode(caller, pr.project, pr.level),
        level: pr.level,
        isAdmin: caller.isAdmin,
        // ProjectWithAccess: the caller's direct project membership and the group's (inherited) level.
        projectLevel: uid === undefined ? null : (direct[0]?.level ?? null),
        groupLevel: uid === undefined ? null : Number(group[0]?.level ?? 0) || null,
        openIssuesCount: extras.openIssues(id, pr.level),
        emptyRepo: extras.emptyRepo(id),
        sharedWithGroups: extras.sharedWithGroups(id),
        importState: imported[0] ?? null,
      }),
    );
  });

  r.route({ method: 'PUT', path: '/projects/:id', summary: 'Edit a project', tags: ['projects'], params: updateProjectParams, responses: { 200: ProjectSchema } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const db = c.var.db;
    // The project, the caller's level and the name and path already taken, in one round trip; with a
    // new default branch, what the default branch hooks read of it (default-branch-hooks.ts).
    let hooks: ReturnType<typeof defaultBranchReads> | undefined;
    const pr = await findReadableProjectWith(c, caller, p.id, (pid) => {
      hooks = p.default_branch !== undefined ? defaultBranchReads(db, pid, p.default_branch) : undefined;
      // Project#change_head needs the new default to exist as a branch.
      const branch = db.select({ name: repoBranches.name }).from(repoBranches).where(and(sql`${repoBranches.projectId} = ${pid}`, eq(repoBranches.name, p.default_branch ?? ''))).limit(1);
      return [projectConflictRead(db, sql`(SELECT cp.namespace_id FROM projects cp WHERE cp.id = ${pid})`, p.name, p.path, pid), branch, ...(hooks?.list ?? [])] as const;
    });
    // admin_project is maintainer+; changing visibility or archiving needs owner-level rights in GitLab's policy for visibility.
    if (!caller.isAdmin && pr.level < ACCESS.MAINTAINER) throw forbidden();
    if (p.visibility !== undefined && p.visibility !== pr.project.visibility && !caller.isAdmin && pr.level < ACCESS.OWNER) throw forbidden();
    const errors = projectFieldErrors({ name: p.name, path: p.path, description: p.description, topics: [...(p.topics ?? []), ...(p.tag_list ?? [])], defaultBranch: p.default_branch });
    if (p.visibility) {
      const v = projectVisibilityError(p.visibility, pr.namespace) ?? restrictedVisibilityError(caller, p.visibility, (await settingsOf(c)).restricted_visibility_levels);
      if (v) errors.visibility_level = [v];
    }
    if (!Object.keys(errors).length) Object.assign(errors, projectConflictErrors(pr.reads[0]));
    if (Object.keys(errors).length) throw validationFailed(errors);
    // Projects::UpdateService#validate_default_branch_change runs before the model's validations:
    // another default that is not a branch fails with Project#change_head's message.
    const branchExists = (pr.reads[1] as unknown[]).length > 0;
    if (p.default_branch !== undefined && p.default_branch !== pr.project.defaultBranch && !branchExists) {
      throw validationFailed({ base: [`Could not change HEAD: branch '${p.default_branch}' does not exist`] });
    }
    const now = Date.now();
    const set: Partial<typeof projects.$inferInsert> = { updatedAt: now, lastActivityAt: now };
    if (p.name !== undefined) set.name = p.name;
    if (p.path !== undefined) set.path = p.path;
    if (p.description !== undefined) set.description = p.description;
    if (p.visibility !== undefined) set.visibility = p.visibility;
    if (p.default_branch !== undefined) set.defaultBranch = p.default_branch;
    if (p.topics !== undefined || p.tag_list !== undefined) set.topics = JSON.stringify([...new Set([...(p.topics ?? []), ...(p.tag_list ?? [])])]);
    if (p.request_access_enabled !== undefined) set.requestAccessEnabled = p.request_access_enabled;
    if (p.lfs_enabled !== undefined) set.lfsEnabled = p.lfs_enabled;
    if (p.merge_method !== undefined) set.mergeMethod = p.merge_method;
    if (p.squash_option !== undefined) set.squashOption = p.squash_option;
    if (p.only_allow_merge_if_all_discussions_are_resolved !== undefined) set.onlyAllowMergeIfAllDiscussionsAreResolved = p.only_allow_merge_if_all_discussions_are_resolved;
    if (p.archived !== undefined) set.archived = p.archived;
    set.features = JSON.stringify(featureSet(p, JSON.parse(pr.project.features || '{}')));
    // What follows the default branch (the dependency list) is read again from it, in the update's batch.
    const follow = hooks ? await defaultBranchStatements({ db, blobs: c.var.blobs }, pr.project.id, p.default_branch!, hooks.take(pr.reads.slice(2))) : [];
    let updated;
    try {
      // The update and its answer read back in one batch.
      updated = await writeThenRead(db, [db.update(projects).set(set).where(eq(projects.id, pr.project.id)), ...follow], projectReadBack(db, caller, eq(projects.id, pr.project.id)));
    } catch (err) {
      if (isUniqueViolation(err, 'name')) throw validationFailed({ name: ['has already been taken'] });
      if (isUniqueViolation(err)) throw validationFailed({ path: ['has already been taken'] });
      throw err;
    }
    return c.json(presentReadBack(c, caller, updated));
  });

  r.route({ method: 'DELETE', path: '/projects/:id', summary: 'Delete a project', tags: ['projects'], params: projectIdParams, responses: { 202: AcceptedSchema } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const pr = await findReadableProject(c, caller, p.id);
    if (!caller.isAdmin && pr.level < ACCESS.OWNER) throw forbidden();
    checkUnmodifiedSince(c, pr.project.updatedAt);
    await runDeletion(c.var.db, c.var.blobs, cascade(c.var.db, 'project', sql`(${pr.project.id})`));
    return c.json(accepted(), 202);
  });

  r.route({ method: 'GET', path: '/users/:user_id/projects', summary: "List a user's projects", tags: ['projects'], params: listUserProjectsParams, responses: { 200: ProjectList } }, async ({ c, p, caller }) => {
    // The user and their personal namespace in one statement, then the page (listProjects: one batch).
    const id = decimalId(p.user_id);
    const [row] = await c.var.db
      .select({ userId: users.id, namespaceId: namespaces.id })
      .from(users)
      .leftJoin(namespaces, and(eq(namespaces.kind, 'User'), eq(namespaces.ownerId, users.id)))
      .where(id !== undefined ? eq(users.id, id) : sql`lower(${users.username}) = lower(${p.user_id})`)
      .limit(1);
    if (!row) throw notFound('User');
    if (row.namespaceId == null) return c.json([]);
    return listProjects(c, caller, p, [eq(projects.namespaceId, row.namespaceId)], { user_id: p.user_id });
  });

  r.route({ method: 'GET', path: '/groups/:id/projects', summary: "List a group's projects", tags: ['groups'], params: listGroupProjectsParams, responses: { 200: ProjectList } }, async ({ c, p, caller }) => {
    const { group } = await findReadableGroup(c, caller, p.id);
    const own = p.include_subgroups ? subtreeOf(group.traversalPath!) : eq(projects.namespaceId, group.id);
    // GroupProjectsFinder `with_shared` (the default): also the projects shared with the group, while the link lasts
    // (GitLab's RemoveExpiredGroupLinksWorker deletes expired links).
    const shared = sql`${projects.id} IN (SELECT l.project_id FROM project_group_links l WHERE l.group_id = ${group.id} AND (l.expires_at IS NULL OR l.expires_at > ${today()}))`;
    const scope = p.with_shared ? or(own, shared)! : own;
    return listProjects(c, caller, p, [scope], { id: p.id, include_subgroups: false, with_shared: true }, false);
  });

  r.route(
    { method: 'GET', path: '/groups/:id/projects/shared', summary: 'List the projects shared with a group', tags: ['groups'], params: listSharedProjectsParams, responses: { 200: ProjectList } },
    async ({ c, p, caller }) => {
      const { group } = await findReadableGroup(c, caller, p.id);
      // GroupProjectsFinder `only_shared`: the projects linked to the group, while the link lasts.
      const shared = sql`${projects.id} IN (SELECT l.project_id FROM project_group_links l WHERE l.group_id = ${group.id} AND (l.expires_at IS NULL OR l.expires_at > ${today()}))`;
      // groups.rb declares only these filters; the others of the project lists keep their neutral values.
      const all = { owned: false, imported: false, membership: false, statistics: false, ...p } as ListP;
      return listProjects(c, caller, all, [shared], { id: p.id }, false, SHARED_LINK_DEFAULTS);
    },
  );
}

