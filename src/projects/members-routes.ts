/** Project and group members (GitLab lib/api/members.rb, helpers/members_helpers.rb). */
import { and, asc, eq, inArray, not, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { SourceType } from './member-queries';
import { members, users } from '../db/schema';
import type { BatchItem } from 'drizzle-orm/batch';
import { writeThenRead } from '../db/batch-reads';
import { allMemberCount, allMemberSelect, groupOwnersRead, inheritedMembershipRead, memberCount, type MemberWithCreator, memberSelect, ownMemberships, sourceRef, type SourceRef } from './member-reads';
import { memberEntity, MemberSchema } from './member-entity';
import { ACCESS, activeMember, MEMBER_LEVELS } from './abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { conflict, forbidden, notFound, recordNotFound, validationFailed } from '../platform/errors';
import { baseUrl, linkParamsFrom, MAX_COUNT, type PageRequest, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { today } from '../platform/time';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import { addMemberParams, deleteMemberParams, listMembersParams, memberParams, updateMemberParams } from './members-params';
import { LEVEL_NAMES } from './members';
import { findReadableGroupWith } from './groups';
import { findReadableProjectWith } from './projects';
import { decimalId } from '../platform/record-id';
import { refreshShareGrants } from './share-grants';
import type { Db } from '../db/client';

interface Source {
  type: SourceType;
  id: number;
  /** Caller's level in the source. */
  level: number;
  /** The least level the caller needs to manage members (maintainer for projects, owner for groups). */
  manageLevel: number;
  /** Owner of the personal namespace holding a project. */
  personalOwnerId?: number | null;
}

type Reads<R extends readonly BatchItem<'sqlite'>[]> = { [K in keyof R]: R[K] extends BatchItem<'sqlite'> ? Awaited<R[K]> : never };

/**
 * The project or group (404 when the caller may not read it) and, in the same round trip, the
 * member reads of `reads`, which name it by `ref` (member-reads.ts).
 */
async function loadSourceWith<const R extends readonly BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  caller: Caller,
  kind: 'projects' | 'groups',
  id: string,
  reads: (ref: SourceRef) => R,
): Promise<Source & { reads: Reads<R> }> {
  const ref = sourceRef(kind, id);
  if (kind === 'projects') {
    const pr = await findReadableProjectWith(c, caller, id, () => reads(ref));
    return {
      type: 'Project',
      id: pr.project.id,
      level: pr.level,
      manageLevel: ACCESS.MAINTAINER,
      personalOwnerId: pr.namespace.kind === 'User' ? pr.namespace.ownerId : null,
      reads: pr.reads as Reads<R>,
    };
  }
  const { group, level, reads: got } = await findReadableGroupWith(c, caller, id, () => reads(ref));
  return { type: 'Namespace', id: group.id, level, manageLevel: ACCESS.OWNER, reads: got as Reads<R> };
}

const loadSource = (c: Context<AppEnv>, caller: Caller, kind: 'projects' | 'groups', id: string): Promise<Source> => loadSourceWith(c, caller, kind, id, () => [] as const);

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

function present(c: Context<AppEnv>, rows: MemberWithCreator[]) {
  const base = baseUrl(c);
  // The creator carries only the UserBasic columns (member-reads.ts), all that `created_by` shows.
  return rows.map((r) => memberEntity(r.member, r.user, { base, createdBy: r.creator.id != null ? (r.creator as unknown as UserRow) : null }));
}

/** `members/all` rows: the membership shown at the level `allMemberSelect` computed for its user. */
const presentAll = (c: Context<AppEnv>, rows: (MemberWithCreator & { level: number })[]) =>
  present(c, rows.map((r) => ({ ...r, member: { ...r.member, accessLevel: Number(r.level) } })));

/** Sets a members page's headers from the count read beside it. */
function pageHeaders(c: Context<AppEnv>, req: PageRequest, raw: Record<string, unknown>, counted: { n: number }[], rows: number) {
  const n = Number(counted[0]?.n ?? 0);
  setPaginationHeaders(c, req, linkParamsFrom(raw, {}), n > MAX_COUNT ? null : n, rows);
}

const inheritedError = (inherited: { level: number; groupName: string } | undefined, level: number) =>
  inherited && level < inherited.level ? [`should be greater than or equal to ${LEVEL_NAMES[inherited.level]} inherited membership from group ${inherited.groupName}`] : undefined;

function mountFor(r: Router, kind: 'projects' | 'groups') {
  const tags = [kind];
  const noun = kind === 'projects' ? 'project' : 'group';

  r.route({ method: 'GET', path: `/${kind}/:id/members`, summary: `List members of a ${noun}`, tags, params: listMembersParams, responses: { 200: z.array(MemberSchema) } }, async ({ c, p, caller }) => {
    const raw = await requestParams(c);
    const req = pageRequest(p, raw.per_page);
    const db = c.var.db;
    // The source, its page of members (with their creators) and the count: one round trip.
    const s = await loadSourceWith(c, caller, kind, p.id, (ref) => {
      const where = and(ownMemberships(ref), activeMember(), ...memberFilters(p));
      return [memberSelect(db).where(where).orderBy(asc(members.id)).limit(req.perPage).offset(req.offset), memberCount(db, where, MAX_COUNT + 1)] as const;
    });
    const [rows, counted] = s.reads;
    pageHeaders(c, req, raw, counted, rows.length);
    return c.json(present(c, rows as MemberWithCreator[]));
  });

  r.route({ method: 'GET', path: `/${kind}/:id/members/all`, summary: `List members of a ${noun}, inherited included`, tags, params: listMembersParams, responses: { 200: z.array(MemberSchema) } }, async ({ c, p, caller }) => {
    const raw = await requestParams(c);
    const req = pageRequest(p, raw.per_page);
    const db = c.var.db;
    // Members, inherited and through shares, each user once (member-reads.ts bestMemberships): one round trip with the source.
    const s = await loadSourceWith(c, caller, kind, p.id, (ref) => {
      const where = and(...memberFilters(p));
      return [allMemberSelect(db, ref, caller).where(where).orderBy(asc(members.userId)).limit(req.perPage).offset(req.offset), allMemberCount(db, ref, caller, where, MAX_COUNT + 1)] as const;
    });
    const [rows, counted] = s.reads;
    pageHeaders(c, req, raw, counted, rows.length);
    return c.json(presentAll(c, rows));
  });

  r.route({ method: 'GET', path: `/${kind}/:id/members/:user_id`, summary: `Get a member of a ${noun}`, tags, params: memberParams, responses: { 200: MemberSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const s = await loadSourceWith(c, caller, kind, p.id, (ref) => [memberSelect(db).where(and(ownMemberships(ref), eq(members.userId, p.user_id))).limit(1)] as const);
    const row = s.reads[0][0];
    if (!row) throw recordNotFound();
    return c.json(present(c, [row as MemberWithCreator])[0]);
  });

  r.route({ method: 'GET', path: `/${kind}/:id/members/all/:user_id`, summary: `Get a member of a ${noun}, inherited included`, tags, params: memberParams, responses: { 200: MemberSchema } }, async ({ c, p, caller }) => {
    const db = c.var.db;
    // members.rb: `find_all_members(source).find_by!(user_id:)`, shares included.
    const s = await loadSourceWith(c, caller, kind, p.id, (ref) => [allMemberSelect(db, ref, caller).where(eq(members.userId, p.user_id)).limit(1)] as const);
    const row = s.reads[0][0];
    if (!row) throw recordNotFound();
    return c.json(presentAll(c, [row])[0]);
  });

  r.route({ method: 'POST', path: `/${kind}/:id/members`, summary: `Add a member to a ${noun}`, tags, params: addMemberParams, responses: { 201: MemberSchema } }, async ({ c, p, caller }) => {
    const actor = requireUser(caller);
    const db = c.var.db;
    const userId = p.user_id !== undefined ? decimalId(p.user_id) : undefined;
    // The user as SQL (by id or username), so its lookup, its membership and its inherited level ride
    // in the source's round trip.
    const userRef = userId !== undefined ? sql`${userId}` : p.username !== undefined ? sql`(SELECT u.id FROM users u WHERE lower(u.username) = lower(${p.username}))` : sql`NULL`;
    const s = await loadSourceWith(c, caller, kind, p.id, (ref) => [
      db.select().from(users).where(sql`${users.id} = ${userRef}`).limit(1),
      memberSelect(db).where(and(ownMemberships(ref), sql`${members.userId} = ${userRef}`)).limit(1),
      inheritedMembershipRead(db, ref, userRef),
    ] as const);
    if (!canManage(caller, s)) throw forbidden();
    // Only owners (and administrators) may grant the owner role.
    if (p.access_level === ACCESS.OWNER && !caller.isAdmin && s.level < ACCESS.OWNER) throw forbidden();
    const [[user], [existing], [inherited]] = s.reads;
    // members.rb: the existing membership is checked before the user is looked up (a membership has its user).
    if (existing) throw conflict('Member already exists');
    if (!user) throw notFound('User');
    const errors: Record<string, string[]> = {};
    if (!(MEMBER_LEVELS as readonly number[]).includes(p.access_level)) errors.access_level = ['is not included in the list'];
    const below = s.type === 'Project' ? inheritedError(inherited, p.access_level) : undefined;
    if (!errors.access_level && below) errors.access_level = below;
    if (p.expires_at && p.expires_at <= today()) errors.expires_at = ['cannot be a date in the past'];
    if (Object.keys(errors).length) throw validationFailed(errors);
    const now = Date.now();
    let added;
    try {
      // The membership and its answer in one batch.
      [added] = await writeThenRead(
        db,
        [
          db.insert(members).values({ sourceType: s.type, sourceId: s.id, userId: user.id, accessLevel: p.access_level, expiresAt: p.expires_at ?? null, createdById: actor.id, createdAt: now, updatedAt: now }),
          // A group membership is also access to what is shared with the group (share-grants.ts).
          ...groupShareRefresh(db, s.type, user.id),
        ],
        [memberSelect(db).where(and(eq(members.sourceType, s.type), eq(members.sourceId, s.id), eq(members.userId, user.id))).limit(1)],
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('Member already exists');
      throw err;
    }
    return c.json(present(c, added as MemberWithCreator[])[0], 201);
  });

  r.route({ method: 'PUT', path: `/${kind}/:id/members/:user_id`, summary: `Edit a member of a ${noun}`, tags, params: updateMemberParams, responses: { 200: MemberSchema } }, async ({ c, p, caller }) => {
    requireUser(caller);
    const db = c.var.db;
    // The source, the membership, the group's owners and the user's inherited level: one round trip.
    const s = await loadSourceWith(c, caller, kind, p.id, (ref) => [
      memberSelect(db).where(and(ownMemberships(ref), eq(members.userId, p.user_id))).limit(1),
      groupOwnersRead(db, ref),
      inheritedMembershipRead(db, ref, sql`${p.user_id}`),
    ] as const);
    if (!canManage(caller, s)) throw forbidden();
    const [[row], owners, [inherited]] = s.reads;
    if (!row) throw recordNotFound();
    const ownerChange = p.access_level === ACCESS.OWNER || row.member.accessLevel === ACCESS.OWNER;
    if (ownerChange && !caller.isAdmin && s.level < ACCESS.OWNER) throw forbidden();
    // The last owner of a group cannot be demoted (Members::UpdateService → AccessDeniedError).
    if (s.type === 'Namespace' && row.member.accessLevel === ACCESS.OWNER && p.access_level < ACCESS.OWNER && owners.length < 2) throw forbidden();
    const errors: Record<string, string[]> = {};
    if (!(MEMBER_LEVELS as readonly number[]).includes(p.access_level)) errors.access_level = ['is not included in the list'];
    const below = s.type === 'Project' ? inheritedError(inherited, p.access_level) : undefined;
    if (!errors.access_level && below) errors.access_level = below;
    if (p.expires_at && p.expires_at <= today()) errors.expires_at = ['cannot be a date in the past'];
    if (Object.keys(errors).length) throw validationFailed(errors);
    const set: Partial<typeof members.$inferInsert> = { accessLevel: p.access_level, updatedAt: Date.now() };
    if (p.expires_at !== undefined) set.expiresAt = p.expires_at;
    // The update and its answer in one batch.
    const [updated] = await writeThenRead(
      db,
      [db.update(members).set(set).where(eq(members.id, row.member.id)), ...groupShareRefresh(db, s.type, p.user_id)],
      [memberSelect(db).where(eq(members.id, row.member.id)).limit(1)],
    );
    return c.json(present(c, updated as MemberWithCreator[])[0]);
  });

  r.route({ method: 'DELETE', path: `/${kind}/:id/members/:user_id`, summary: `Remove a member from a ${noun}`, tags, params: deleteMemberParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    const actor = requireUser(caller);
    const db = c.var.db;
    const s = await loadSourceWith(c, caller, kind, p.id, (ref) => [
      db.select().from(members).where(and(ownMemberships(ref), eq(members.userId, p.user_id), sql`EXISTS (SELECT 1 FROM users mu WHERE mu.id = ${members.userId})`)).limit(1),
      groupOwnersRead(db, ref),
    ] as const);
    const [[member], owners] = s.reads;
    // members.rb DELETE: the membership is found first (404), then destroy_conditionally! (412), then
    // Members::DestroyService refuses what the caller may not do (AccessDeniedError → 403). Members may leave on their own.
    if (!member) throw recordNotFound();
    checkUnmodifiedSince(c, member.updatedAt);
    if (p.user_id !== actor.id && !canManage(caller, s)) throw forbidden();
    if (member.accessLevel === ACCESS.OWNER && p.user_id !== actor.id && !caller.isAdmin && s.level < ACCESS.OWNER) throw forbidden();
    if (s.type === 'Namespace' && member.accessLevel === ACCESS.OWNER && owners.length < 2) throw forbidden();
    // The owner of a personal namespace stays a member of its projects (Members::DestroyService).
    if (s.personalOwnerId === p.user_id) throw forbidden();
    await db.batch([db.delete(members).where(eq(members.id, member.id)), ...groupShareRefresh(db, s.type, p.user_id)]);
    return c.body(null, 204);
  });
}

/** The user's share grants again after a change to their membership of a group (shares never hang off project memberships). */
const groupShareRefresh = (db: Db, type: string, userId: number) => (type === 'Namespace' ? refreshShareGrants(db, { userIds: [userId] }) : []);

export function mountMembers(r: Router) {
  mountFor(r, 'groups');
  mountFor(r, 'projects');
}
