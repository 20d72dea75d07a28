/** Users API writes (GitLab lib/api/users.rb): create, modify and delete a user, delete an identity. */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { userWithAdmin, UserWithAdminSchema } from './user-entity';
import { findUserById, findUserByUsername } from './user-queries';
import { loadUserExtras, premium, userExtrasFrom, userExtrasQueries } from './user-extras';
import { writeThenRead } from '../db/batch-reads';
import { identities, namespaces, users } from '../db/schema';
import { checkUnmodifiedSince } from '../platform/conditional';
import { hashPassword, randomToken } from '../platform/crypto';
import { ApiError, conflict, forbidden, notFound, validationFailed } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireAdmin } from '../platform/guards';
import { createUserParams, deleteIdentityParams, deleteUserParams, updateUserParams } from './users-params';
import {
  avatarErrors,
  checkUserConflicts,
  defaultExternal,
  userConflicts,
  findOrCreateGhost,
  ghostInsert,
  identityInsert,
  personalNamespaceInsert,
  storeAvatar,
  validateUserFields,
} from './users';
import { settingsOf } from '../settings/settings';
import { cascade, runDeletion } from '../platform/cascade';
import { GHOST_ID, userDeletionReads } from './user-deletion';
import { invalidateCaller } from './caller-cache';
import { primaryEmailChanged, primaryEmailInsert } from './primary-email';

export function mountUserCreate(r: Router) {
  r.route(
    { method: 'POST', path: '/users', summary: 'Create a user (administrators)', tags: ['users'], params: createUserParams, responses: { 201: UserWithAdminSchema } },
    async ({ c, p, caller }) => {
      const admin = requireAdmin(caller);
      const settings = await settingsOf(c);
      const randomPassword = p.reset_password || p.force_random_password;
      // reset_password and force_random_password take priority over password (spec: Create user).
      const password = randomPassword ? randomToken(24) : p.password;
      // Duplicate email wins over every other validation error (users.rb checks conflicts on a failed save);
      // both conflicts are read in one round trip, the username's answered after validation.
      const taken = await userConflicts(c.var.db, { email: p.email, username: p.username });
      if (taken.email) throw conflict('Email has already been taken');
      validateUserFields({ ...p, password: randomPassword ? undefined : p.password }, settings);
      if (p.avatar && avatarErrors(p.avatar).length) throw validationFailed({ avatar: avatarErrors(p.avatar) });
      if (taken.username) throw conflict('Username has already been taken');

      const now = Date.now();
      const external = p.external ?? defaultExternal(settings, p.email);
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
      const db = c.var.db;
      const ns = personalNamespaceInsert(db, p.username, p.name, now);
      // A confirmed user (skip_confirmation) gets the row of its primary address (primary-email.ts).
      const email = primaryEmailInsert(db, sql`u.username = ${p.username}`, now);
      const writes = p.provider && p.extern_uid ? [insertUser, ns, email, identityInsert(db, p.username, p.provider, p.extern_uid, now)] : [insertUser, ns, email];
      // The answer is read in the same batch, the new user found by its username.
      const createdId = sql`(SELECT id FROM users WHERE username = ${p.username})`;
      const extrasOpts = { base: baseUrl(c), premium: premium(c), viewerId: admin.id, admin: true };
      let read;
      try {
        read = await writeThenRead(db, writes, [db.select().from(users).where(eq(users.username, p.username)).limit(1), ...userExtrasQueries(db, createdId, admin.id, extrasOpts)]);
      } catch (err) {
        // A concurrent create won the race for the same email or username.
        if (isUniqueViolation(err, 'email')) throw conflict('Email has already been taken');
        if (isUniqueViolation(err, 'identities')) throw conflict('Identity has already been taken');
        if (isUniqueViolation(err)) throw conflict('Username has already been taken');
        throw err;
      }
      const [[row], ...extrasRead] = read;
      let created = row;
      if (p.avatar) {
        // The avatar's path carries the user id, known only once the user exists.
        const avatarPath = await storeAvatar(c.var.blobs, created.id, p.avatar);
        await db.update(users).set({ avatarPath }).where(eq(users.id, created.id)).run();
        created = { ...created, avatarPath };
      }
      return c.json(userWithAdmin(created, userExtrasFrom(created, extrasOpts, extrasRead as never)), 201);
    },
  );
}

