/** Groups API (GitLab lib/api/groups.rb; spec: GroupRef, Access, Pagination). */
import { and, asc, desc, eq, inArray, isNull, not, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { findGroup, namespaceFullNameSql } from './group-queries';
import { namespaces, projects } from '../db/schema';
import { groupDetail, GroupDetailSchema, groupEntity, GroupSchema } from './group-entity';
import { accepted, AcceptedSchema, type Project } from './project-entity';
import { ACCESS, groupLevelSql, projectVisibleSql, restrictedVisibilityError, groupVisibleSql, type NamespaceRow, subtreeOf } from './abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, forbidden, grapeError, validationFailed } from '../platform/errors';
import { baseUrl, checkOffsetLimit, countUpTo, countUpToQuery, linkParamsFrom, pageRequest, paginate, toQuery } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { customAttributesFilter } from './custom-attributes-filter';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import { createGroupParams, deleteGroupParams, getGroupParams, listGroupsParams, listSubgroupsParams, updateGroupParams } from './groups-params';
import {
  fullPathRewrite,
  groupFieldErrors,
  groupInsertStatements,
  findReadableGroup,
  findReadableGroupWith,
  loadFullNames,
  visibilityAllowedByChildren,
  visibilityAllowedByParent,
} from './groups';
import { presentProjectRows, projectExtras, projectExtrasReads, projectListQuery } from './projects';
import { batchReads } from '../db/batch-reads';
import type { Db } from '../db/client';
import { settingsOf } from '../settings/settings';
import { today } from '../platform/time';
import { runDeletion } from '../platform/cascade';
import { groupDeletion } from './cascade';
import { decimalId } from '../platform/record-id';
import { INHERIT_PROJECT_CREATION } from './project-creation-level';
import { groupSharedWithRead, type SharedWithGroupRow, sharedWithGroupEntity } from './group-links';

export { findReadableGroup };

/** groups.rb create: `render_api_error!("Failed to save group #{group.errors.messages}", 400)`, a Ruby Hash#inspect. */
function failedToSave(errors: Record<string, string[]>) {
  const inspect = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const body = Object.entries(errors)
    .map(([k, msgs]) => `:${k}=>[${msgs.map(inspect).join(', ')}]`)
    .join(', ');
  return new ApiError(400, { message: `Failed to save group {${body}}` });
}

/**
 * GroupDetail's `projects` and `shared_projects`: the group's own projects and the projects shared
 * with it (links in force) that the caller may read, at most 100 each (GroupDetail#projects,
 * GroupProjectsFinder only_shared), and their extras, as reads for the group's own lookup batch.
 */
export function detailProjectReads(db: Db, caller: Caller, groupId: SQL) {
  const scope = [eq(sql`${namespaces.id}`, groupId)];
  const sharedScope = [sql`${projects.id} IN (SELECT l.project_id FROM project_group_links l WHERE l.group_id = ${groupId} AND (l.expires_at IS NULL OR l.expires_at > ${today()}))`];
  const idsOf = (conds: SQL[]) => db.select({ id: projects.id }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(and(projectVisibleSql(caller), ...conds)).limit(100);
  return [
    projectListQuery(db, caller, scope).limit(100),
    ...projectExtrasReads(db, (column) => sql`(${column} IN (${idsOf(scope)}) OR ${column} IN (${idsOf(sharedScope)}))`),
    groupSharedWithRead(db, (column) => eq(column, groupId)),
    projectListQuery(db, caller, sharedScope).limit(100),
  ] as const;
}

/** GroupDetail from its lookup (`findReadableGroupWith` with `detailProjectReads`): no storage access but the request's settings (read with the caller). */
export async function presentDetail(c: Context<AppEnv>, caller: Caller, found: { group: NamespaceRow; fullName: string }, reads: DetailResults | null, sharedWith?: SharedWithGroupRow[]) {
  const settings = await settingsOf(c);
  const extras = reads ? projectExtras([reads[1], reads[2], reads[3], reads[4], reads[5]]) : null;
  const projectsOut = reads ? (presentProjectRows(c, caller, reads[0], false, extras!) as Project[]) : undefined;
  const sharedProjects = reads ? (presentProjectRows(c, caller, reads[7], false, extras!) as Project[]) : undefined;
  const shared = (sharedWith ?? reads?.[6] ?? []).map(sharedWithGroupEntity);
  return groupDetail(found.group, { base: baseUrl(c), fullName: found.fullName, projects: projectsOut, sharedProjects, settings, sharedWithGroups: shared });
}
type DetailReads = ReturnType<typeof detailProjectReads>;
type AwaitedAll<T> = { -readonly [K in keyof T]: Awaited<T[K]> };
type DetailResults = AwaitedAll<DetailReads>;

async function presentGroups(c: Context<AppEnv>, rows: NamespaceRow[]) {
  const names = await loadFullNames(c.var.db, rows);
  const base = baseUrl(c);
  const settings = await settingsOf(c);
  return rows.map((g) => groupEntity(g, { base, fullName: names.get(g.id)!, settings }));
}

type ListP = z.output<z.ZodObject<(typeof listGroupsParams)['shape']>>;

async function listGroups(c: Context<AppEnv>, caller: Caller, p: ListP, scope?: { parent?: NamespaceRow; descendants?: NamespaceRow }) {
  const raw = await requestParams(c);
  const conds: (SQL | undefined)[] = [eq(namespaces.kind, 'Group')];
  const user = caller.user;
  if (scope?.parent) conds.push(eq(namespaces.parentId, scope.parent.id));
  if (scope?.descendants) conds.push(subtreeOf(scope.descendants.traversalPath!), sql`${namespaces.id} != ${scope.descendants.id}`);
  // GroupsFinder: all_available defaults to true for administrators and inside a group's tree, else the caller's own groups.
  const allAvailable = p.all_available ?? (caller.isAdmin || !user || Boolean(scope));
  if (!caller.isAdmin) conds.push(groupVisibleSql(caller));
  if (user && !allAvailable && !caller.isAdmin) conds.push(sql`${groupLevelSql(user.id)} > 0`);
  if (user && p.owned) conds.push(sql`EXISTS (SELECT 1 FROM members m WHERE m.user_id = ${user.id} AND m.source_type = 'Namespace' AND m.source_id = ${namespaces.id} AND m.access_level = 50)`);
  if (user && p.min_access_level) conds.push(sql`${groupLevelSql(user.id)} >= ${p.min_access_level}`);
  if (p.top_level_only) conds.push(isNull(namespaces.parentId));
  conds.push(customAttributesFilter(caller, p.custom_attributes, 'group', namespaces.id));
  if (p.visibility) conds.push(eq(namespaces.visibility, p.visibility));
  if (p.skip_groups?.length) conds.push(not(inArray(namespaces.id, p.skip_groups.slice(0, 90))));
  if (p.search) {
    const q = `%${p.search.replace(/[%_\\]/g, '\\$&')}%`;
    conds.push(or(sql`${namespaces.name} LIKE ${q} ESCAPE '\\'`, sql`${namespaces.path} LIKE ${q} ESCAPE '\\'`));
  }
  const db = c.var.db;
  const dir = p.sort === 'desc' ? desc : asc;
  const orderCol = p.order_by === 'path' ? namespaces.path : p.order_by === 'id' ? namespaces.id : namespaces.name;

  if (p.pagination === 'keyset') {
    // pagination_strategies.rb: Group keyset is cursor-based, name asc only, and the API offers it to anonymous callers only.
    if (user || p.order_by !== 'name' || p.sort !== 'asc') throw grapeError('Keyset pagination is not yet available for this type of request', 405);
    return keysetGroups(c, raw, and(...conds), p.per_page);
  }
  // groups.rb `present_groups_with_pagination_strategies`: only anonymous lists go through
  // paginate_with_strategies, hence through its offset cap (Group is an enforced keyset type).
  if (!user) checkOffsetLimit(p, 'Group');
  const where = and(...conds);
  const req = pageRequest(p, raw.per_page);
  const defaults: Record<string, unknown> = { statistics: false, owned: false, order_by: 'name', sort: 'asc', with_custom_attributes: false };
  if (scope) defaults.id = raw.id;
  const rows = await paginate(
    c,
    req,
    linkParamsFrom(raw, defaults),
    (limit, offset) => db.select().from(namespaces).where(where).orderBy(dir(orderCol), dir(namespaces.id)).limit(limit).offset(offset),
    (limit) => countUpToQuery(db, namespaces, where, limit),
  );
  return c.json(await presentGroups(c, rows));
}

/** Cursor-based keyset (cursor_based_keyset.rb): base64 JSON `{"name","id","_kd":"n"}`, Link rel=next and X-Next-Cursor. */
async function keysetGroups(c: Context<AppEnv>, raw: Record<string, unknown>, where: SQL | undefined, perPageRaw?: number) {
  const perPage = !perPageRaw || perPageRaw < 1 ? 20 : Math.min(perPageRaw, 100);
  let after: { name: string; id: number } | null = null;
  if (typeof raw.cursor === 'string' && raw.cursor) {
    try {
      const obj = JSON.parse(atob(raw.cursor.replace(/-/g, '+').replace(/_/g, '/')));
      const id = decimalId(String(obj.id));
      if (typeof obj.name === 'string' && id !== undefined) after = { name: obj.name, id };
    } catch {
      after = null;
    }
    if (!after) throw grapeError('cursor is invalid', 400);
  }
  const cond = after ? and(where, or(sql`${namespaces.name} > ${after.name}`, and(eq(namespaces.name, after.name), sql`${namespaces.id} > ${after.id}`))) : where;
  const rows = await c.var.db.select().from(namespaces).where(cond).orderBy(asc(namespaces.name), asc(namespaces.id)).limit(perPage + 1).all();
  const page = rows.slice(0, perPage);
  c.header('X-Per-Page', String(perPage));
  if (rows.length > perPage) {
    const last = page[page.length - 1];
    const cursor = btoa(JSON.stringify({ name: last.name, id: String(last.id), _kd: 'n' }));
    const url = new URL(c.req.url);
    const linkParams = linkParamsFrom(raw, {});
    c.header('X-Next-Cursor', cursor);
    c.header('Link', `<${baseUrl(c)}${url.pathname}?${toQuery({ ...linkParams, cursor, per_page: raw.per_page ?? perPage })}>; rel="next"`);
  }
  return c.json(await presentGroups(c, page));
}

export function mountGroups(r: Router) {
  r.route({ method: 'GET', path: '/groups', summary: 'List groups', tags: ['groups'], params: listGroupsParams, responses: { 200: z.array(GroupSchema) } }, async ({ c, p, caller }) => listGroups(c, caller, p));

  r.route({ method: 'POST', path: '/groups', summary: 'Create a group', tags: ['groups'], params: createGroupParams, responses: { 201: GroupDetailSchema } }, async ({ c, p, caller }) => {
    const user = requireUser(caller);
    const db = c.var.db;
    let parent: NamespaceRow | null = null;
    if (p.parent_id != null) {
      const found = await findReadableGroup(c, caller, String(p.parent_id));
      parent = found.group;
      // GroupPolicy create_subgroup: subgroup_creation_level owner or maintainer.
      const need = parent.subgroupCreationLevel === 'owner' ? ACCESS.OWNER : ACCESS.MAINTAINER;
      if (!caller.isAdmin && found.level < need) throw forbidden();
    } else if (!caller.isAdmin && !user.canCreateGroup) {
      throw forbidden();
    }
    const errors = groupFieldErrors({ name: p.name, path: p.path, parentId: parent?.id, description: p.description, defaultBranch: p.default_branch });
    const settings = await settingsOf(c);
    const visibility = p.visibility ?? String(settings.default_group_visibility ?? 'private');
    const vErr = visibilityAllowedByParent(visibility, parent) ?? restrictedVisibilityError(caller, visibility, settings.restricted_visibility_levels);
    if (vErr) (errors.visibility_level ??= []).push(vErr);
    const fullPath = parent ? `${parent.fullPath}/${p.path}` : p.path;
    // A full path names one thing: a subgroup may not take the path of a project in its parent (Route uniqueness).
    const projectThere = parent
      ? await db.select({ id: projects.id }).from(projects).where(and(eq(projects.namespaceId, parent.id), sql`lower(${projects.path}) = lower(${p.path})`)).get()
      : undefined;
    if (!errors.path && (projectThere || (await db.select({ id: namespaces.id }).from(namespaces).where(sql`lower(${namespaces.fullPath}) = lower(${fullPath})`).get())))
      (errors.path ??= []).push('has already been taken');
    if (Object.keys(errors).length) throw failedToSave(errors);
    const now = Date.now();
    try {
      await db.batch([
        ...groupInsertStatements(
          db,
          {
            kind: 'Group',
            name: p.name,
            path: p.path,
            fullPath,
            parentId: parent?.id ?? null,
            visibility,
            description: p.description ?? '',
            shareWithGroupLock: p.share_with_group_lock ?? false,
            requireTwoFactorAuthentication: p.require_two_factor_authentication ?? false,
            twoFactorGracePeriod: p.two_factor_grace_period ?? 48,
            projectCreationLevel: p.project_creation_level ?? INHERIT_PROJECT_CREATION,
            subgroupCreationLevel: p.subgroup_creation_level ?? 'maintainer',
            emailsEnabled: p.emails_enabled ?? (p.emails_disabled !== undefined ? !p.emails_disabled : true),
            mentionsDisabled: p.mentions_disabled ?? null,
            lfsEnabled: p.lfs_enabled ?? true,
            requestAccessEnabled: p.request_access_enabled ?? true,
            defaultBranchName: p.default_branch?.trim() ? p.default_branch : null,
            createdAt: now,
            updatedAt: now,
          },
          parent,
          user.id,
          now,
        ),
      ]);
    } catch (err) {
      if (isUniqueViolation(err)) throw failedToSave({ path: ['has already been taken'] });
      throw err;
    }
    const group = (await findGroup(db, fullPath))!;
    const names = await loadFullNames(db, [group]);
    return c.json(groupDetail(group, { base: baseUrl(c), fullName: names.get(group.id)!, projects: [], settings }), 201);
  });

  r.route({ method: 'GET', path: '/groups/:id', summary: 'Get a group', tags: ['groups'], params: getGroupParams, responses: { 200: GroupDetailSchema } }, async ({ c, p, caller }) => {
    // The group, its full name, the caller's access and the detail's projects in one round trip.
    const db = c.var.db;
    if (p.with_projects) {
      const found = await findReadableGroupWith(c, caller, p.id, (groupId) => detailProjectReads(db, caller, groupId));
      return c.json(await presentDetail(c, caller, found, found.reads as unknown as DetailResults));
    }
    const found = await findReadableGroupWith(c, caller, p.id, (groupId) => [groupSharedWithRead(db, (column) => eq(column, groupId))] as const);
    return c.json(await presentDetail(c, caller, found, null, found.reads[0]));
  });

  r.route({ method: 'PUT', path: '/groups/:id', summary: 'Update a group', tags: ['groups'], params: updateGroupParams, responses: { 200: GroupDetailSchema } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const db = c.var.db;
    const { group, level } = await findReadableGroup(c, caller, p.id);
    if (!caller.isAdmin && level < ACCESS.OWNER) throw forbidden();
    const errors = groupFieldErrors({ name: p.name, path: p.path, parentId: group.parentId, description: p.description, defaultBranch: p.default_branch });
    const parent = group.parentId ? (await db.select().from(namespaces).where(eq(namespaces.id, group.parentId)).get()) ?? null : null;
    if (p.visibility && p.visibility !== group.visibility) {
      const msg =
        visibilityAllowedByParent(p.visibility, parent) ??
        (await visibilityAllowedByChildren(db, group, p.visibility)) ??
        restrictedVisibilityError(caller, p.visibility, (await settingsOf(c)).restricted_visibility_levels);
      if (msg) (errors.visibility_level ??= []).push(msg);
    }
    const newFull = p.path !== undefined && p.path !== group.path ? (parent ? `${parent.fullPath}/${p.path}` : p.path) : null;
    if (newFull && !errors.path) {
      const taken = await db.select({ id: namespaces.id }).from(namespaces).where(and(sql`lower(${namespaces.fullPath}) = lower(${newFull})`, sql`${namespaces.id} != ${group.id}`)).get();
      if (taken) (errors.path ??= []).push('has already been taken');
    }
    if (Object.keys(errors).length) throw validationFailed(errors);
    const set: Partial<typeof namespaces.$inferInsert> = { updatedAt: Date.now() };
    if (p.name !== undefined) set.name = p.name;
    if (p.path !== undefined) set.path = p.path;
    if (newFull) set.fullPath = newFull;
    if (p.description !== undefined) set.description = p.description;
    if (p.visibility !== undefined) set.visibility = p.visibility;
    if (p.share_with_group_lock !== undefined) set.shareWithGroupLock = p.share_with_group_lock;
    if (p.require_two_factor_authentication !== undefined) set.requireTwoFactorAuthentication = p.require_two_factor_authentication;
    if (p.two_factor_grace_period !== undefined) set.twoFactorGracePeriod = p.two_factor_grace_period;
    if (p.project_creation_level !== undefined) set.projectCreationLevel = p.project_creation_level;
    if (p.subgroup_creation_level !== undefined) set.subgroupCreationLevel = p.subgroup_creation_level;
    if (p.emails_disabled !== undefined) set.emailsEnabled = !p.emails_disabled;
    if (p.emails_enabled !== undefined) set.emailsEnabled = p.emails_enabled;
    if (p.mentions_disabled !== undefined) set.mentionsDisabled = p.mentions_disabled;
    if (p.lfs_enabled !== undefined) set.lfsEnabled = p.lfs_enabled;
    if (p.request_access_enabled !== undefined) set.requestAccessEnabled = p.request_access_enabled;
    if (p.default_branch !== undefined) set.defaultBranchName = p.default_branch.trim() ? p.default_branch : null;
    try {
      const update = db.update(namespaces).set(set).where(eq(namespaces.id, group.id));
      if (newFull) await db.batch([update, fullPathRewrite(db, group, newFull)]);
      else await update.run();
    } catch (err) {
      if (isUniqueViolation(err)) throw validationFailed({ path: ['has already been taken'] });
      throw err;
    }
    // The updated group read back with its detail's projects in one round trip.
    const [rows, ...reads] = await batchReads(db, [
      db.select({ group: namespaces, fullName: namespaceFullNameSql() }).from(namespaces).where(eq(namespaces.id, group.id)).limit(1),
      ...detailProjectReads(db, caller, sql`${group.id}`),
    ]);
    return c.json(await presentDetail(c, caller, rows[0], reads));
  });

  r.route({ method: 'DELETE', path: '/groups/:id', summary: 'Delete a group', tags: ['groups'], params: deleteGroupParams, responses: { 202: AcceptedSchema } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const { group, level } = await findReadableGroup(c, caller, p.id);
    if (!caller.isAdmin && level < ACCESS.OWNER) throw forbidden();
    checkUnmodifiedSince(c, group.updatedAt);
    // groups.rb: destroy_conditionally! then `accepted!` (Groups::DestroyService runs in a worker there; here at once).
    await runDeletion(c.var.db, c.var.blobs, groupDeletion(c.var.db, group));
    return c.json(accepted(), 202);
  });

  r.route({ method: 'GET', path: '/groups/:id/subgroups', summary: 'List subgroups', tags: ['groups'], params: listSubgroupsParams, responses: { 200: z.array(GroupSchema) } }, async ({ c, p, caller }) => {
    const { group } = await findReadableGroup(c, caller, p.id);
    return listGroups(c, caller, p, { parent: group });
  });

  r.route({ method: 'GET', path: '/groups/:id/descendant_groups', summary: 'List descendant groups', tags: ['groups'], params: listSubgroupsParams, responses: { 200: z.array(GroupSchema) } }, async ({ c, p, caller }) => {
    const { group } = await findReadableGroup(c, caller, p.id);
    return listGroups(c, caller, p, { descendants: group });
  });
}

