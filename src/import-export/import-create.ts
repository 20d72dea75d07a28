/**
 * POST /projects/import's service (Projects::GitlabProjectsImportService): resolve the namespace,
 * validate like Projects::CreateService, store the archive in the blob store, create the project
 * with its import state `scheduled` in one batch, and enqueue the import job.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { namespaces, projectImportStates, projects } from '../db/schema';
import { batchReads, writeThenRead } from '../db/batch-reads';
import { ACCESS, groupLevelSql, type NamespaceRow, restrictedVisibilityError } from '../projects/abilities';
import { ApiError, forbidden, notFound } from '../platform/errors';
import { decimalId } from '../platform/record-id';
import { randomHex } from '../platform/crypto';
import { isUniqueViolation } from '../platform/unique';
import type { Settings } from '../settings/settings';
import { projectFieldErrors, projectInsertStatements, projectVisibilityError } from '../projects/projects';
import { projectConflictRead } from '../projects/project-writes';
import { namespaceFullNameSql } from '../projects/group-queries';
import { projectCreationAccess, projectCreationLevelName } from '../projects/project-creation-level';
import { importStatusEntity, type ProjectImportStatus } from './import-status';
import { IMPORT_JOB } from './import-job-message';

export interface ImportRequest {
  path: string;
  name?: string;
  namespace?: string;
  overwrite: boolean;
  overrideParams: Record<string, unknown>;
  /** The archive, stored here under a new key; or `blobKey`, an archive the caller stored already (the upload streams it, import-routes.ts; remote-import.ts downloads it). */
  file?: Blob;
  blobKey?: string;
  /** The job downloads the archive from here into `blobKey` before it imports (remote-import, remote-import-s3). */
  downloadUrl?: string;
}

const PERSONAL_COUNT_CAP = 100_001;

/** `render_api_error!(project.errors.full_messages.first, 400)`. */
const firstError = (message: string) => new ApiError(400, { message });

function namespaceSql(ref: string | undefined, userId: number): SQL {
  if (ref === undefined) return sql`(SELECT pn.id FROM namespaces pn WHERE pn.kind = 'User' AND pn.owner_id = ${userId} LIMIT 1)`;
  const id = decimalId(ref);
  return id !== undefined ? sql`${id}` : sql`(SELECT pn.id FROM namespaces pn WHERE lower(pn.full_path) = lower(${ref}) LIMIT 1)`;
}

/** find_namespace!: a namespace the caller may not read answers like a missing one. */
function readableNamespace(caller: Caller, ns: NamespaceRow | undefined, level: number): NamespaceRow {
  if (!ns) throw notFound('Namespace');
  if (caller.isAdmin) return ns;
  if (ns.kind === 'User' ? ns.ownerId !== caller.user!.id : level === 0 && ns.visibility === 'private') throw notFound('Namespace');
  return ns;
}

