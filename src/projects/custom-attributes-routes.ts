/**
 * Custom attributes of projects and groups (GitLab lib/api/custom_attributes_endpoints.rb, mounted by
 * projects.rb and groups.rb): the same four routes as users', on ProjectCustomAttribute and
 * GroupCustomAttribute. Administrators only, decided before the project or group is looked up, as for
 * users (src/users/custom-attributes-routes.ts), so the routes tell nobody else what exists.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { batchReads } from '../db/batch-reads';
import { groupCustomAttributes, namespaces, projectCustomAttributes, projects } from '../db/schema';
import { customAttributeEntity, CustomAttributeSchema } from '../users/custom-attribute-entity';
import { checkCustomAttribute } from '../users/custom-attributes-routes';
import { notFound, recordNotFound } from '../platform/errors';
import { requireAdmin } from '../platform/guards';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { projectIdRef } from './project-queries';
import { groupIdRef } from './group-queries';

const idParams = params({ id: g.string() });
const keyParams = params({ id: g.string(), key: g.string() });
const putParams = params({ id: g.string(), key: g.string(), value: g.string() });

interface Attributable {
  /** `projects` or `groups`: the path segment and the OpenAPI wording. */
  resource: 'projects' | 'groups';
  table: SQLiteTable & { key: SQLiteColumn; value: SQLiteColumn };
  owner: SQLiteColumn;
  /** The owner's id as SQL (a sub-select by path matches nothing when it does not exist). */
  idRef: (idOrPath: string) => SQL;
}

const PROJECT: Attributable = { resource: 'projects', table: projectCustomAttributes, owner: projectCustomAttributes.projectId, idRef: projectIdRef };
const GROUP: Attributable = { resource: 'groups', table: groupCustomAttributes, owner: groupCustomAttributes.groupId, idRef: groupIdRef };

export function mountProjectGroupCustomAttributes(r: Router) {
  for (const a of [PROJECT, GROUP]) mountFor(r, a);
}

function mountFor(r: Router, a: Attributable) {
  const thing = a.resource === 'projects' ? 'project' : 'group';
  const base = `/${a.resource}/:id/custom_attributes`;

  r.route(
    { method: 'GET', path: base, summary: `List custom attributes of a ${thing}`, tags: ['custom_attributes'], params: idParams, responses: { 200: z.array(CustomAttributeSchema) } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      const ref = a.idRef(p.id);
      // The owner's existence and its attributes in one round trip; creation order (rowid survives upserts).
      const [owner, rows] = await batchReads(db, [ownerExists(c, a, ref), db.select({ key: a.table.key, value: a.table.value }).from(a.table).where(eq(a.owner, ref)).orderBy(sql`rowid`)]);
      if (!owner[0]) throw notFound();
      return c.json((rows as { key: string; value: string }[]).map(customAttributeEntity));
    },
  );

  r.route(
    { method: 'GET', path: `${base}/:key`, summary: `Get a custom attribute of a ${thing}`, tags: ['custom_attributes'], params: keyParams, responses: { 200: CustomAttributeSchema } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const row = await findAttribute(c, a, p.id, p.key);
      return c.json(customAttributeEntity(row));
    },
  );

  r.route(
    { method: 'PUT', path: `${base}/:key`, summary: `Set a custom attribute of a ${thing}`, tags: ['custom_attributes'], params: putParams, responses: { 200: CustomAttributeSchema } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      const ref = a.idRef(p.id);
      const [owner] = await batchReads(db, [ownerExists(c, a, ref)]);
      if (!owner[0]) throw notFound();
      checkCustomAttribute(p.key, p.value);
      await db
        .insert(a.table)
        .values({ [a.owner === PROJECT.owner ? 'projectId' : 'groupId']: owner[0].id, key: p.key, value: p.value } as never)
        .onConflictDoUpdate({ target: [a.owner, a.table.key], set: { value: p.value } as never })
        .run();
      return c.json(customAttributeEntity({ key: p.key, value: p.value }));
    },
  );

  r.route(
    { method: 'DELETE', path: `${base}/:key`, summary: `Delete a custom attribute of a ${thing}`, tags: ['custom_attributes'], params: keyParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const row = await findAttribute(c, a, p.id, p.key);
      await c.var.db.delete(a.table).where(and(eq(a.owner, row.ownerId), eq(a.table.key, p.key))).run();
      return c.body(null, 204);
    },
  );
}

/** `find_project` / `find_group` for an administrator: any project or group, by id or full path. */
function ownerExists(c: Context<AppEnv>, a: Attributable, ref: SQL) {
  const db = c.var.db;
  return a.resource === 'projects'
    ? db.select({ id: projects.id }).from(projects).where(eq(projects.id, ref)).limit(1)
    : db.select({ id: namespaces.id }).from(namespaces).where(and(eq(namespaces.id, ref), eq(namespaces.kind, 'Group'))).limit(1);
}

/** The owner (bare `404 Not Found` when missing) and its attribute (`find_by!`: `404 Not found`), one round trip. */
async function findAttribute(c: Context<AppEnv>, a: Attributable, idOrPath: string, key: string) {
  const db = c.var.db;
  const ref = a.idRef(idOrPath);
  const [owner, rows] = await batchReads(db, [
    ownerExists(c, a, ref),
    db.select({ ownerId: a.owner, key: a.table.key, value: a.table.value }).from(a.table).where(and(eq(a.owner, ref), eq(a.table.key, key))).limit(1),
  ]);
  if (!owner[0]) throw notFound();
  const row = (rows as { ownerId: number; key: string; value: string }[])[0];
  if (!row) throw recordNotFound();
  return row;
}
