/**
 * Project writes that answer with the Project entity: creation (Projects::CreateService) in one
 * round trip of checks and one batch that writes and reads the answer back, and the read-back
 * itself (the project row with the caller's level and its entity extras) for any write's batch.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { namespaces, projects, users } from '../db/schema';
import { batchReads, writeThenRead } from '../db/batch-reads';
import { ACCESS, groupLevelSql, restrictedVisibilityError } from './abilities';
import { ApiError, notFound, validationFailed } from '../platform/errors';
import { isUniqueViolation } from '../platform/unique';
import { decimalId } from '../platform/record-id';
import { settingsOf } from '../settings/settings';
import { projectCreationAccess, projectCreationLevelName } from './project-creation-level';
import { FEATURES, type Project } from './project-entity';
import type { createProjectParams } from './projects-params';
import { pathFromName, presentProjectRows, projectExtras, projectExtrasReads, projectFieldErrors, projectInsertStatements, projectListQuery, projectVisibilityError } from './projects';

/** Reads of the personal project count stop here: a limit above it is never reached in practice. */
const PERSONAL_COUNT_CAP = 100_001;

export function featureSet(p: Record<string, unknown>, current: Record<string, string> = {}) {
  const out = { ...current };
  const legacy: Record<string, string> = { issues_enabled: 'issues', merge_requests_enabled: 'merge_requests', wiki_enabled: 'wiki', jobs_enabled: 'builds', snippets_enabled: 'snippets' };
  for (const [k, f] of Object.entries(legacy)) if (typeof p[k] === 'boolean') out[f] = p[k] ? 'enabled' : 'disabled';
  for (const f of FEATURES) if (typeof p[`${f}_access_level`] === 'string') out[f] = p[`${f}_access_level`] as string;
  return out;
}

/** The namespace a new project goes to, as SQL: `namespace_id` (an id or a full path), else the owner's personal namespace. */
function namespaceIdSql(namespaceId: string | undefined, ownerId: number): SQL {
  if (namespaceId === undefined) return sql`(SELECT pn.id FROM namespaces pn WHERE pn.kind = 'User' AND pn.owner_id = ${ownerId} LIMIT 1)`;
  const id = decimalId(namespaceId);
  return id !== undefined ? sql`${id}` : sql`(SELECT pn.id FROM namespaces pn WHERE lower(pn.full_path) = lower(${namespaceId}) LIMIT 1)`;
}

/**
 * Name and path taken in a namespace (`nsId` SQL), as one row `{ nameTaken, pathTaken }`: a project
 * of that name; a project of that path, or a subgroup at the same full path. `exceptId` leaves the
 * project being renamed out; a name or path not given is not looked for (no statement is sent for it).
 */
export function projectConflictRead(db: Db, nsId: SQL, name: string | undefined, path: string | undefined, exceptId?: SQL) {
  const notSelf = exceptId !== undefined ? sql` AND tp.id != ${exceptId}` : sql``;
  const nameTaken = name !== undefined ? sql`EXISTS (SELECT 1 FROM projects tp WHERE tp.namespace_id = ${nsId} AND lower(tp.name) = lower(${name})${notSelf})` : sql`0`;
  const pathTaken =
    path !== undefined
      ? sql`(EXISTS (SELECT 1 FROM projects tp WHERE tp.namespace_id = ${nsId} AND lower(tp.path) = lower(${path})${notSelf})
          OR EXISTS (SELECT 1 FROM namespaces tn WHERE lower(tn.full_path) = lower((SELECT cn.full_path FROM namespaces cn WHERE cn.id = ${nsId}) || '/' || ${path})))`
      : sql`0`;
  return db.select({ nameTaken: sql<number>`${nameTaken}`.as('name_taken'), pathTaken: sql<number>`${pathTaken}`.as('path_taken') }).from(sql`(SELECT 1) AS one`);
}

/** The validation errors of `projectConflictRead`'s row (`skip`: attributes that already have an error). */
export function projectConflictErrors([row]: { nameTaken: number; pathTaken: number }[], skip: Record<string, unknown> = {}): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (Number(row?.nameTaken) && !skip.name) errors.name = ['has already been taken'];
  if (Number(row?.pathTaken) && !skip.path) errors.path = ['has already been taken'];
  return errors;
}

/** A written project read back for its answer: the row with the caller's level, and its entity extras. */
export function projectReadBack(db: Db, caller: Caller, where: SQL) {
  // Visibility is not re-checked: the writer may see what they just wrote.
  const row = projectListQuery(db, { ...caller, isAdmin: true }, [where]).limit(1);
  return [row, ...projectExtrasReads(db, (column) => sql`${column} = (SELECT ${projects.id} FROM ${projects} WHERE ${where})`)] as const;
}

/** The Project entity of `projectReadBack`'s results, with no storage access. */
export function presentReadBack(c: Context<AppEnv>, caller: Caller, [rows, ...extras]: Awaited<ReturnType<typeof writeThenRead<ReturnType<typeof projectReadBack>>>>): Project {
  return presentProjectRows(c, { ...caller }, rows, false, projectExtras(extras))[0] as Project;
}

/**
 * Project#default_branch_from_preferences: the branch a new project's empty repository points at
 * when the request names none, the group's `default_branch_name`, else the instance's; null leaves
 * it to the first commit (the entity shows `main` until then).
 */
