/** Namespaces API (GitLab lib/api/namespaces.rb): the caller's own and their groups' namespaces; all for administrators. */
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { batchReads } from '../db/batch-reads';
import { namespaces, users } from '../db/schema';
import { type Namespace, namespaceEntity, NamespaceSchema } from './namespace-entity';
import { avatarUrl } from '../users/user-entity';
import { ACCESS, groupLevelSql, type NamespaceRow } from './abilities';
import { notFound } from '../platform/errors';
import { baseUrl, countUpToQuery, linkParamsFrom, pageRequest, paginateWith } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { paginationParams } from '../platform/pagination';
import { decimalId } from '../platform/record-id';
import { obj } from '../platform/response-schemas';
import { cleanPath, suggestPath } from './namespace-paths';

const listParams = params({ search: g.search().optional(), owned_only: g.bool().optional(), top_level_only: g.bool().optional(), ...paginationParams });
const idParams = params({ id: g.string() });
const existsParams = params({ id: g.string(), parent_id: g.int().optional() });

/** Entities::NamespaceExistence-like body of GET /namespaces/:id/exists. */
const NamespaceExistenceSchema = obj({ exists: z.boolean(), suggests: z.array(z.string()) }).meta({ id: 'NamespaceExistence' });

/**
 * A namespace row with the caller's level in it and its distinct member count (Namespace#members
 * count over the group's hierarchy, shown to owners and administrators) as columns of the same
 * statement, so a page needs no read per row.
 */
function namespaceWithFacts(caller: Caller) {
  const path = sql.raw('"namespaces"."traversal_path"');
  return {
    ns: namespaces,
    level: (caller.user ? groupLevelSql(caller.user.id) : sql<number>`0`).as('level'),
    membersCount: sql<number>`CASE WHEN ${sql.raw('"namespaces"."kind"')} = 'Group' THEN (SELECT count(DISTINCT m.user_id) FROM members m JOIN namespaces d ON d.id = m.source_id WHERE m.source_type = 'Namespace' AND d.traversal_path >= ${path} AND d.traversal_path < ${path} || ':') END`.as('members_count'),
  };
}
type NamespaceWithFacts = { ns: NamespaceRow; level: number; membersCount: number | null };

/** The owners of personal namespaces among those `nsIds` selects (for their avatars). */
const ownersOf = (db: Db, nsIds: SQL) => db.select().from(users).where(sql`${users.id} IN (SELECT o.owner_id FROM namespaces o WHERE o.kind = 'User' AND o.id IN ${nsIds})`);

/** Namespace entities from rows read with `namespaceWithFacts` and their owners; no storage access. */
function present(c: Context<AppEnv>, caller: Caller, rows: NamespaceWithFacts[], owners: UserRow[]): Namespace[] {
  const base = baseUrl(c);
  const ownerById = new Map(owners.map((u) => [u.id, u]));
  return rows.map(({ ns, level, membersCount }) => {
    const owner = ns.kind === 'User' && ns.ownerId ? ownerById.get(ns.ownerId) : undefined;
    const showCount = ns.kind === 'Group' && (caller.isAdmin || Number(level) >= ACCESS.OWNER);
    return namespaceEntity(ns, { base, userAvatar: owner ? avatarUrl(owner, base) : null, membersCount: showCount ? Number(membersCount ?? 0) : undefined });
  });
}

/** Namespaces the caller may see here: their own personal one and groups they belong to (admins: all). */
function visibleSql(caller: Caller): SQL | undefined {
  if (caller.isAdmin) return undefined;
  const uid = caller.user!.id;
  return sql`((${namespaces.kind} = 'User' AND ${namespaces.ownerId} = ${uid}) OR (${namespaces.kind} = 'Group' AND ${groupLevelSql(uid)} > 0))`;
}

