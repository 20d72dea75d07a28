/** Users API (GitLab lib/api/users.rb; spec document 2, Users). */
import { userDetailsWithAdmin, userPublic, userWithAdmin } from '../entities/user';
import { findUserByUsername } from '../db/queries/users';
import { loadUserExtras } from '../db/queries/user-extras';
import { users } from '../db/schema';
import { hashPassword, randomToken } from '../lib/crypto';
import { conflict } from '../lib/errors';
import { baseUrl } from '../lib/pagination';
import type { Router } from '../lib/router';
import { isUniqueViolation } from '../lib/unique';
import { requireAdmin, requireUser } from '../middleware/auth';
import { createUserParams } from '../params/users';
import { checkUserConflicts, identityInsert, personalNamespaceInsert, validateUserFields } from '../services/users';

export function mountUsers(r: Router) {
  r.route(
    { method: 'GET', path: '/user', summary: 'Get the current user', tags: ['users'], scopes: ['read_user'] },
    async ({ c, caller }) => {
      const user = requireUser(caller);
      const extras = await loadUserExtras(c.var.db, user, { base: baseUrl(c), viewerId: user.id, admin: caller.isAdmin });
      return c.json(caller.isAdmin ? userDetailsWithAdmin(user, extras) : userPublic(user, extras));
    },
  );

  r.route(
    { method: 'POST', path: '/users', summary: 'Create a user (administrators)', tags: ['users'], params: createUserParams, status: 201 },
    async ({ c, p, caller }) => {
      const admin = requireAdmin(caller);
      const settings = await c.var.settings();
      const randomPassword = p.reset_password || p.force_random_password;
      // reset_password and force_random_password take priority over password (spec: Create user).
      const password = randomPassword ? randomToken(24) : p.password;
      // Duplicate email wins over every other validation error (users.rb checks conflicts on a failed save).
      await checkUserConflicts(c.var.db, { email: p.email });
      validateUserFields({ ...p, password: randomPassword ? undefined : p.password }, settings);
      await checkUserConflicts(c.var.db, { username: p.username });

      const now = Date.now();
      const insertUser = c.var.db.insert(users).values({
        email: p.email,
        name: p.name,
        username: p.username,
        isAdmin: p.admin ?? false,
        external: p.external ?? Boolean(settings.user_default_external),
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
        projectsLimit: p.projects_limit ?? Number(settings.default_projects_limit),
        canCreateGroup: p.can_create_group ?? true,
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
      const created = (await findUserByUsername(c.var.db, p.username))!;
      const extras = await loadUserExtras(c.var.db, created, { base: baseUrl(c), viewerId: admin.id, admin: true });
      return c.json(userWithAdmin(created, extras), 201);
    },
  );
}
