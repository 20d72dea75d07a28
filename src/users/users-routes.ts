/** Users API (GitLab lib/api/users.rb; spec document 2, Users). */
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { userBasic, userDetailsWithAdmin, userEntity, userPublic, userWithAdmin } from './user-entity';
import { countUsers, findUserById, findUserByUsername, highestRole, listUsers, userListWhere } from './user-queries';
import { loadUserExtras, loadUserExtrasForPage } from './user-extras';
import { identities, namespaces, userCustomAttributes, users } from '../db/schema';
import { checkUnmodifiedSince } from '../platform/conditional';
import { hashPassword, randomToken } from '../platform/crypto';
import { ApiError, conflict, forbidden, grapeError, notFound, recordNotFound, validationFailed } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireAdmin, requireUser } from '../platform/guards';
import {
  createUserParams,
  customAttributeKeyParams,
  deleteIdentityParams,
  deleteUserParams,
  getUserParams,
  listUsersParams,
  putCustomAttributeParams,
  updateUserParams,
  userIdParams,
} from './users-params';
import {
  actorStamp,
  avatarErrors,
  checkUserConflicts,
  findOrCreateGhost,
  identityInsert,
  isBlockedState,
  isInternalUser,
  personalNamespaceInsert,
  soleOwnedGroupCount,
  storeAvatar,
  upsertCustomAttribute,
  validateUserFields,
  withoutProjectsSql,
} from './users';
import { settingsOf } from '../settings/settings';
import { asBatch, cascade, deleteBlobs } from '../platform/cascade';

export function mountUsers(r: Router) {
  r.route(
    { method: 'GET', path: '/user', summary: 'Get the current user', tags: ['users'], scopes: ['read_user'] },
    async ({ c, caller }) => {
      const user = requireUser(caller);
      // users.rb `get '/user'`: the entity follows `current_user.admin?` (not admin mode); UserWithAdmin has no IPs.
      const extras = await loadUserExtras(c.var.db, user, { base: baseUrl(c), premium: premium(c), viewerId: user.id, admin: user.isAdmin });
      return c.json(user.isAdmin ? userWithAdmin(user, extras) : userPublic(user, extras));
    },
  );

  r.route(
    { method: 'POST', path: '/users', summary: 'Create a user (administrators)', tags: ['users'], params: createUserParams, status: 201 },
    async ({ c, p, caller }) => {
      const admin = requireAdmin(caller);
      const settings = await settingsOf(c);
      const randomPassword = p.reset_password || p.force_random_password;
      // reset_password and force_random_password take priority over password (spec: Create user).
      const password = randomPassword ? randomToken(24) : p.password;
      // Duplicate email wins over every other validation error (users.rb checks conflicts on a failed save).
      await checkUserConflicts(c.var.db, { email: p.email });
      validateUserFields({ ...p, password: randomPassword ? undefined : p.password }, settings);
      if (p.avatar && avatarErrors(p.avatar).length) throw validationFailed({ avatar: avatarErrors(p.avatar) });
      await checkUserConflicts(c.var.db, { username: p.username });

      const now = Date.now();
      const external = p.external ?? Boolean(settings.user_default_external);
      const insertUser = c.var.db.insert(users).values({
        email: p.email,
        name: p.name,
        username: p.username,
        isAdmin: p.admin ?? false,
        external,
        // `null` or omitted → the instance default (spec: "null converted to false").
        privateProfile: p.private_profile ?? Boolean(settings.user_defaults_to_private_profile),
        bio: p.bio ?? '',
        location: p.location ?? null,
        publicEmail: p.public_email ?? null,
        commitEmail: p.commit_email ?? null,
        skype: p.skype ?? '',
        linkedin: p.linkedin ?? '',
        twitter: p.twitter ?? '',
        discord: p.discord ?? '',
        websiteUrl: p.website_url ?? '',
        organization: p.organization ?? null,
        jobTitle: p.job_title ?? '',
        pronouns: p.pronouns ?? null,
        note: p.note ?? null,
        themeId: p.theme_id ?? 3,
        colorSchemeId: p.color_scheme_id ?? 1,
        // User#ensure_user_rights_and_limits: external users can create neither projects nor groups.
        projectsLimit: external ? 0 : p.projects_limit ?? Number(settings.default_projects_limit),
        canCreateGroup: external ? false : p.can_create_group ?? true,
        passwordDigest: await hashPassword(password!, c.var.config.passwordIterations),
        passwordAutomaticallySet: Boolean(randomPassword),
        confirmedAt: p.skip_confirmation ? now : null,
        createdById: admin.id,
        viewDiffsFileByFile: p.view_diffs_file_by_file ?? false,
        sharedRunnersMinutesLimit: p.shared_runners_minutes_limit ?? null,
        extraSharedRunnersMinutesLimit: p.extra_shared_runners_minutes_limit ?? null,
        createdAt: now,
        updatedAt: now,
      });
      const ns = personalNamespaceInsert(c.var.db, p.username, p.name, now);
      try {
        if (p.provider && p.extern_uid) await c.var.db.batch([insertUser, ns, identityInsert(c.var.db, p.username, p.provider, p.extern_uid, now)]);
        else await c.var.db.batch([insertUser, ns]);
      } catch (err) {
        // A concurrent create won the race for the same email or username.
        if (isUniqueViolation(err, 'email')) throw conflict('Email has already been taken');
        if (isUniqueViolation(err, 'identities')) throw conflict('Identity has already been taken');
        if (isUniqueViolation(err)) throw conflict('Username has already been taken');
        throw err;
      }
      let created = (await findUserByUsername(c.var.db, p.username))!;
      if (p.avatar) {
        // The avatar's path carries the user id, known only once the user exists.
        const avatarPath = await storeAvatar(c.var.blobs, created.id, p.avatar);
        await c.var.db.update(users).set({ avatarPath }).where(eq(users.id, created.id)).run();
        created = { ...created, avatarPath };
      }
      const extras = await loadUserExtras(c.var.db, created, { base: baseUrl(c), premium: premium(c), viewerId: admin.id, admin: true });
      return c.json(userWithAdmin(created, extras), 201);
    },
  );

  mountUserReads(r);
  mountUserWrites(r);
  mountUserCustomAttributes(r);
  mountUserStateActions(r);
}

