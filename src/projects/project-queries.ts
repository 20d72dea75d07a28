/** Project lookups: a project always comes with its namespace (full path, access, visibility). */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { namespaces, projects } from '../db/schema';
import { decimalId } from '../platform/record-id';

export type ProjectWithNamespace = { project: typeof projects.$inferSelect; namespace: typeof namespaces.$inferSelect };

/**
 * `find_project(id)`: an integer id, or `namespace/path` (URL-encoded by the client, decoded by the
 * router). A bare name without a slash never matches (helpers.rb `INTEGER_ID_REGEX` / full path).
 */
export async function findProject(db: Db, idOrPath: string): Promise<ProjectWithNamespace | undefined> {
  const q = db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId));
  const id = decimalId(idOrPath);
  if (id !== undefined) return q.where(eq(projects.id, id)).get();
  const i = idOrPath.lastIndexOf('/');
  if (i <= 0 || i === idOrPath.length - 1) return undefined;
  const nsPath = idOrPath.slice(0, i);
  const path = idOrPath.slice(i + 1);
  return q.where(and(sql`lower(${namespaces.fullPath}) = lower(${nsPath})`, sql`lower(${projects.path}) = lower(${path})`)).get();
}

export const projectsSelect = (db: Db) =>
  db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId));
