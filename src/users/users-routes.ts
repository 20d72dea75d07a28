/**
 * Users API (GitLab lib/api/users.rb; spec document 2, Users): the current user, the list and one
 * user. Creating, modifying and deleting users (user-writes-routes.ts), custom attributes
 * (custom-attributes-routes.ts) and state changes (user-state-routes.ts) are mounted from here.
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { userBasic, UserBasicSchema, userDetailsWithAdmin, UserDetailsWithAdminSchema, userEntity, UserPublicSchema, userPublic, UserSchema, userWithAdmin, UserWithAdminSchema } from './user-entity';
import { countUsers, findUserById, highestRole, highestRoleQuery, listUsers, userListWhere } from './user-queries';
import { loadUserExtras, loadUserExtrasForPage, premium, userExtrasFrom, userExtrasQueries } from './user-extras';
import { batchReads } from '../db/batch-reads';
import { users } from '../db/schema';
import { forbidden, grapeError, notFound } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { requireAdmin, requireUser } from '../platform/guards';
import { getUserParams, listUsersParams } from './users-params';
import { withoutProjectsSql } from './users';
import { settingsOf } from '../settings/settings';
import { mountUserCreate, mountUserWrites } from './user-writes-routes';
import { mountUserCustomAttributes } from './custom-attributes-routes';
import { mountUserStateActions } from './user-state-routes';

/** GET /user: UserWithAdmin for administrators, UserPublic for everyone else. */
const CurrentUser = z.union([UserWithAdminSchema, UserPublicSchema]);
/** GET /users: UserWithAdmin for administrators, UserBasic for everyone else. */
const UserList = z.array(z.union([UserWithAdminSchema, UserBasicSchema]));
/** GET /users/:id: UserDetailsWithAdmin for administrators, User for everyone else. */
const SingleUser = z.union([UserDetailsWithAdminSchema, UserSchema]);

export function mountUsers(r: Router) {
  r.route(
    { method: 'GET', path: '/user', summary: 'Get the current user', tags: ['users'], scopes: ['read_user'], responses: { 200: CurrentUser } },
    async ({ c, caller }) => {
      const user = requireUser(caller);
      // users.rb `get '/user'`: the entity follows `current_user.admin?` (not admin mode); UserWithAdmin has no IPs.
      const extras = await loadUserExtras(c.var.db, user, { base: baseUrl(c), premium: premium(c), viewerId: user.id, admin: user.isAdmin });
      return c.json(user.isAdmin ? userWithAdmin(user, extras) : userPublic(user, extras));
    },
  );

  mountUserCreate(r);
  mountUserReads(r);
  mountUserWrites(r);
  mountUserCustomAttributes(r);
  mountUserStateActions(r);
}

/** users.rb `params.except!` for callers who cannot read all resources: dropped silently, never an error. */
const ADMIN_ONLY_LIST_PARAMS = ['created_after', 'created_before', 'order_by', 'sort', 'two_factor', 'without_projects', 'saml_provider_id'] as const;

