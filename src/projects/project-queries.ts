/** Project lookups: a project always comes with its namespace (full path, access, visibility). */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { namespaces, projects } from '../db/schema';
import { decimalId } from '../platform/record-id';

export type ProjectWithNamespace = { project: typeof projects.$inferSelect; namespace: typeof namespaces.$inferSelect };

/**
 * `find_project(id)`: an integer id, or `namespace/path` (URL-encoded by the client, decoded by the
 * router). A bare name without a slash never matches (helpers.rb `INTEGER_ID_REGEX` / full path).
 */
export async function findProject(db: Db, idOrPath: string): Promise<ProjectWithNamespace | undefined> {
  const where = projectWhere(idOrPath);
  if (!where) return undefined;
  return db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(where).get();
}

/** The condition on `projects` joined with `namespaces` that `find_project(id)` means; undefined when nothing can match. */
export function projectWhere(idOrPath: string): SQL | undefined {
  const id = decimalId(idOrPath);
  if (id !== undefined) return eq(projects.id, id);
  const i = idOrPath.lastIndexOf('/');
  if (i <= 0 || i === idOrPath.length - 1) return undefined;
  return and(sql`lower(${namespaces.fullPath}) = lower(${idOrPath.slice(0, i)})`, sql`lower(${projects.path}) = lower(${idOrPath.slice(i + 1)})`);
}

/**
 * The project's id as SQL, for statements sent in the same batch as the project's own lookup: the
 * number itself, or a sub-select by full path (a statement about a missing project matches nothing).
 */
export function projectIdRef(idOrPath: string): SQL {
  const id = decimalId(idOrPath);
  if (id !== undefined) return sql`${id}`;
  const i = idOrPath.lastIndexOf('/');
  if (i <= 0 || i === idOrPath.length - 1) return sql`NULL`;
  return sql`(SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE lower(n.full_path) = lower(${idOrPath.slice(0, i)}) AND lower(p.path) = lower(${idOrPath.slice(i + 1)}))`;
}

/**
 * `find_project(id)` for statements built once (src/db/prepared.ts cachedQuery): the shape of the
 * reference (an id, or a namespace path and project path) names the statement, and its values fill
 * the placeholders `pid`, or `ns` and `path`, of projectWhereOf / projectIdRefOf. Undefined when
 * nothing can match (as projectWhere).
 */
export type ProjectRef = { shape: 'id'; values: { pid: number } } | { shape: 'path'; values: { ns: string; path: string } };
export function projectRef(idOrPath: string): ProjectRef | undefined {
  const id = decimalId(idOrPath);
  if (id !== undefined) return { shape: 'id', values: { pid: id } };
  const i = idOrPath.lastIndexOf('/');
  if (i <= 0 || i === idOrPath.length - 1) return undefined;
  return { shape: 'path', values: { ns: idOrPath.slice(0, i), path: idOrPath.slice(i + 1) } };
}
/** projectWhere with the placeholders of a ProjectRef. */
export const projectWhereOf = (shape: ProjectRef['shape']): SQL =>
  shape === 'id'
    ? eq(projects.id, sql.placeholder('pid'))
    : and(sql`lower(${namespaces.fullPath}) = lower(${sql.placeholder('ns')})`, sql`lower(${projects.path}) = lower(${sql.placeholder('path')})`)!;
/** projectIdRef with the placeholders of a ProjectRef. */
export const projectIdRefOf = (shape: ProjectRef['shape']): SQL =>
  shape === 'id'
    ? sql`${sql.placeholder('pid')}`
    : sql`(SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE lower(n.full_path) = lower(${sql.placeholder('ns')}) AND lower(p.path) = lower(${sql.placeholder('path')}))`;

export const projectsSelect = (db: Db) =>
  db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId));
