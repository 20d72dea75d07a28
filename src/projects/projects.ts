/**
 * Project reads and writes shared by the projects, groups and users modules: the visible-project
 * query (with the caller's level as a column, so pages need no per-row access lookups), the
 * presenter loader (namespace full names, personal owners), path/name rules and the rows of a new
 * project (Projects::CreateService adds the owner or creator as a member).
 */
import { and, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { batchReads, inJson } from '../db/batch-reads';
import { aliasedColumns } from '../db/aliased-columns';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { issues, members, namespaces, projects, repoBranches, users } from '../db/schema';
import { type BasicProjectDetails, type Project, projectBasic, projectEntity } from './project-entity';
import { ACCESS, canReadProject, type NamespaceRow, projectAccess, projectLevelSql, projectVisibleSql, type ProjectRow, VISIBILITY_LEVEL } from './abilities';
import { baseUrl } from '../platform/pagination';
import { notFound } from '../platform/errors';
import { namespaceFullNameSql } from './group-queries';
import { projectIdRef, projectRef, type ProjectRef, projectWhereOf, type ProjectWithNamespace } from './project-queries';
import { cachedQuery } from '../db/prepared';
import { today } from '../platform/time';
import type { BatchItem } from 'drizzle-orm/batch';
import { checkText, NAME_MAX, tooLong } from '../platform/text-limits';
import { isValidBranchName } from '../platform/git-ref';
import { projectSharedWithRead, type SharedWithGroupRow, sharedWithGroupsBySource } from './group-links';

export interface ProjectListRow {
  project: ProjectRow;
  namespace: NamespaceRow;
  level: number;
}

/** The namespace columns of a joined project row, named apart from the project's (D1 batches key rows by column name). */
const NAMESPACE = aliasedColumns(namespaces, 'ns_');

/** Projects the caller may read, joined with their namespace and carrying the caller's level. */
export function projectListQuery(db: Db, caller: Caller, conds: (SQL | undefined)[]) {
  const uid = caller.user?.id;
  return db
    .select({ project: projects, namespace: NAMESPACE, level: (uid ? projectLevelSql(uid) : sql<number>`0`).as('level') })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(projectVisibleSql(caller), ...conds))
    .$dynamic();
}

/** `read_code`: the repository feature for readers of public/internal projects, reporters and above otherwise. */
export function readCode(caller: Caller, project: ProjectRow, level: number): boolean {
  if (caller.isAdmin) return true;
  const features = JSON.parse(project.features || '{}') as Record<string, string>;
  const repo = features.repository ?? 'enabled';
  if (repo === 'disabled') return false;
  if (repo === 'private' || project.visibility === 'private') return level >= ACCESS.REPORTER;
  return project.visibility === 'public' || Boolean(caller.user && !caller.user.external) || level >= ACCESS.GUEST;
}


/**
 * What the Project entity shows beyond its own row, for the projects `where` selects (by a column
 * of each table: `inJson` over a page's ids, or `eq` to one id), as unexecuted reads for one batch:
 * open issue counts (Projects::OpenIssuesCountService: reporters count confidential issues, others
 * not), the projects with a branch (not Project#empty_repo?), namespace full names and personal
 * owners.
 */