/** users.rb `params.except!` for callers who cannot read all resources: dropped silently, never an error. */
const ADMIN_ONLY_LIST_PARAMS = ['created_after', 'created_before', 'order_by', 'sort', 'two_factor', 'without_projects', 'saml_provider_id'] as const;

function mountUserReads(r: Router) {
  r.route(
    { method: 'GET', path: '/users', summary: 'List users', tags: ['users'], params: listUsersParams, scopes: ['read_user'] },
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
      // Search ranks exact matches first (User.search); an administrator's explicit order_by wins (users.rb reorder_users).
      const explicitOrder = admin && raw.order_by !== undefined;
      const order = {
        orderBy: admin ? p.order_by : ('id' as const),
        sort: admin ? p.sort : ('desc' as const),
        searchRank: p.search && !explicitOrder ? p.search : undefined,
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
    },
    async ({ c, p, caller }) => {
      if (!caller.user) throw forbidden('Not authorized!');
      const user = await findUserById(c.var.db, p.id);
      if (!user) throw notFound('User');
      const admin = caller.isAdmin;
      const extras = await loadUserExtras(c.var.db, user, {
        base: baseUrl(c),
        premium: premium(c),
        viewerId: caller.user.id,
        admin,
        customAttributes: admin && p.with_custom_attributes,
      });
      return c.json(admin ? userDetailsWithAdmin(user, { ...extras, highestRole: await highestRole(c.var.db, user.id) }) : userEntity(user, extras));
    },
  );
}

/** String attributes of PUT /users/:id whose column is NOT NULL: an explicit `null` stores ''. */
const NOT_NULL_STRINGS = new Set(['bio', 'skype', 'linkedin', 'twitter', 'discord', 'website_url', 'job_title']);