export function mountNamespaces(r: Router) {
  r.route({ method: 'GET', path: '/namespaces', summary: 'List namespaces', tags: ['namespaces'], params: listParams, responses: { 200: z.array(NamespaceSchema) } }, async ({ c, p, caller }) => {
    const raw = await requestParams(c);
    const conds: (SQL | undefined)[] = [visibleSql(caller)];
    if (p.search) {
      const q = `%${p.search.replace(/[%_\\]/g, '\\$&')}%`;
      conds.push(sql`(${namespaces.name} LIKE ${q} ESCAPE '\\' OR ${namespaces.path} LIKE ${q} ESCAPE '\\')`);
    }
    if (p.owned_only && caller.user)
      conds.push(sql`((${namespaces.kind} = 'User' AND ${namespaces.ownerId} = ${caller.user.id}) OR (${namespaces.kind} = 'Group' AND ${groupLevelSql(caller.user.id)} >= 50))`);
    if (p.top_level_only) conds.push(sql`${namespaces.parentId} IS NULL`);
    const where = and(...conds);
    const db = c.var.db;
    const req = pageRequest(p, raw.per_page);
    const pageIds = db.select({ id: namespaces.id }).from(namespaces).where(where).orderBy(asc(namespaces.id)).limit(req.perPage).offset(req.offset);
    // The page (with each row's level and member count), its count and the page's owners: one round trip.
    const { rows, reads } = await paginateWith(
      c,
      req,
      linkParamsFrom(raw, {}),
      (limit, offset) => db.select(namespaceWithFacts(caller)).from(namespaces).where(where).orderBy(asc(namespaces.id)).limit(limit).offset(offset),
      (limit) => countUpToQuery(db, namespaces, where, limit),
      [ownersOf(db, sql`(${pageIds})`)],
      () => undefined,
    );
    return c.json(present(c, caller, rows, reads[0]));
  });

  r.route(
    { method: 'GET', path: '/namespaces/:id/exists', summary: 'Whether a namespace path is taken, with a free one suggested', tags: ['namespaces'], params: existsParams, responses: { 200: NamespaceExistenceSchema } },
    async ({ c, p }) => {
      const db = c.var.db;
      // namespaces.rb: the path among the parent's children (top level without parent_id), any case;
      // taken, it suggests `Namespace.clean_path(path, limited_to: those namespaces)`.
      const base = cleanPath(p.id).toLowerCase();
      const parent = p.parent_id === undefined ? sql`${namespaces.parentId} IS NULL` : eq(namespaces.parentId, p.parent_id);
      const prefixed = (col: SQL) => sql`substr(lower(${col}), 1, ${base.length}) = ${base}`;
      // Every sibling a suggestion could collide with, and the exact path, in one statement.
      const rows = await db
        .select({ path: sql<string>`lower(${namespaces.path})`, name: sql<string>`lower(${namespaces.name})` })
        .from(namespaces)
        .where(and(parent, sql`(lower(${namespaces.path}) = lower(${p.id}) OR ${prefixed(sql`${namespaces.path}`)} OR ${prefixed(sql`${namespaces.name}`)})`))
        .all();
      const exists = rows.some((r) => r.path === p.id.toLowerCase());
      return c.json({ exists, suggests: exists ? [suggestPath(cleanPath(p.id), rows)] : [] });
    },
  );

  r.route({ method: 'GET', path: '/namespaces/:id', summary: 'Get a namespace', tags: ['namespaces'], params: idParams, responses: { 200: NamespaceSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const id = decimalId(p.id);
    const where = id !== undefined ? eq(namespaces.id, id) : sql`lower(${namespaces.fullPath}) = lower(${p.id})`;
    // The namespace, the caller's level, its member count and its owner in one round trip.
    const [found, owners] = await batchReads(db, [db.select(namespaceWithFacts(caller)).from(namespaces).where(where).limit(1), ownersOf(db, sql`(SELECT w.id FROM ${namespaces} w WHERE ${id !== undefined ? sql`w.id = ${id}` : sql`lower(w.full_path) = lower(${p.id})`})`)]);
    const row = found[0];
    if (!row) throw notFound('Namespace');
    const ns = row.ns;
    // namespaces.rb: `read_namespace_via_membership` — the own personal namespace, a group the caller
    // belongs to (inherited membership counts), or an administrator. Visibility alone is not enough.
    const ok = caller.isAdmin || (ns.kind === 'User' ? ns.ownerId === caller.user!.id : Number(row.level) > 0);
    if (!ok) throw notFound('Namespace');
    return c.json(present(c, caller, [row], owners)[0]);
  });
}