export function projectExtrasReads(db: Db, where: (column: SQLWrapper) => SQL) {
  return [
    db
      .select({ projectId: issues.projectId, all: sql<number>`count(*)`, public: sql<number>`sum(${issues.confidential} = 0)` })
      .from(issues)
      .where(and(where(issues.projectId), eq(issues.state, 'opened')))
      .groupBy(issues.projectId),
    db.selectDistinct({ id: repoBranches.projectId }).from(repoBranches).where(where(repoBranches.projectId)),
    db.select({ id: projects.id, fullName: namespaceFullNameSql() }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(where(projects.id)),
    db
      .select({ id: projects.id, owner: aliasedColumns(users, 'u_') })
      .from(projects)
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .innerJoin(users, eq(users.id, namespaces.ownerId))
      .where(and(where(projects.id), eq(namespaces.kind, 'User'))),
    projectSharedWithRead(db, where),
  ] as const;
}

type ExtrasResults = [
  { projectId: number; all: number; public: number | null }[] | undefined,
  { id: number }[] | undefined,
  { id: number; fullName: string }[],
  { id: number; owner: UserRow }[],
  SharedWithGroupRow[]?,
];

/** The results of `projectExtrasReads` by project id. */
export function projectExtras([counts, branches, names, owners, shared]: ExtrasResults) {
  const open = new Map((counts ?? []).map((r) => [r.projectId, { all: Number(r.all), public: Number(r.public ?? 0) }]));
  const withCode = new Set((branches ?? []).map((r) => r.id));
  const fullNames = new Map(names.map((r) => [r.id, r.fullName]));
  const ownerOf = new Map(owners.map((r) => [r.id, r.owner]));
  const sharedWith = sharedWithGroupsBySource(shared);
  return {
    /** The open issue count a caller with membership `level` sees. */
    openIssues: (id: number, level: number) => openIssuesFor(open.get(id), level),
    emptyRepo: (id: number) => !withCode.has(id),
    fullName: (id: number) => fullNames.get(id) ?? '',
    owner: (id: number) => ownerOf.get(id) ?? null,
    /** `shared_with_groups` (empty where the shares were not read). */
    sharedWithGroups: (id: number) => sharedWith.get(id) ?? [],
  };
}

/** The count a caller with membership `level` sees. */
export const openIssuesFor = (counts: { all: number; public: number } | undefined, level: number) =>
  !counts ? 0 : level >= ACCESS.REPORTER ? counts.all : counts.public;

/** Presents a page of projects (Project, or BasicProjectDetails with `simple`): one round trip for the page's extras. */
export async function presentProjects(c: Context<AppEnv>, caller: Caller, rows: ProjectListRow[], simple: false): Promise<Project[]>;
export async function presentProjects(c: Context<AppEnv>, caller: Caller, rows: ProjectListRow[], simple: boolean): Promise<(Project | BasicProjectDetails)[]>;
export async function presentProjects(c: Context<AppEnv>, caller: Caller, rows: ProjectListRow[], simple: boolean): Promise<(Project | BasicProjectDetails)[]> {
  if (!rows.length) return [];
  const ids = [...new Set(rows.map((r) => r.project.id))];
  const [counts, branches, names, owners, shared] = projectExtrasReads(c.var.db, (col) => inJson(col, ids));
  // BasicProjectDetails (`simple`) shows neither issue counts nor emptiness nor shares.
  const extras = projectExtras(await batchReads(c.var.db, [simple ? undefined : counts, simple ? undefined : branches, names, owners, simple ? undefined : shared]));
  return presentProjectRows(c, caller, rows, simple, extras);
}

/** A page of projects presented from extras already read (`projectExtras`), with no storage access. */
export function presentProjectRows(c: Context<AppEnv>, caller: Caller, rows: ProjectListRow[], simple: boolean, extras: ReturnType<typeof projectExtras>): (Project | BasicProjectDetails)[] {
  const base = baseUrl(c);
  return rows.map((r) => {
    const id = r.project.id;
    const level = Number(r.level);
    const x = {
      base,
      namespaceFullName: extras.fullName(id),
      owner: r.namespace.ownerId ? extras.owner(id) : null,
      readCode: readCode(caller, r.project, level),
      level,
      isAdmin: caller.isAdmin,
      openIssuesCount: extras.openIssues(id, level),
      emptyRepo: extras.emptyRepo(id),
      sharedWithGroups: extras.sharedWithGroups(id),
    };
    return simple ? projectBasic(r.project, r.namespace, x) : projectEntity(r.project, r.namespace, x);
  });
}

/** Project path (path_regex.rb `project_path_format_regex`). */
const PROJECT_PATH_RE = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;
const PROJECT_PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
/** Gitlab::Regex.project_name_regex. */
const PROJECT_NAME_RE = /^[\p{L}\p{N}\p{So}_][\p{L}\p{N}\p{So}_.+\- ]*$/u;
const PROJECT_NAME_MESSAGE = "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.";

/** Project: `validates :description, length: { maximum: 2000 }`; Projects::Topic names are `string(255)`. */
const PROJECT_TEXT = { description: { max: 2000 } };
const TOPIC_MAX = 255;

export function projectFieldErrors(f: { name?: string; path?: string; description?: string | null; topics?: string[]; defaultBranch?: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  checkText(errors, { description: f.description }, PROJECT_TEXT);
  // The default branch names a branch: git's ref rules (which also bound nothing but NUL-free text).
  if (f.defaultBranch !== undefined && f.defaultBranch !== '' && (!isValidBranchName(f.defaultBranch) || tooLong(f.defaultBranch, NAME_MAX))) errors.default_branch = ['is invalid'];
  // Autosaved topics report their own errors under `topics.name`, as Rails names nested records.
  if (f.topics?.some((t) => tooLong(t, TOPIC_MAX))) errors['topics.name'] = [`is too long (maximum is ${TOPIC_MAX} characters)`];
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (f.name !== undefined) {
    if (!f.name.trim()) add('name', "can't be blank");
    else if (!PROJECT_NAME_RE.test(f.name)) add('name', PROJECT_NAME_MESSAGE);
    if (f.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  }
  if (f.path !== undefined) {
    if (!f.path) add('path', "can't be blank");
    else if (!PROJECT_PATH_RE.test(f.path) || /\.(git|atom)$/i.test(f.path) || f.path.startsWith('-')) add('path', PROJECT_PATH_MESSAGE);
    if (f.path.length > 255) add('path', 'is too long (maximum is 255 characters)');
  }
  return errors;
}

/** Path from a name when only the name is given (Project#set_path_from_name / `parameterize`). */
export const pathFromName = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '') || 'project';

/** Project#visibility_level_allowed_by_group. */
export function projectVisibilityError(visibility: string, ns: NamespaceRow): string | null {
  if (ns.kind === 'Group' && VISIBILITY_LEVEL[visibility] > VISIBILITY_LEVEL[ns.visibility]) return `${visibility} is not allowed in a ${ns.visibility} group.`;
  return null;
}

/** A new project and its creator's membership (owner in a personal namespace, maintainer in a group unless already above). */
export function projectInsertStatements(db: Db, values: typeof projects.$inferInsert, memberLevel: number | null, creatorId: number, now: number) {
  const project = db.insert(projects).values(values);
  const member = memberLevel
    ? db.insert(members).select(
        db
          .select({
            id: sql<number>`NULL`.as('id'),
            sourceType: sql<string>`'Project'`.as('source_type'),
            sourceId: projects.id,
            userId: sql<number>`${creatorId}`.as('user_id'),
            accessLevel: sql<number>`${memberLevel}`.as('access_level'),
            expiresAt: sql<string>`NULL`.as('expires_at'),
            createdById: sql<number>`${creatorId}`.as('created_by_id'),
            createdAt: sql<number>`${now}`.as('created_at'),
            updatedAt: sql<number>`${now}`.as('updated_at'),
          })
          .from(projects)
          .where(and(eq(projects.namespaceId, values.namespaceId), sql`lower(${projects.path}) = lower(${values.path})`)),
      )
    : null;
  return { project, member };
}

/**
 * `find_project!` + `read_project`: a project the caller may not read answers exactly like a
 * missing one (spec: Access). Returns the caller's level so handlers authorise without another query.
 */
export async function findReadableProject(c: Context<AppEnv>, caller: Caller, id: string): Promise<ProjectWithNamespace & { level: number }> {
  const { reads: _, ...found } = await findReadableProjectWith(c, caller, id, () => [] as const);
  return found;
}

/**
 * `findReadableProject` and, in the same round trip, the reads that need nothing but the project's
 * id (`projectId` is the id, or a sub-select by path). They run before the caller is authorised and
 * are thrown away with the 404 when the project is hidden: reads change nothing.
 */
export async function findReadableProjectWith<const R extends readonly BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  caller: Caller,
  id: string,
  reads: (projectId: SQL, ref: ProjectRef) => R,
): Promise<ProjectWithNamespace & { level: number; reads: { [K in keyof R]: R[K] extends BatchItem<'sqlite'> ? Awaited<R[K]> : never } }> {
  const ref = projectRef(id);
  if (!ref) throw notFound('Project');
  const db = c.var.db;
  const uid = caller.user?.id;
  // Built once per reference shape and caller kind (prepared.ts): every project route starts here.
  // Namespace columns and `level` are named apart (aliased-columns.ts): a D1 batch keys rows by column name.
  const head = cachedQuery(
    db,
    `project-head:${ref.shape}:${uid == null ? 'anonymous' : 'user'}`,
    (d) =>
      d
        .select({
          project: projects,
          namespace: NAMESPACE,
          level: (uid == null ? sql<number>`0` : projectLevelSql(sql.placeholder('uid'), sql.placeholder('today'))).as('level'),
        })
        .from(projects)
        .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
        .where(projectWhereOf(ref.shape))
        .limit(1),
    uid == null ? ref.values : { ...ref.values, uid, today: today() },
  );
  const more = reads(projectIdRef(id), ref);
  type Head = { project: ProjectRow; namespace: NamespaceRow; level: number }[];
  const [rows, ...rest] = more.length ? ((await db.batch([head, ...more])) as unknown as [Head, ...unknown[]]) : [(await head) as Head];
  const found = rows[0];
  if (!found) throw notFound('Project');
  const level = Number(found.level ?? 0);
  if (!canReadProject(caller, found.project, level)) throw notFound('Project');
  let known = projectsOfRequest.get(c);
  if (!known) projectsOfRequest.set(c, (known = new Map()));
  known.set(found.project.id, { project: found.project, namespace: found.namespace });
  return { project: found.project, namespace: found.namespace, level, reads: rest as never };
}

/**
 * Projects (with namespaces) this request already loaded through findReadableProject, so that
 * presenters do not read them again: on D1 every statement is a round trip. Keyed by the request's
 * context and holding only finished values, never a pending promise (workerd forbids sharing I/O
 * across requests).
 */
const projectsOfRequest = new WeakMap<Context<AppEnv>, Map<number, ProjectWithNamespace>>();
export function projectLoadedByRequest(c: Context<AppEnv>, projectId: number): ProjectWithNamespace | undefined {
  return projectsOfRequest.get(c)?.get(projectId);
}