function mountUserWrites(r: Router) {
  r.route(
    { method: 'PUT', path: '/users/:id', summary: 'Modify a user (administrators)', tags: ['users'], params: updateUserParams },
    async ({ c, p, caller }) => {
      const admin = requireAdmin(caller);
      const raw = await requestParams(c);
      const db = c.var.db;
      const user = await findUserById(db, p.id);
      if (!user) throw notFound('User');
      // Spec (Modify user): conflicts answer 404 where 409 would fit; checked before validation (users.rb).
      await asSpecNotFound(checkUserConflicts(db, { email: p.email, username: p.username }, user.id));
      const settings = await settingsOf(c);
      validateUserFields(
        {
          email: p.email,
          name: p.name,
          username: p.username,
          password: p.password,
          bio: p.bio,
          projects_limit: p.projects_limit,
          theme_id: p.theme_id,
          color_scheme_id: p.color_scheme_id,
          website_url: p.website_url,
          note: p.note,
          public_email: p.public_email,
          commit_email: p.commit_email,
          skype: p.skype,
          linkedin: p.linkedin,
          twitter: p.twitter,
          discord: p.discord,
          location: p.location,
          organization: p.organization,
          job_title: p.job_title,
          pronouns: p.pronouns,
        },
        settings,
      );
      if (p.avatar && avatarErrors(p.avatar).length) throw validationFailed({ avatar: avatarErrors(p.avatar) });
      // public_email must be an address the user owns and has verified (spec: "must be already verified").
      if (p.public_email && p.public_email.toLowerCase() !== user.email.toLowerCase()) {
        throw validationFailed({ public_email: ['is not an email you own'] });
      }
      if (p.provider !== undefined && p.extern_uid !== undefined) {
        const taken = await db
          .select({ userId: identities.userId })
          .from(identities)
          .where(and(eq(identities.provider, p.provider), sql`lower(${identities.externUid}) = lower(${p.extern_uid})`, ne(identities.userId, user.id)))
          .get();
        if (taken) throw validationFailed({ 'identities.extern_uid': ['has already been taken'] });
      }

      const now = Date.now();
      const set: Partial<typeof users.$inferInsert> = { updatedAt: now };
      const str = (key: keyof typeof p & string): string | null | undefined => {
        if (raw[key] === null) return NOT_NULL_STRINGS.has(key) ? '' : null;
        return p[key] as string | undefined;
      };
      const assign = <K extends keyof typeof set>(col: K, v: (typeof set)[K] | undefined) => {
        if (v !== undefined) set[col] = v;
      };
      assign('name', p.name);
      assign('username', p.username);
      assign('bio', str('bio') as string | undefined);
      assign('location', str('location'));
      assign('skype', str('skype') as string | undefined);
      assign('linkedin', str('linkedin') as string | undefined);
      assign('twitter', str('twitter') as string | undefined);
      assign('discord', str('discord') as string | undefined);
      assign('websiteUrl', str('website_url') as string | undefined);
      assign('organization', str('organization'));
      assign('jobTitle', str('job_title') as string | undefined);
      assign('pronouns', str('pronouns'));
      assign('note', str('note'));
      assign('publicEmail', str('public_email'));
      assign('commitEmail', str('commit_email'));
      assign('isAdmin', p.admin);
      assign('external', p.external);
      assign('canCreateGroup', p.can_create_group);
      assign('projectsLimit', p.projects_limit);
      if (p.external !== undefined && p.external !== user.external) {
        // User#ensure_user_rights_and_limits (before_save when `external` changes): external users get
        // no project or group creation; turning it off restores the defaults unless set in this request.
        if (p.external) {
          set.canCreateGroup = false;
          set.projectsLimit = 0;
        } else {
          if (p.can_create_group === undefined) set.canCreateGroup = true;
          if (p.projects_limit === undefined) set.projectsLimit = Number(settings.default_projects_limit);
        }
      }
      assign('themeId', p.theme_id);
      assign('colorSchemeId', p.color_scheme_id);
      assign('viewDiffsFileByFile', p.view_diffs_file_by_file);
      assign('sharedRunnersMinutesLimit', p.shared_runners_minutes_limit);
      assign('extraSharedRunnersMinutesLimit', p.extra_shared_runners_minutes_limit);
      // `private_profile: null` means the instance default (users.rb keeps this until its planned removal in 16.0).
      if (raw.private_profile === null) set.privateProfile = Boolean(settings.user_defaults_to_private_profile);
      else assign('privateProfile', p.private_profile);
      if (p.email !== undefined && p.email.toLowerCase() !== user.email.toLowerCase()) {
        // Without skip_reconfirmation the new address waits for confirmation; the primary email stays.
        if (p.skip_reconfirmation) {
          set.email = p.email;
          set.unconfirmedEmail = null;
        } else set.unconfirmedEmail = p.email;
      }
      if (p.password !== undefined && p.password !== '') {
        set.passwordDigest = await hashPassword(p.password, c.var.config.passwordIterations);
        set.passwordAutomaticallySet = false;
        // An administrator changing someone else's password forces a change at next sign-in.
        if (admin.id !== user.id) set.passwordExpiresAt = now;
      }
      if (p.avatar) set.avatarPath = await storeAvatar(c.var.blobs, user.id, p.avatar);

      const statements: BatchItem<'sqlite'>[] = [db.update(users).set(set).where(eq(users.id, user.id))];
      if (p.username !== undefined || p.name !== undefined) {
        // The personal namespace follows the username (path) and the name, in the same batch.
        const nsSet: Partial<typeof namespaces.$inferInsert> = { updatedAt: now };
        if (p.username !== undefined) Object.assign(nsSet, { path: p.username, fullPath: p.username });
        if (p.name !== undefined) nsSet.name = p.name;
        statements.push(db.update(namespaces).set(nsSet).where(and(eq(namespaces.kind, 'User'), eq(namespaces.ownerId, user.id))));
      }
      if (p.provider !== undefined && p.extern_uid !== undefined) {
        statements.push(
          db
            .insert(identities)
            .values({ userId: user.id, provider: p.provider, externUid: p.extern_uid, createdAt: now, updatedAt: now })
            .onConflictDoUpdate({ target: [identities.userId, identities.provider], set: { externUid: p.extern_uid, updatedAt: now } }),
        );
      }
      try {
        await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
      } catch (err) {
        // A concurrent write took the email, username or identity: the same answers as the checks above.
        if (isUniqueViolation(err, 'email')) throw new ApiError(404, { message: 'Email has already been taken' });
        if (isUniqueViolation(err, 'identities')) throw validationFailed({ 'identities.extern_uid': ['has already been taken'] });
        if (isUniqueViolation(err)) throw new ApiError(404, { message: 'Username has already been taken' });
        throw err;
      }
      const updated = await findUserById(db, user.id);
      // Deleted by a concurrent request between the lookup and the write.
      if (!updated) throw notFound('User');
      const extras = await loadUserExtras(db, updated, { base: baseUrl(c), premium: premium(c), viewerId: admin.id, admin: true });
      return c.json(userWithAdmin(updated, extras));
    },
  );

  r.route(
    { method: 'DELETE', path: '/users/:id', summary: 'Delete a user (administrators)', tags: ['users'], params: deleteUserParams, status: 204 },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      const user = await findUserById(db, p.id);
      if (!user) throw notFound('User');
      // UserPolicy prevents destroy_user on the ghost user ("This user cannot be removed.").
      if (user.userType === 'ghost') throw forbidden();
      if (!p.hard_delete && (await soleOwnedGroupCount(db, user.id)) > 0) throw conflict('User cannot be removed while is the sole-owner of a group');
      checkUnmodifiedSince(c, user.updatedAt);
      // Soft delete hands contributions to the ghost user (Users::MigrateToGhostUserService), which
      // exists from then on; the user's own rows (and today nothing else refers to users) go with it.
      if (!p.hard_delete) await findOrCreateGhost(db);
      // Everything that goes with the user, in one batch (platform/cascade.ts); hard_delete removes
      // the groups the user solely owns too (Users::DestroyService), each with its subtree.
      const { statements, blobKeys } = await cascade(db, 'user', sql`(${user.id})`, { hardDelete: p.hard_delete });
      await db.batch(asBatch(statements));
      await deleteBlobs(c.var.blobs, blobKeys);
      return c.body(null, 204);
    },
  );

  r.route(
    {
      method: 'DELETE',
      path: '/users/:id/identities/:provider',
      summary: "Delete a user's identity (administrators)",
      tags: ['users'],
      params: deleteIdentityParams,
      status: 204,
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      const user = await findUserById(db, p.id);
      if (!user) throw notFound('User');
      const identity = await db.select().from(identities).where(and(eq(identities.userId, user.id), eq(identities.provider, p.provider))).get();
      if (!identity) throw notFound('Identity');
      checkUnmodifiedSince(c, identity.updatedAt ?? identity.createdAt);
      await db.delete(identities).where(eq(identities.id, identity.id)).run();
      return c.body(null, 204);
    },
  );
}