export async function createImport(c: Context<AppEnv>, caller: Caller, settings: Settings, req: ImportRequest): Promise<ProjectImportStatus> {
  const db = c.var.db;
  const user = caller.user!;
  const name = req.name ?? req.path;
  const nsId = namespaceSql(req.namespace, user.id);
  // One round trip: the namespace with the caller's level in it, and the name and path taken there.
  const [nsRows, conflicts, personal] = await batchReads(db, [
    db.select({ ns: namespaces, level: groupLevelSql(user.id).as('level') }).from(namespaces).where(sql`${namespaces.id} = ${nsId}`).limit(1),
    projectConflictRead(db, nsId, name, req.path),
    // The personal project count, capped: only whether it reaches the caller's limit matters.
    db.select({ id: projects.id }).from(projects).where(sql`${projects.namespaceId} = ${nsId}`).limit(PERSONAL_COUNT_CAP),
  ]);
  const level = Number(nsRows[0]?.level ?? 0);
  const ns = readableNamespace(caller, nsRows[0]?.ns, level);
  // Projects::CreateService#allowed_namespace?: the caller's own namespace, or a group where the
  // caller may import projects (GroupPolicy: `maintainer & can?(:create_projects)`, so the group's
  // project creation level, or the instance default it inherits, applies too).
  const mayCreate = () => level >= projectCreationAccess(projectCreationLevelName(ns.projectCreationLevel, settings));
  const allowed = caller.isAdmin || (ns.kind === 'User' ? ns.ownerId === user.id : level >= ACCESS.MAINTAINER && mayCreate());
  if (!allowed) throw firstError('Namespace is not valid');
  // Project validations in model order: name and path formats, name uniqueness, path availability.
  const fieldErrors = projectFieldErrors({ name, path: req.path });
  const first = Object.entries(fieldErrors)[0];
  if (first) throw firstError(`${humanize(first[0])} ${first[1][0]}`);
  const overwrite = req.overwrite && Number(conflicts[0]?.pathTaken);
  // Overwriting deletes the project at the path when the import finishes: only for who may remove it (Owner).
  if (overwrite && !caller.isAdmin && ns.kind === 'Group' && level < ACCESS.OWNER) throw forbidden();
  if (Number(conflicts[0]?.nameTaken) && !overwrite) throw firstError('Name has already been taken');
  if (Number(conflicts[0]?.pathTaken) && !overwrite) throw firstError('Path has already been taken');
  // Project#check_personal_projects_limit, a validation of the create: its full message is the 400's.
  if (ns.kind === 'User' && personal.length >= user.projectsLimit) {
    throw firstError(
      user.projectsLimit === 0
        ? 'Limit reached Personal project creation is not allowed. Please contact your administrator with questions'
        : `Limit reached Your project limit is ${user.projectsLimit} projects! Please contact your administrator to increase it`,
    );
  }
  const visibility = String(req.overrideParams.visibility ?? settings.default_project_visibility ?? 'private');
  const vErr = projectVisibilityError(visibility, ns) ?? restrictedVisibilityError(caller, visibility, settings.restricted_visibility_levels);
  if (vErr) throw firstError(`Visibility level ${vErr}`);

  // overwrite: the import goes to a temporary path and takes over the original path when it finishes.
  const path = overwrite ? `${req.path}-${randomHex(6)}` : req.path;
  const projectName = overwrite ? `${name}-${path.slice(req.path.length + 1)}` : name;
  const blobKey = req.blobKey ?? `imports/${randomHex(16)}/archive.tar.gz`;
  if (!req.blobKey) await c.var.blobs.put(blobKey, await req.file!.arrayBuffer(), 'application/gzip');
  // The job's first step; its progress drops the URL once the archive is stored.
  const progress = JSON.stringify(req.downloadUrl ? { download: req.downloadUrl } : {});
  const now = Date.now();
  const correlationId = c.get('requestId') ?? randomHex(13);
  const st = projectInsertStatements(
    db,
    {
      namespaceId: ns.id,
      name: projectName,
      path,
      description: typeof req.overrideParams.description === 'string' ? req.overrideParams.description : '',
      visibility,
      topics: '[]',
      creatorId: user.id,
      features: '{}',
      createdAt: now,
      updatedAt: now,
      lastActivityAt: now,
    },
    ns.kind === 'User' ? ACCESS.OWNER : level >= ACCESS.MAINTAINER || level === 0 ? null : ACCESS.MAINTAINER,
    user.id,
    now,
  );
  const where = and(eq(projects.namespaceId, ns.id), sql`lower(${projects.path}) = lower(${path})`)!;
  const state = db.insert(projectImportStates).select(
    db
      .select({
        projectId: projects.id,
        status: sql<string>`'scheduled'`.as('status'),
        importType: sql<string>`'gitlab_project'`.as('import_type'),
        correlationId: sql<string>`${correlationId}`.as('correlation_id'),
        lastError: sql<null>`NULL`.as('last_error'),
        importerId: sql<number>`${user.id}`.as('importer_id'),
        blobKey: sql<string>`${blobKey}`.as('blob_key'),
        overrideParams: sql<string>`${JSON.stringify({ ...req.overrideParams, ...(overwrite ? { original_path: req.path, original_name: name } : {}) })}`.as('override_params'),
        progress: sql<string>`${progress}`.as('progress'),
        createdAt: sql<number>`${now}`.as('created_at'),
        updatedAt: sql<number>`${now}`.as('updated_at'),
      })
      .from(projects)
      .where(where),
  );
  let rows;
  try {
    [rows] = await writeThenRead(db, st.member ? [st.project, st.member, state] : [st.project, state], [
      db.select({ project: projects, fullName: namespaceFullNameSql().as('full_name') }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(where).limit(1),
    ]);
  } catch (err) {
    await c.var.blobs.delete(blobKey);
    if (isUniqueViolation(err, 'name')) throw firstError('Name has already been taken');
    if (isUniqueViolation(err)) throw firstError('Path has already been taken');
    throw err;
  }
  const project = rows[0].project;
  await c.var.jobs.send({ type: IMPORT_JOB, id: `${IMPORT_JOB}:${project.id}:${correlationId}`, projectId: project.id });
  return importStatusEntity(project, ns, rows[0].fullName, { projectId: project.id, status: 'scheduled', importType: 'gitlab_project', correlationId, lastError: null, importerId: user.id, blobKey, overrideParams: '{}', progress, createdAt: now, updatedAt: now }, []);
}

const humanize = (attr: string) => attr.charAt(0).toUpperCase() + attr.slice(1).replace(/_/g, ' ');
