/** Protected tags (lib/api/protected_tags.rb): list, get, protect (with `create_access_level`) and unprotect; maintainers only. */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { protectedTagCreateAccessLevels, protectedTags } from '../db/schema';
import { writeThenRead } from '../db/batch-reads';
import type { Caller } from '../platform/context';
import { ApiError, forbidden, recordNotFound } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { linkParamsFrom, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { ACCESS } from '../projects/abilities';
import { ROLE_LEVELS } from './protected-branches';
import { protectedTagReads, withCreateLevels } from './protected-tags';
import { readableRepoWith } from './repository-support';
import { protectedTagEntity, ProtectedTagSchema } from './tags-entity';

const TAGS = ['protected_tags'];

/** `authorize_admin_project`: maintainers and administrators. */
const adminProject = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.MAINTAINER;

export function mountProtectedTags(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/protected_tags', summary: "Get a project's protected tags", tags: TAGS, params: params({ id: g.string(), ...paginationParams }), responses: { 200: z.array(ProtectedTagSchema) } },
    async ({ c, p, caller }) => {
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const found = await readableRepoWith(c, caller, p.id, (pid) => protectedTagReads(c.var.db, pid));
      if (!adminProject(caller, found.level)) throw forbidden();
      const all = withCreateLevels(...found.reads);
      const page = all.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), all.length, page.length);
      return c.json(page.map((pt) => protectedTagEntity(pt, new Map())));
    },
  );

  const byName = params({ id: g.string(), name: g.string() });
  r.route({ method: 'GET', path: '/projects/:id/protected_tags/:name', summary: 'Get a single protected tag', tags: TAGS, params: byName, responses: { 200: ProtectedTagSchema } }, async ({ c, p, caller }) => {
    const found = await readableRepoWith(c, caller, p.id, (pid) => protectedTagReads(c.var.db, pid));
    if (!adminProject(caller, found.level)) throw forbidden();
    // `find_by!(name:)`: the exact name, a wildcard only by its own spelling.
    const pt = withCreateLevels(...found.reads).find((t) => t.name === p.name);
    if (!pt) throw recordNotFound();
    return c.json(protectedTagEntity(pt, new Map()));
  });

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/protected_tags',
      summary: 'Protect a single tag or wildcard',
      tags: TAGS,
      params: params({ id: g.string(), name: g.string(), create_access_level: g.intEnum(ROLE_LEVELS).optional() }),
      responses: { 201: ProtectedTagSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const db = c.var.db;
      const found = await readableRepoWith(c, caller, p.id, (pid) => [db.select({ id: protectedTags.id }).from(protectedTags).where(and(sql`${protectedTags.projectId} = ${pid}`, eq(protectedTags.name, p.name))).limit(1)] as const);
      if (!adminProject(caller, found.level)) throw forbidden();
      // ProtectedTag validations: a name, unique in the project.
      const taken = () => new ApiError(422, { message: ['Name has already been taken'] });
      if (!p.name.trim()) throw new ApiError(422, { message: ["Name can't be blank"] });
      if (found.reads[0].length) throw taken();
      const pid = found.project.id;
      const now = Date.now();
      let reads;
      try {
        // The rule and its create level (Maintainers unless asked otherwise) in one batch, read back with it.
        reads = await writeThenRead(
          db,
          [
            db.insert(protectedTags).values({ projectId: pid, name: p.name, createdAt: now, updatedAt: now }),
            db.insert(protectedTagCreateAccessLevels).select(
              db
                .select({
                  id: sql<number>`NULL`.as('id'),
                  protectedTagId: protectedTags.id,
                  accessLevel: sql<number>`${p.create_access_level ?? ACCESS.MAINTAINER}`.as('access_level'),
                  userId: sql<number>`NULL`.as('user_id'),
                })
                .from(protectedTags)
                .where(and(eq(protectedTags.projectId, pid), eq(protectedTags.name, p.name))),
            ),
          ],
          protectedTagReads(db, sql`${pid}`),
        );
      } catch (err) {
        if (/UNIQUE constraint failed/i.test(String((err as Error).message) + String((err as { cause?: Error }).cause?.message))) throw taken();
        throw err;
      }
      const pt = withCreateLevels(...reads).find((t) => t.name === p.name)!;
      return c.json(protectedTagEntity(pt, new Map()), 201);
    },
  );

  r.route({ method: 'DELETE', path: '/projects/:id/protected_tags/:name', summary: 'Unprotect a single tag', tags: TAGS, params: byName, responses: { 204: null } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const db = c.var.db;
    const found = await readableRepoWith(c, caller, p.id, (pid) => [db.select({ id: protectedTags.id }).from(protectedTags).where(and(sql`${protectedTags.projectId} = ${pid}`, eq(protectedTags.name, p.name))).limit(1)] as const);
    if (!adminProject(caller, found.level)) throw forbidden();
    const [pt] = found.reads[0];
    if (!pt) throw recordNotFound();
    await db.batch([db.delete(protectedTagCreateAccessLevels).where(eq(protectedTagCreateAccessLevels.protectedTagId, pt.id)), db.delete(protectedTags).where(eq(protectedTags.id, pt.id))]);
    return c.body(null, 204);
  });
}