/** lib/api/custom_attributes_endpoints.rb for users: entity `{key, value}`, administrators only. */
function mountUserCustomAttributes(r: Router) {
  const load = async (c: Context<AppEnv>, caller: Caller, id: number) => {
    // Non-GET requests authenticate first (users.rb `authenticate_non_get!`); the user is found before authorizing.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') requireUser(caller);
    const user = await findUserById(c.var.db, id);
    if (!user) throw notFound();
    if (!caller.isAdmin) throw forbidden();
    return user;
  };
  const present = (a: { key: string; value: string }) => ({ key: a.key, value: a.value });

  r.route(
    { method: 'GET', path: '/users/:id/custom_attributes', summary: 'List custom attributes of a user', tags: ['custom_attributes'], params: userIdParams, scopes: ['read_user'] },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      // Creation order, like GitLab's ids (rowid survives upserts).
      const rows = await c.var.db.select().from(userCustomAttributes).where(eq(userCustomAttributes.userId, user.id)).orderBy(sql`rowid`).all();
      return c.json(rows.map(present));
    },
  );

  r.route(
    { method: 'GET', path: '/users/:id/custom_attributes/:key', summary: 'Get a custom attribute of a user', tags: ['custom_attributes'], params: customAttributeKeyParams, scopes: ['read_user'] },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      const row = await findCustomAttribute(c.var.db, user.id, p.key);
      if (!row) throw recordNotFound();
      return c.json(present(row));
    },
  );

  r.route(
    { method: 'PUT', path: '/users/:id/custom_attributes/:key', summary: 'Set a custom attribute of a user', tags: ['custom_attributes'], params: putCustomAttributeParams },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      const errors: Record<string, string[]> = {};
      if (!p.key.trim()) errors.key = ["can't be blank"];
      if (!p.value.trim()) errors.value = ["can't be blank"];
      if (p.key.length > 255) (errors.key ??= []).push('is too long (maximum is 255 characters)');
      if (p.value.length > 255) (errors.value ??= []).push('is too long (maximum is 255 characters)');
      if (Object.keys(errors).length) throw validationFailed(errors);
      await upsertCustomAttribute(c.var.db, user.id, p.key, p.value).run();
      return c.json(present({ key: p.key, value: p.value }));
    },
  );

  r.route(
    { method: 'DELETE', path: '/users/:id/custom_attributes/:key', summary: 'Delete a custom attribute of a user', tags: ['custom_attributes'], params: customAttributeKeyParams, status: 204 },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      const row = await findCustomAttribute(c.var.db, user.id, p.key);
      // `custom_attributes.find_by!(key:)`: ActiveRecord's not-found body.
      if (!row) throw recordNotFound();
      await c.var.db.delete(userCustomAttributes).where(and(eq(userCustomAttributes.userId, user.id), eq(userCustomAttributes.key, p.key))).run();
      return c.body(null, 204);
    },
  );
}

