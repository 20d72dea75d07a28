/** Namespaces API (GitLab lib/api/namespaces.rb): the caller's own and their groups' namespaces; all for administrators. */
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { findNamespaceById, findNamespaceByPath } from './group-queries';
import { namespaces, users } from '../db/schema';
import { type Namespace, namespaceEntity, NamespaceSchema } from './namespace-entity';
import { avatarUrl } from '../users/user-entity';
import { ACCESS, groupAccess, groupLevelSql, type NamespaceRow } from './abilities';
import { notFound } from '../platform/errors';
import { baseUrl, countUpTo, countUpToQuery, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { paginationParams } from '../platform/pagination';
import { decimalId } from '../platform/record-id';

const listParams = params({ search: g.search().optional(), owned_only: g.bool().optional(), top_level_only: g.bool().optional(), ...paginationParams });
const idParams = params({ id: g.string() });

async function present(c: Context<AppEnv>, caller: Caller, rows: NamespaceRow[]) {
  const base = baseUrl(c);
  const out: Namespace[] = [];
  for (const ns of rows) {
    let userAvatar: string | null = null;
    if (ns.kind === 'User' && ns.ownerId) {
      const u = await c.var.db.select().from(users).where(eq(users.id, ns.ownerId)).get();
      userAvatar = u ? avatarUrl(u, base) : null;
    }
    let membersCount: number | undefined;
    if (ns.kind === 'Group' && (caller.isAdmin || (await groupAccess(c.var.db, caller.user, ns)) >= ACCESS.OWNER)) {
      const row = await c.var.db.get<{ n: number }>(
        sql`SELECT count(DISTINCT m.user_id) AS n FROM members m JOIN namespaces d ON d.id = m.source_id WHERE m.source_type = 'Namespace' AND d.traversal_path >= ${ns.traversalPath} AND d.traversal_path < ${ns.traversalPath + ':'}`,
      );
      membersCount = Number(row?.n ?? 0);
    }
    out.push(namespaceEntity(ns, { base, userAvatar, membersCount }));
  }
  return out;
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
    const rows = await paginate(
      c,
      pageRequest(p, raw.per_page),
      linkParamsFrom(raw, {}),
      (limit, offset) => db.select().from(namespaces).where(where).orderBy(asc(namespaces.id)).limit(limit).offset(offset),
      (limit) => countUpToQuery(db, namespaces, where, limit),
    );
    return c.json(await present(c, caller, rows));
  });

  r.route({ method: 'GET', path: '/namespaces/:id', summary: 'Get a namespace', tags: ['namespaces'], params: idParams, responses: { 200: NamespaceSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const id = decimalId(p.id);
    const ns = id !== undefined ? await findNamespaceById(db, id) : await findNamespaceByPath(db, p.id);
    if (!ns) throw notFound('Namespace');
    // namespaces.rb: `read_namespace_via_membership` — the own personal namespace, a group the caller
    // belongs to (inherited membership counts), or an administrator. Visibility alone is not enough.
    const ok = caller.isAdmin || (ns.kind === 'User' ? ns.ownerId === caller.user!.id : (await groupAccess(db, caller.user, ns)) > 0);
    if (!ok) throw notFound('Namespace');
    return c.json((await present(c, caller, [ns]))[0]);
  });
}