function defaultBranchFromPreferences(ns: { kind: string; defaultBranchName: string | null }, settings: Record<string, unknown>): string | null {
  const fromGroup = ns.kind === 'Group' ? ns.defaultBranchName?.trim() : '';
  const fromInstance = typeof settings.default_branch_name === 'string' ? settings.default_branch_name.trim() : '';
  return fromGroup || fromInstance || null;
}

/** Creates a project for `owner` (the caller, or the user of POST /projects/user/:user_id). */
export async function createProject(c: Context<AppEnv>, caller: Caller, ownerId: number, p: z.output<z.ZodObject<(typeof createProjectParams)['shape']>>) {
  const db = c.var.db;
  const name = p.name ?? p.path!;
  const path = p.path ?? pathFromName(p.name!);
  // One round trip for every check: the owner, the namespace with the owner's level in it, the
  // name and path already taken there, and the owner's personal project count.
  const nsId = namespaceIdSql(p.namespace_id, ownerId);
  const [owners, nsRows, ...conflictReads] = await batchReads(db, [
    db.select().from(users).where(eq(users.id, ownerId)).limit(1),
    db.select({ ns: namespaces, level: groupLevelSql(ownerId).as('level') }).from(namespaces).where(sql`${namespaces.id} = ${nsId}`).limit(1),
    projectConflictRead(db, nsId, name, path),
    db.select({ id: projects.id }).from(projects).where(sql`${projects.namespaceId} = ${nsId}`).limit(PERSONAL_COUNT_CAP),
  ]);
  const owner = owners[0];
  if (!owner) throw notFound('User');
  const ns = nsRows[0]?.ns;
  if (!ns) throw notFound('Namespace');
  const [conflicts, personal] = conflictReads;
  const settings = await settingsOf(c);
  const errors: Record<string, string[]> = {};
  let memberLevel: number | null = null;
  if (ns.kind === 'User') {
    // Another user's personal namespace is not valid (Projects::CreateService#allowed_namespace?).
    if (ns.ownerId !== owner.id && !caller.isAdmin) errors.namespace = ['is not valid'];
    memberLevel = ACCESS.OWNER;
  } else {
    const level = Number(nsRows[0].level ?? 0);
    const need = projectCreationAccess(projectCreationLevelName(ns.projectCreationLevel, settings));
    const readable = caller.isAdmin || level > 0 || ns.visibility !== 'private';
    if (!readable) throw notFound('Namespace');
    if (!caller.isAdmin && level < need) errors.namespace = ['is not valid'];
    // A member below maintainer who creates a project in a group becomes its maintainer; a group
    // maintainer/owner already has that through the group, and an administrator outside the group gets no row.
    memberLevel = level >= ACCESS.MAINTAINER || level === 0 ? null : ACCESS.MAINTAINER;
  }
  Object.assign(errors, projectFieldErrors({ name, path, description: p.description, topics: [...(p.topics ?? []), ...(p.tag_list ?? [])], defaultBranch: p.default_branch }));
  const visibility = p.visibility ?? String(settings.default_project_visibility ?? 'private');
  const vErr = projectVisibilityError(visibility, ns) ?? restrictedVisibilityError(caller, visibility, settings.restricted_visibility_levels);
  if (vErr) errors.visibility_level = [vErr];
  if (!errors.namespace) Object.assign(errors, projectConflictErrors(conflicts, errors));
  if (Object.keys(errors).length) throw validationFailed(errors);
  // Project#check_personal_projects_limit: `error!(errors[:limit_reached], 403)`, an array message.
  if (ns.kind === 'User') {
    // The count read is capped: only whether it reaches the limit matters.
    const limit = owner.projectsLimit;
    const count = personal.length;
    if (count >= limit)
      throw new ApiError(403, {
        message: [limit === 0 ? 'Personal project creation is not allowed. Please contact your administrator with questions' : `Your project limit is ${limit} projects! Please contact your administrator to increase it`],
      });
  }
  const now = Date.now();
  const topics = [...new Set([...(p.topics ?? []), ...(p.tag_list ?? [])])];
  let created;
  try {
    const st = projectInsertStatements(
      db,
      {
        namespaceId: ns.id,
        name,
        path,
        description: p.description ?? '',
        visibility,
        defaultBranch: p.default_branch ?? defaultBranchFromPreferences(ns, settings),
        topics: JSON.stringify(topics),
        creatorId: caller.user!.id,
        requestAccessEnabled: p.request_access_enabled ?? true,
        lfsEnabled: p.lfs_enabled ?? true,
        mergeMethod: p.merge_method ?? 'merge',
        squashOption: p.squash_option ?? 'default_off',
        onlyAllowMergeIfAllDiscussionsAreResolved: p.only_allow_merge_if_all_discussions_are_resolved ?? false,
        features: JSON.stringify(featureSet(p)),
        createdAt: now,
        updatedAt: now,
        lastActivityAt: now,
      },
      memberLevel,
      owner.id,
      now,
    );
    // The project, its creator's membership and the answer read back, in one batch.
    created = await writeThenRead(db, st.member ? [st.project, st.member] : [st.project], projectReadBack(db, caller, and(eq(projects.namespaceId, ns.id), sql`lower(${projects.path}) = lower(${path})`)!));
  } catch (err) {
    if (isUniqueViolation(err, 'name')) throw validationFailed({ name: ['has already been taken'] });
    if (isUniqueViolation(err)) throw validationFailed({ path: ['has already been taken'] });
    throw err;
  }
  return c.json(presentReadBack(c, caller, created), 201);
}