function mountUserReads(r: Router) {
  r.route(
    { method: 'GET', path: '/users', summary: 'List users', tags: ['users'], params: listUsersParams, scopes: ['read_user'], responses: { 200: UserList } },
    async ({ c, p, caller }) => {
      const raw = await requestParams(c);
      if (p.extern_uid !== undefined && p.provider !== undefined) requireAdmin(caller);
      const admin = caller.isAdmin;
      // Anonymous callers only with `username` (an exact match: 0 or 1 result), users.rb; and not at all
      // when the public visibility level is restricted (GlobalPolicy `read_users_list`).
      const publicRestricted = caller.user ? false : ((await settingsOf(c)).restricted_visibility_levels ?? []).map(String).includes('public');
      const authorized = caller.user ? true : Boolean(p.username) && !publicRestricted;
      if (!authorized) throw forbidden('Not authorized to access /api/v4/users');
      // Keyset pagination exists for projects and groups only (spec: Pagination).
      if (p.pagination === 'keyset') throw grapeError('Keyset pagination is not yet available for this type of request', 405);

      const customAttributes =
        admin && p.custom_attributes
          ? Object.entries(p.custom_attributes)
              .filter(([, v]) => v == null || typeof v !== 'object')
              .map(([k, v]): [string, string] => [k, v == null ? '' : String(v)])
          : undefined;
      const listWhere = userListWhere({
        admin,
        username: p.username,
        search: p.search || undefined,
        active: p.active,
        blocked: p.blocked,
        external: p.external,
        excludeExternal: p.exclude_external,
        excludeInternal: p.exclude_internal,
        withoutProjectBots: p.without_project_bots,
        admins: p.admins,
        twoFactor: admin && (p.two_factor === 'enabled' || p.two_factor === 'disabled') ? p.two_factor : undefined,
        createdAfter: admin ? p.created_after : undefined,
        createdBefore: admin ? p.created_before : undefined,
        externUid: p.extern_uid,
        provider: p.provider,
        customAttributes,
        // Premium, administrators only (spec: List filters); silently ignored otherwise.
        samlProviderId: admin && premium(c) ? p.saml_provider_id : undefined,
      });
      // `without_projects` (administrators only, dropped otherwise like the other admin filters).
      const where = admin && p.without_projects ? and(listWhere, withoutProjectsSql()) : listWhere;
      // users.rb `reorder_users`: order_by and sort always have their defaults (id, desc), so a
      // search keeps the list's order instead of User.search's exact-match ranking; the
      // administrator-only order_by/sort apply to it as to the whole list.
      const order = {
        orderBy: admin ? p.order_by : ('id' as const),
        sort: admin ? p.sort : ('desc' as const),
      };
      const req = pageRequest(p, raw.per_page);
      const linkParams = linkParamsFrom(raw, {
        active: false,
        external: false,
        exclude_external: false,
        blocked: false,
        without_projects: false,
        exclude_internal: false,
        without_project_bots: false,
        admins: false,
        order_by: 'id',
        sort: 'desc',
        with_custom_attributes: false,
      });
      if (!admin) for (const k of ADMIN_ONLY_LIST_PARAMS) delete linkParams[k];
      const rows = await paginate(
        c,
        req,
        linkParams,
        (limit, offset) => listUsers(c.var.db, where, order, limit, offset),
        (limit) => countUsers(c.var.db, where, limit),
      );
      const withAttrs = admin && p.with_custom_attributes;
      const extras = await loadUserExtrasForPage(c.var.db, rows, {
        base: baseUrl(c),
        premium: premium(c),
        viewerId: caller.user?.id ?? null,
        admin,
        detailed: admin,
        customAttributes: withAttrs,
      });
      return c.json(rows.map((u) => (admin ? userWithAdmin(u, extras.get(u.id)!) : userBasic(u, extras.get(u.id)!))));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id',
      summary: 'Get a single user',
      tags: ['users'],
      params: getUserParams,
      scopes: ['read_user'],
      rateLimit: 'users_get_by_id',
      responses: { 200: SingleUser },
    },
    async ({ c, p, caller }) => {
      if (!caller.user) throw forbidden('Not authorized!');
      const db = c.var.db;
      const admin = caller.isAdmin;
      const opts = { base: baseUrl(c), premium: premium(c), viewerId: caller.user.id, admin, customAttributes: admin && p.with_custom_attributes };
      // The user, its extras and (for administrators) its highest role in one round trip, by the id in the path.
      const [[user], role, ...extras] = await batchReads(db, [
        db.select().from(users).where(eq(users.id, p.id)).limit(1),
        admin ? highestRoleQuery(db, p.id) : undefined,
        ...userExtrasQueries(db, p.id, sql`(SELECT created_by_id FROM users WHERE id = ${p.id})`, opts),
      ]);
      if (!user) throw notFound('User');
      const extra = userExtrasFrom(user, opts, extras as never);
      return c.json(admin ? userDetailsWithAdmin(user, { ...extra, highestRole: Number(role?.[0]?.level ?? 0) }) : userEntity(user, extra));
    },
  );
}
