/** Project and group members (GitLab lib/api/members.rb, helpers/members_helpers.rb). */
import { and, asc, eq, inArray, not, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { findMember, type SourceType } from './member-queries';
import { findUserById, findUserByUsername } from '../users/user-queries';
import { members, namespaces, users } from '../db/schema';
import { memberEntity, MemberSchema } from './member-entity';
import { ACCESS, activeMember, MEMBER_LEVELS, traversalIds } from './abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { conflict, forbidden, notFound, recordNotFound, validationFailed } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { today } from '../platform/time';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import { addMemberParams, deleteMemberParams, listMembersParams, memberParams, updateMemberParams } from './members-params';
import { groupOwnerCount, LEVEL_NAMES } from './members';
import { findReadableGroup } from './groups';
import { findReadableProject } from './projects';
import { decimalId } from '../platform/record-id';

interface Source {
  type: SourceType;
  id: number;
  /** Caller's level in the source. */
  level: number;
  /** Group ids whose memberships are inherited (ancestors; for a group, without itself). */
  inheritedFrom: number[];
  /** The least level the caller needs to manage members (maintainer for projects, owner for groups). */
  manageLevel: number;
  /** Owner of the personal namespace holding a project. */
  personalOwnerId?: number | null;
}

async function loadSource(c: Context<AppEnv>, caller: Caller, kind: 'projects' | 'groups', id: string): Promise<Source> {
  if (kind === 'projects') {
    const pr = await findReadableProject(c, caller, id);
    return {
      type: 'Project',
      id: pr.project.id,
      level: pr.level,
      inheritedFrom: traversalIds(pr.namespace),
      manageLevel: ACCESS.MAINTAINER,
      personalOwnerId: pr.namespace.kind === 'User' ? pr.namespace.ownerId : null,
    };
  }
  const { group, level } = await findReadableGroup(c, caller, id);
  return { type: 'Namespace', id: group.id, level, inheritedFrom: traversalIds(group).filter((g) => g !== group.id), manageLevel: ACCESS.OWNER };
}

const canManage = (caller: Caller, s: Source) => caller.isAdmin || s.level >= s.manageLevel;

function memberFilters(p: { query?: string; user_ids?: number[]; skip_users?: number[] }): SQL[] {
  const out: SQL[] = [];
  if (p.query) {
    const q = `%${p.query.replace(/[%_\\]/g, '\\$&')}%`;
    out.push(or(sql`${users.name} LIKE ${q} ESCAPE '\\'`, sql`${users.username} LIKE ${q} ESCAPE '\\'`, sql`${users.email} = ${p.query}`)!);
  }
  if (p.user_ids?.length) out.push(inArray(members.userId, p.user_ids.slice(0, 90)));
  if (p.skip_users?.length) out.push(not(inArray(members.userId, p.skip_users.slice(0, 90))));
  return out;
}

async function present(c: Context<AppEnv>, rows: { member: typeof members.$inferSelect; user: UserRow }[]) {
  const base = baseUrl(c);
  const creatorIds = [...new Set(rows.map((r) => r.member.createdById).filter((x): x is number => x != null))];
  const creators = new Map<number, UserRow>();
  if (creatorIds.length) for (const u of await c.var.db.select().from(users).where(inArray(users.id, creatorIds.slice(0, 90))).all()) creators.set(u.id, u);
  return rows.map((r) => memberEntity(r.member, r.user, { base, createdBy: r.member.createdById ? creators.get(r.member.createdById) ?? null : null }));
}

/** Inherited-level rule for project members (ProjectMember validation against the group's level). */
async function inheritedMinimum(c: Context<AppEnv>, s: Source, userId: number): Promise<{ level: number; groupName: string } | null> {
  if (s.type !== 'Project' || !s.inheritedFrom.length) return null;
  const row = await c.var.db
    .select({ level: members.accessLevel, name: namespaces.name })
    .from(members)
    .innerJoin(namespaces, eq(namespaces.id, members.sourceId))
    .where(and(eq(members.userId, userId), eq(members.sourceType, 'Namespace'), inArray(members.sourceId, s.inheritedFrom), activeMember()))
    .orderBy(sql`${members.accessLevel} desc`)
    .get();
  return row ? { level: row.level, groupName: row.name } : null;
}

function mountFor(r: Router, kind: 'projects' | 'groups') {
  const tags = [kind];
  const noun = kind === 'projects' ? 'project' : 'group';

  r.route({ method: 'GET', path: `/${kind}/:id/members`, summary: `List members of a ${noun}`, tags, params: listMembersParams, responses: { 200: z.array(MemberSchema) } }, async ({ c, p, caller }) => {
    const s = await loadSource(c, caller, kind, p.id);
    const raw = await requestParams(c);
    const db = c.var.db;
    const where = and(eq(members.sourceType, s.type), eq(members.sourceId, s.id), activeMember(), ...memberFilters(p));
    const rows = await paginate(
      c,
      pageRequest(p, raw.per_page),
      linkParamsFrom(raw, {}),
      (limit, offset) => db.select({ member: members, user: users }).from(members).innerJoin(users, eq(users.id, members.userId)).where(where).orderBy(asc(members.id)).limit(limit).offset(offset),
      async (limit) => {
        const inner = db.select({ one: sql`1` }).from(members).innerJoin(users, eq(users.id, members.userId)).where(where).limit(limit);
        return Number((await db.get<{ n: number }>(sql`select count(*) as n from (${inner})`))?.n ?? 0);
      },
    );
    return c.json(await present(c, rows));
  });

  r.route({ method: 'GET', path: `/${kind}/:id/members/all`, summary: `List members of a ${noun}, inherited included`, tags, params: listMembersParams, responses: { 200: z.array(MemberSchema) } }, async ({ c, p, caller }) => {
    const s = await loadSource(c, caller, kind, p.id);
    const raw = await requestParams(c);
    const db = c.var.db;
    const sources = or(and(eq(members.sourceType, s.type), eq(members.sourceId, s.id)), s.inheritedFrom.length ? and(eq(members.sourceType, 'Namespace'), inArray(members.sourceId, s.inheritedFrom)) : undefined);
    // Each user once, at the highest of their levels (MembersFinder distinct on user_id by access_level desc).
    const best = sql`${members.id} = (SELECT m2.id FROM members m2 WHERE m2.user_id = ${members.userId} AND ((m2.source_type = ${s.type} AND m2.source_id = ${s.id})${
      s.inheritedFrom.length ? sql` OR (m2.source_type = 'Namespace' AND m2.source_id IN (${sql.join(s.inheritedFrom.map((x) => sql`${x}`), sql`, `)}))` : sql``
    }) AND (m2.expires_at IS NULL OR m2.expires_at > ${today()}) ORDER BY m2.access_level DESC, m2.id ASC LIMIT 1)`;
    const where = and(sources, activeMember(), best, ...memberFilters(p));
    const rows = await paginate(
      c,
      pageRequest(p, raw.per_page),
      linkParamsFrom(raw, {}),
      (limit, offset) => db.select({ member: members, user: users }).from(members).innerJoin(users, eq(users.id, members.userId)).where(where).orderBy(asc(members.userId)).limit(limit).offset(offset),
      async (limit) => {
        const inner = db.select({ one: sql`1` }).from(members).innerJoin(users, eq(users.id, members.userId)).where(where).limit(limit);
        return Number((await db.get<{ n: number }>(sql`select count(*) as n from (${inner})`))?.n ?? 0);
      },
    );
    return c.json(await present(c, rows));
  });

  r.route({ method: 'GET', path: `/${kind}/:id/members/:user_id`, summary: `Get a member of a ${noun}`, tags, params: memberParams, responses: { 200: MemberSchema } }, async ({ c, p, caller }) => {
    const s = await loadSource(c, caller, kind, p.id);
    const row = await findMember(c.var.db, s.type, s.id, p.user_id);
    if (!row) throw recordNotFound();
    return c.json((await present(c, [row]))[0]);
  });

  r.route({ method: 'GET', path: `/${kind}/:id/members/all/:user_id`, summary: `Get a member of a ${noun}, inherited included`, tags, params: memberParams, responses: { 200: MemberSchema } }, async ({ c, p, caller }) => {
    const s = await loadSource(c, caller, kind, p.id);
    const row = await c.var.db
      .select({ member: members, user: users })
      .from(members)
      .innerJoin(users, eq(users.id, members.userId))
      .where(
        and(
          eq(members.userId, p.user_id),
          or(and(eq(members.sourceType, s.type), eq(members.sourceId, s.id)), s.inheritedFrom.length ? and(eq(members.sourceType, 'Namespace'), inArray(members.sourceId, s.inheritedFrom)) : undefined),
          activeMember(),
        ),
      )
      .orderBy(sql`${members.accessLevel} desc`)
      .get();
    if (!row) throw recordNotFound();
    return c.json((await present(c, [row]))[0]);
  });

  r.route({ method: 'POST', path: `/${kind}/:id/members`, summary: `Add a member to a ${noun}`, tags, params: addMemberParams, responses: { 201: MemberSchema } }, async ({ c, p, caller }) => {
    const actor = requireUser(caller);
    const s = await loadSource(c, caller, kind, p.id);
    if (!canManage(caller, s)) throw forbidden();
    // Only owners (and administrators) may grant the owner role.
    if (p.access_level === ACCESS.OWNER && !caller.isAdmin && s.level < ACCESS.OWNER) throw forbidden();
    const db = c.var.db;
    // members.rb: the existing membership is checked before the user is looked up.
    const userId = p.user_id !== undefined ? decimalId(p.user_id) : undefined;
    if (userId !== undefined && (await findMember(db, s.type, s.id, userId))) throw conflict('Member already exists');
    const user = userId !== undefined ? await findUserById(db, userId) : p.username !== undefined ? await findUserByUsername(db, p.username) : undefined;
    if (!user) throw notFound('User');
    if (await findMember(db, s.type, s.id, user.id)) throw conflict('Member already exists');
    const errors: Record<string, string[]> = {};
    if (!(MEMBER_LEVELS as readonly number[]).includes(p.access_level)) errors.access_level = ['is not included in the list'];
    const inherited = await inheritedMinimum(c, s, user.id);
    if (!errors.access_level && inherited && p.access_level < inherited.level)
      errors.access_level = [`should be greater than or equal to ${LEVEL_NAMES[inherited.level]} inherited membership from group ${inherited.groupName}`];
    if (p.expires_at && p.expires_at <= today()) errors.expires_at = ['cannot be a date in the past'];
    if (Object.keys(errors).length) throw validationFailed(errors);
    const now = Date.now();
    try {
      await db.insert(members).values({ sourceType: s.type, sourceId: s.id, userId: user.id, accessLevel: p.access_level, expiresAt: p.expires_at ?? null, createdById: actor.id, createdAt: now, updatedAt: now }).run();
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('Member already exists');
      throw err;
    }
    const row = (await findMember(db, s.type, s.id, user.id))!;
    return c.json((await present(c, [row]))[0], 201);
  });

  r.route({ method: 'PUT', path: `/${kind}/:id/members/:user_id`, summary: `Edit a member of a ${noun}`, tags, params: updateMemberParams, responses: { 200: MemberSchema } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const s = await loadSource(c, caller, kind, p.id);
    if (!canManage(caller, s)) throw forbidden();
    const db = c.var.db;
    const row = await findMember(db, s.type, s.id, p.user_id);
    if (!row) throw recordNotFound();
    const ownerChange = p.access_level === ACCESS.OWNER || row.member.accessLevel === ACCESS.OWNER;
    if (ownerChange && !caller.isAdmin && s.level < ACCESS.OWNER) throw forbidden();
    // The last owner of a group cannot be demoted (Members::UpdateService → AccessDeniedError).
    if (s.type === 'Namespace' && row.member.accessLevel === ACCESS.OWNER && p.access_level < ACCESS.OWNER && (await groupOwnerCount(db, [s.id, ...s.inheritedFrom])) < 2) throw forbidden();
    const errors: Record<string, string[]> = {};
    if (!(MEMBER_LEVELS as readonly number[]).includes(p.access_level)) errors.access_level = ['is not included in the list'];
    const inherited = await inheritedMinimum(c, s, p.user_id);
    if (!errors.access_level && inherited && p.access_level < inherited.level)
      errors.access_level = [`should be greater than or equal to ${LEVEL_NAMES[inherited.level]} inherited membership from group ${inherited.groupName}`];
    if (p.expires_at && p.expires_at <= today()) errors.expires_at = ['cannot be a date in the past'];
    if (Object.keys(errors).length) throw validationFailed(errors);
    const set: Partial<typeof members.$inferInsert> = { accessLevel: p.access_level, updatedAt: Date.now() };
    if (p.expires_at !== undefined) set.expiresAt = p.expires_at;
    await db.update(members).set(set).where(eq(members.id, row.member.id)).run();
    const updated = (await findMember(db, s.type, s.id, p.user_id))!;
    return c.json((await present(c, [updated]))[0]);
  });

  r.route({ method: 'DELETE', path: `/${kind}/:id/members/:user_id`, summary: `Remove a member from a ${noun}`, tags, params: deleteMemberParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    const actor = requireUser(caller);
    const s = await loadSource(c, caller, kind, p.id);
    const db = c.var.db;
    // members.rb DELETE: the membership is found first (404), then destroy_conditionally! (412), then
    // Members::DestroyService refuses what the caller may not do (AccessDeniedError → 403). Members may leave on their own.
    const row = await findMember(db, s.type, s.id, p.user_id);
    if (!row) throw recordNotFound();
    checkUnmodifiedSince(c, row.member.updatedAt);
    if (p.user_id !== actor.id && !canManage(caller, s)) throw forbidden();
    if (row.member.accessLevel === ACCESS.OWNER && p.user_id !== actor.id && !caller.isAdmin && s.level < ACCESS.OWNER) throw forbidden();
    if (s.type === 'Namespace' && row.member.accessLevel === ACCESS.OWNER && (await groupOwnerCount(db, [s.id, ...s.inheritedFrom])) < 2) throw forbidden();
    // The owner of a personal namespace stays a member of its projects (Members::DestroyService).
    if (s.personalOwnerId === p.user_id) throw forbidden();
    await db.delete(members).where(eq(members.id, row.member.id)).run();
    return c.body(null, 204);
  });
}

export function mountMembers(r: Router) {
  mountFor(r, 'groups');
  mountFor(r, 'projects');
}