const findCustomAttribute = (db: Db, userId: number, key: string) =>
  db.select().from(userCustomAttributes).where(and(eq(userCustomAttributes.userId, userId), eq(userCustomAttributes.key, key))).get();

/**
 * Block, unblock, deactivate, activate, ban, unban, approve, reject (lib/api/users.rb and
 * app/services/users/*_service.rb). Grape answers POST with 201; `true`/`false` bodies are the
 * endpoint's return value and `null` is its early `break` (already in the target state).
 * Transitions are conditional updates so concurrent requests cannot skip a state check.
 */
function mountUserStateActions(r: Router) {
  const action = (name: string, summary: string, handler: (ctx: { c: Context<AppEnv>; caller: Caller; user: UserRow }) => Promise<Response>, adminFirst = true) =>
    r.route({ method: 'POST', path: `/users/:id/${name}`, summary, tags: ['users'], params: userIdParams, status: 201 }, async ({ c, p, caller }) => {
      if (adminFirst) requireAdmin(caller);
      else requireUser(caller);
      const user = await findUserById(c.var.db, p.id);
      if (!user) throw notFound('User');
      return handler({ c, caller, user });
    });
  const transition = async (c: Context<AppEnv>, user: UserRow, from: readonly string[], to: string, extra: BatchItem<'sqlite'>[] = []) => {
    const db = c.var.db;
    const upd = db
      .update(users)
      .set({ state: to, updatedAt: Date.now() })
      .where(and(eq(users.id, user.id), inArray(users.state, [...from])))
      .returning({ id: users.id });
    const [rows] = (await db.batch([upd, ...extra] as [typeof upd, ...BatchItem<'sqlite'>[]])) as [{ id: number }[], ...unknown[]];
    return rows.length > 0;
  };
  const apiError = (message: string, status: number) => new ApiError(status, { message });

  action('block', 'Block a user (administrators)', async ({ c, caller, user }) => {
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be modified by the API');
    if (user.id === caller.user!.id) throw forbidden('The API initiating user cannot be blocked by the API');
    if (isBlockedState(user.state)) return c.json(null, 201);
    if (isInternalUser(user)) throw apiError('An internal user cannot be blocked', 403);
    const now = Date.now();
    // Users::BlockService#after_block_hook records who blocked the user as a custom attribute.
    const ok = await transition(c, user, ['active', 'deactivated'], 'blocked', [upsertCustomAttribute(c.var.db, user.id, 'blocked_by', actorStamp(caller.user!, now))]);
    return c.json(ok, 201);
  });

  action('unblock', 'Unblock a user (administrators)', async ({ c, caller, user }) => {
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be unblocked by the API');
    if (user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
    // `user.activate` has no transition from active: the endpoint then answers `false`.
    if (user.state === 'active') return c.json(false, 201);
    const ok = await transition(c, user, ['blocked', 'blocked_pending_approval', 'banned'], 'active', [
      upsertCustomAttribute(c.var.db, user.id, 'unblocked_by', actorStamp(caller.user!, Date.now())),
    ]);
    return c.json(ok, 201);
  });

  action('deactivate', 'Deactivate a user (administrators)', async ({ c, user }) => {
    if (user.state === 'deactivated') return c.json(null, 201);
    if (isBlockedState(user.state)) throw apiError('Error occurred. A blocked user cannot be deactivated', 403);
    if (isInternalUser(user)) throw apiError('Internal users cannot be deactivated', 403);
    const settings = await settingsOf(c);
    const days = Number(settings.deactivate_dormant_users_period ?? 90);
    // User#can_be_deactivated?: no activity (last_activity_on or current sign-in) within the dormant period.
    const lastActive = user.lastActivityOn ? Date.parse(user.lastActivityOn) : user.currentSignInAt;
    if (lastActive != null && lastActive > Date.now() - days * 86_400_000) {
      throw apiError(`The user you are trying to deactivate has been active in the past ${days} days and cannot be deactivated`, 403);
    }
    return c.json(await transition(c, user, ['active'], 'deactivated'), 201);
  });

  action('activate', 'Activate a deactivated user (administrators)', async ({ c, user }) => {
    if (isBlockedState(user.state)) throw forbidden('A blocked user must be unblocked to be activated');
    if (user.state === 'active') return c.json(false, 201);
    return c.json(await transition(c, user, ['deactivated'], 'active'), 201);
  });

  action('ban', 'Ban a user (administrators)', async ({ c, user }) => {
    // Users::BannedUserBaseService#state_error.
    if (user.state !== 'active') throw apiError(`You cannot ban ${user.state} users.`, 403);
    if (!(await transition(c, user, ['active'], 'banned'))) throw apiError(`You cannot ban ${(await findUserById(c.var.db, user.id))?.state ?? 'deleted'} users.`, 403);
    return c.json(true, 201);
  });

  action('unban', 'Unban a user (administrators)', async ({ c, user }) => {
    if (user.state !== 'banned') throw apiError(`You cannot unban ${user.state} users.`, 403);
    if (!(await transition(c, user, ['banned'], 'active'))) throw apiError('You cannot unban active users.', 403);
    return c.json(true, 201);
  });

  // approve and reject authorize inside their services (Users::ApproveService, Users::RejectService), after the lookup.
  action(
    'approve',
    'Approve a user pending approval (administrators)',
    async ({ c, caller, user }) => {
      if (!caller.isAdmin) throw apiError('You are not allowed to approve a user', 403);
      if (user.state !== 'blocked_pending_approval') throw apiError('The user you are trying to approve is not pending approval', 409);
      if (!(await transition(c, user, ['blocked_pending_approval'], 'active'))) throw apiError('The user you are trying to approve is not pending approval', 409);
      return c.json({ message: 'Success' }, 201);
    },
    false,
  );

  action(
    'reject',
    'Reject a user pending approval (administrators)',
    async ({ c, caller, user }) => {
      if (!caller.isAdmin) throw apiError('You are not allowed to reject a user', 403);
      if (user.state !== 'blocked_pending_approval') throw apiError('This user does not have a pending request', 409);
      // A rejected user is hard-deleted (RejectService: delete_async with hard_delete: true).
      const { statements, blobKeys } = await cascade(c.var.db, 'user', sql`(${user.id})`);
      await c.var.db.batch(asBatch(statements));
      await deleteBlobs(c.var.blobs, blobKeys);
      return c.json({ message: 'Success' }, 200);
    },
    false,
  );
}

/** Premium attributes of the administrator view exist only on Premium and Ultimate instances. */
const premium = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');

/** PUT /users/:id: the spec answers conflicts with 404 (status only; the message stays GitLab's). */
async function asSpecNotFound(check: Promise<void>): Promise<void> {
  try {
    await check;
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) throw new ApiError(404, err.body);
    throw err;
  }
}