/** String attributes of PUT /users/:id whose column is NOT NULL: an explicit `null` stores ''. */
const NOT_NULL_STRINGS = new Set(['bio', 'skype', 'linkedin', 'twitter', 'discord', 'website_url', 'job_title']);

export function mountUserWrites(r: Router) {
  r.route(
    { method: 'PUT', path: '/users/:id', summary: 'Modify a user (administrators)', tags: ['users'], params: updateUserParams, responses: { 200: UserWithAdminSchema } },
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
      // The new primary address of a confirmed user gets (or confirms) its `emails` row; the old one stays.
      if (set.email !== undefined) statements.push(...primaryEmailChanged(db, user.id, now));
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
      // The answer is read back in the write's batch.
      const extrasOpts = { base: baseUrl(c), premium: premium(c), viewerId: admin.id, admin: true };
      let read;
      try {
        read = await writeThenRead(db, statements, [db.select().from(users).where(eq(users.id, user.id)).limit(1), ...userExtrasQueries(db, user.id, user.createdById, extrasOpts)]);
      } catch (err) {
        // A concurrent write took the email, username or identity: the same answers as the checks above.
        if (isUniqueViolation(err, 'email')) throw new ApiError(404, { message: 'Email has already been taken' });
        if (isUniqueViolation(err, 'identities')) throw validationFailed({ 'identities.extern_uid': ['has already been taken'] });
        if (isUniqueViolation(err)) throw new ApiError(404, { message: 'Username has already been taken' });
        throw err;
      }
      // Admin flag, state-bearing attributes, password expiry: the user's cached credentials carry the old row.
      invalidateCaller(db, { userId: user.id });
      const [[updated], ...extrasRead] = read;
      // Deleted by a concurrent request between the lookup and the write.
      if (!updated) throw notFound('User');
      return c.json(userWithAdmin(updated, userExtrasFrom(updated, extrasOpts, extrasRead as never)));
    },
  );

  r.route(
    { method: 'DELETE', path: '/users/:id', summary: 'Delete a user (administrators)', tags: ['users'], params: deleteUserParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      // One round trip for what the deletion needs to know, one for the deletion (user-deletion.ts).
      const { user, soleOwned, ghostId, ghostNames } = await userDeletionReads(db, p.id);
      if (!user) throw notFound('User');
      // UserPolicy prevents destroy_user on the ghost user ("This user cannot be removed.").
      if (user.userType === 'ghost') throw forbidden();
      if (!p.hard_delete && soleOwned.length > 0) throw conflict('User cannot be removed while is the sole-owner of a group');
      checkUnmodifiedSince(c, user.updatedAt);
      // Everything that goes with the user, in one batch (platform/cascade.ts): each domain re-attributes
      // or removes its rows; hard_delete removes the groups the user solely owns too (Users::DestroyService).
      const ids = sql`(${user.id})`;
      if (p.hard_delete) await runDeletion(db, c.var.blobs, cascade(db, 'user', ids, { soleOwnedGroups: soleOwned }));
      else if (ghostId !== undefined) await runDeletion(db, c.var.blobs, cascade(db, 'user', ids, { ghostId }));
      else {
        // Soft delete hands contributions to the ghost user (Users::MigrateRecordsToGhostUserService),
        // which exists from then on: created at the head of the batch, named by a sub-select after it.
        const created = ghostNames
          ? await runDeletion(db, c.var.blobs, cascade(db, 'user', ids, { ghostId: GHOST_ID }), ghostInsert(db, ghostNames, Date.now())).then(
              () => true,
              // Another deletion created the ghost meanwhile: nothing of this batch was written.
              (err) => (isUniqueViolation(err) ? false : Promise.reject(err)),
            )
          : false;
        // The ghost's first candidate names are all taken, or another deletion made it: the slow way.
        if (!created) await runDeletion(db, c.var.blobs, cascade(db, 'user', ids, { ghostId: (await findOrCreateGhost(db)).id }));
      }
      invalidateCaller(db, { userId: user.id });
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
      responses: { 204: null },
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

/** PUT /users/:id: the spec answers conflicts with 404 (status only; the message stays GitLab's). */
async function asSpecNotFound(check: Promise<void>): Promise<void> {
  try {
    await check;
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) throw new ApiError(404, err.body);
    throw err;
  }
}
