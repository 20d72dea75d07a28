/**
 * User writes with invariants: GitLab's model validations (app/models/user.rb, namespace path
 * rules), conflict checks in GitLab's order, and the rows of a new user (user, personal namespace,
 * identity) built for one batch.
 */
import { and, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { UserRow } from '../platform/context';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { batchReads } from '../db/batch-reads';
import { NON_INTERNAL_USER_TYPES } from './user-queries';
import {
  identities,
  namespaces,
  userCustomAttributes,
  users,
} from '../db/schema';
import { conflict, validationFailed } from '../platform/errors';
import { isUniqueViolation } from '../platform/unique';
import type { BlobStore } from '../platform/blobs';
import type { Settings } from '../settings/settings';
import { primaryEmailInsert } from './primary-email';

/** GitLab lib/gitlab/path_regex.rb: namespace paths (and so usernames). */
const USERNAME_RE = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_\-]|[a-zA-Z0-9_])$/;
export const USERNAME_FORMAT_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
/** Top-level routes a username may not take (path_regex.rb TOP_LEVEL_ROUTES, abridged to the routes this server and GitLab's UI use). */
const RESERVED_USERNAMES = new Set([
  '-', '.well-known', '404.html', '422.html', '500.html', '502.html', '503.html', 'admin', 'api', 'apple-touch-icon.png',
  'assets', 'dashboard', 'deploy.html', 'explore', 'favicon.ico', 'favicon.png', 'files', 'groups', 'health_check', 'help',
  'import', 'jwt', 'login', 'oauth', 'profile', 'projects', 'public', 'robots.txt', 's', 'search', 'sitemap', 'sitemap.xml',
  'sitemap.xml.gz', 'slash-command-logo.png', 'snippets', 'unsubscribes', 'uploads', 'users', 'v2',
]);
const EMAIL_RE = /^[^@\s]+@[^@\s]+$/;
const VALID_THEME_IDS = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
const VALID_COLOR_SCHEME_IDS = new Set([1, 2, 3, 4, 5, 6]);
const MAX_INT32 = 2147483647;

export interface UserFields {
  email?: string;
  name?: string;
  username?: string;
  password?: string;
  bio?: string;
  projects_limit?: number;
  theme_id?: number;
  color_scheme_id?: number;
  website_url?: string;
  note?: string;
  public_email?: string;
  commit_email?: string;
  skype?: string;
  linkedin?: string;
  twitter?: string;
  discord?: string;
  location?: string;
  organization?: string;
  job_title?: string;
  pronouns?: string;
}

/** UserDetail length validations (app/models/user_detail.rb: DEFAULT_FIELD_LENGTH 500, job_title 200, pronouns 50). */
const MAX_LENGTHS: [keyof UserFields, number][] = [
  ['skype', 500],
  ['linkedin', 500],
  ['twitter', 500],
  ['discord', 500],
  ['website_url', 500],
  ['location', 500],
  ['organization', 500],
  ['job_title', 200],
  ['pronouns', 50],
  ['public_email', 255],
  ['commit_email', 255],
];

/**
 * Ruby's `Regexp.new(source, IGNORECASE)` as a JS RegExp: the anchors Ruby spells `\A`, `\z`, `\Z`
 * become `^`/`$` (no multiline flag, so they bind to the whole string). A pattern JS cannot compile
 * yields null: the caller then ignores it rather than refusing every user.
 */
function rubyRegexp(source: string): RegExp | null {
  try {
    return new RegExp(source.replace(/\\A/g, '^').replace(/\\[zZ]/g, '$'), 'i');
  } catch {
    return null;
  }
}

/**
 * A new user's `external` when the request does not say (Users::BuildService): with
 * `user_default_external` on and a `user_default_internal_regex`, an email matching the regex makes an
 * internal user and any other an external one; otherwise the setting `user_default_external` itself.
 */
export function defaultExternal(settings: Settings, email: string): boolean {
  const regex = typeof settings.user_default_internal_regex === 'string' ? settings.user_default_internal_regex : '';
  const external = Boolean(settings.user_default_external);
  if (external && regex) {
    const re = rubyRegexp(regex);
    if (re) return !re.test(email);
  }
  return external;
}

/** Model validations shared by create and modify; `{"message": {attr: [msgs]}}` on failure. */
export function validateUserFields(f: UserFields, settings: Settings): void {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (f.password !== undefined) {
    const min = Number(settings.minimum_password_length ?? 8);
    if (f.password.length < min) add('password', `is too short (minimum is ${min} characters)`);
    if (f.password.length > 128) add('password', 'is too long (maximum is 128 characters)');
  }
  if (f.email !== undefined) {
    if (!f.email.trim()) add('email', "can't be blank");
    else if (!EMAIL_RE.test(f.email)) add('email', 'is invalid');
  }
  if (f.name !== undefined) {
    if (!f.name.trim()) add('name', "can't be blank");
    else if (f.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  }
  if (f.username !== undefined) {
    if (!f.username) add('username', "can't be blank");
    else if (!USERNAME_RE.test(f.username) || /\.(git|atom)$/i.test(f.username)) add('username', USERNAME_FORMAT_MESSAGE);
    else if (RESERVED_USERNAMES.has(f.username.toLowerCase())) add('username', `${f.username} is a reserved name`);
    if (f.username.length > 255) add('username', 'is too long (maximum is 255 characters)');
  }
  if (f.email !== undefined && f.email.length > 255) add('email', 'is too long (maximum is 255 characters)');
  for (const [key, max] of MAX_LENGTHS) {
    const v = f[key];
    if (typeof v === 'string' && v.length > max) add(key, `is too long (maximum is ${max} characters)`);
  }
  if (f.bio !== undefined && f.bio.length > 255) add('bio', 'is too long (maximum is 255 characters)');
  if (f.note !== undefined && f.note.length > 1000) add('note', 'is too long (maximum is 1000 characters)');
  if (f.projects_limit !== undefined) {
    if (f.projects_limit < 0) add('projects_limit', 'must be greater than or equal to 0');
    else if (f.projects_limit > MAX_INT32) add('projects_limit', `must be less than or equal to ${MAX_INT32}`);
  }
  if (f.theme_id !== undefined && !VALID_THEME_IDS.has(f.theme_id)) add('theme_id', 'is not included in the list');
  if (f.color_scheme_id !== undefined && !VALID_COLOR_SCHEME_IDS.has(f.color_scheme_id)) add('color_scheme_id', 'is not included in the list');
  if (f.website_url !== undefined && f.website_url !== '' && !/^https?:\/\/\S+$/i.test(f.website_url)) add('website_url', 'is not a valid URL');
  if (f.public_email !== undefined && f.public_email !== '' && !EMAIL_RE.test(f.public_email)) add('public_email', 'is invalid');
  if (Object.keys(errors).length) throw validationFailed(errors);
}

/** Conflicts, GitLab's order: email first, then username (users and any top-level namespace path). */
export async function checkUserConflicts(db: Db, f: { email?: string; username?: string }, exceptUserId?: number): Promise<void> {
  const taken = await userConflicts(db, f, exceptUserId);
  if (taken.email) throw conflict('Email has already been taken');
  if (taken.username) throw conflict('Username has already been taken');
}

/** Whether the email, and the username (as a user or any namespace path), are taken: one round trip. */
export async function userConflicts(db: Db, f: { email?: string; username?: string }, exceptUserId?: number): Promise<{ email: boolean; username: boolean }> {
  // User.by_any_email: the primary address of anyone, or a secondary one (app/models/email.rb, stored lowercased).
  const emailCond =
    f.email === undefined
      ? undefined
      : and(
          sql`(lower(${users.email}) = lower(${f.email}) OR ${users.id} IN (SELECT e.user_id FROM emails e WHERE e.email = lower(trim(${f.email}))))`,
          exceptUserId ? ne(users.id, exceptUserId) : undefined,
        );
  const userCond = f.username === undefined ? undefined : and(sql`lower(${users.username}) = lower(${f.username})`, exceptUserId ? ne(users.id, exceptUserId) : undefined);
  const nsCond =
    f.username === undefined
      ? undefined
      : and(
          sql`lower(${namespaces.fullPath}) = lower(${f.username})`,
          exceptUserId ? sql`(${namespaces.ownerId} IS NULL OR ${namespaces.ownerId} != ${exceptUserId} OR ${namespaces.kind} != 'User')` : undefined,
        );
  const [email, u, ns] = await batchReads(db, [
    emailCond && db.select({ id: users.id }).from(users).where(emailCond).limit(1),
    userCond && db.select({ id: users.id }).from(users).where(userCond).limit(1),
    nsCond && db.select({ id: namespaces.id }).from(namespaces).where(nsCond).limit(1),
  ]);
  return { email: Boolean(email?.length), username: Boolean(u?.length || ns?.length) };
}

/** The personal namespace of a user created in the same batch: its owner is found by username. */
export function personalNamespaceInsert(db: Db, username: string, name: string, now: number) {
  return db.insert(namespaces).select(
    db
      .select({
        id: sql<number>`NULL`.as('id'),
        kind: sql<string>`'User'`.as('kind'),
        name: sql<string>`${name}`.as('name'),
        path: sql<string>`${username}`.as('path'),
        fullPath: sql<string>`${username}`.as('full_path'),
        parentId: sql<number>`NULL`.as('parent_id'),
        ownerId: users.id,
        visibility: sql<string>`'private'`.as('visibility'),
        description: sql<string>`''`.as('description'),
        createdAt: sql<number>`${now}`.as('created_at'),
        updatedAt: sql<number>`${now}`.as('updated_at'),
        // Group-only columns (schema/users.ts namespaces): the defaults, listed because insert-select names every column.
        traversalPath: sql<string>`NULL`.as('traversal_path'),
        requestAccessEnabled: sql<boolean>`1`.as('request_access_enabled'),
        lfsEnabled: sql<boolean>`1`.as('lfs_enabled'),
        projectCreationLevel: sql<string>`'developer'`.as('project_creation_level'),
        subgroupCreationLevel: sql<string>`'maintainer'`.as('subgroup_creation_level'),
        shareWithGroupLock: sql<boolean>`0`.as('share_with_group_lock'),
        mentionsDisabled: sql<boolean>`NULL`.as('mentions_disabled'),
        emailsEnabled: sql<boolean>`1`.as('emails_enabled'),
        requireTwoFactorAuthentication: sql<boolean>`0`.as('require_two_factor_authentication'),
        twoFactorGracePeriod: sql<number>`48`.as('two_factor_grace_period'),
        defaultBranchName: sql<string>`NULL`.as('default_branch_name'),
        avatarPath: sql<string>`NULL`.as('avatar_path'),
      })
      .from(users)
      .where(sql`lower(${users.username}) = lower(${username})`),
  );
}

export function identityInsert(db: Db, username: string, provider: string, externUid: string, now: number) {
  return db.insert(identities).select(
    db
      .select({
        id: sql<number>`NULL`.as('id'),
        userId: users.id,
        provider: sql<string>`${provider}`.as('provider'),
        externUid: sql<string>`${externUid}`.as('extern_uid'),
        samlProviderId: sql<number>`NULL`.as('saml_provider_id'),
        createdAt: sql<number>`${now}`.as('created_at'),
        updatedAt: sql<number>`${now}`.as('updated_at'),
      })
      .from(users)
      .where(sql`lower(${users.username}) = lower(${username})`),
  );
}


/** GitLab `User::INTERNAL_USER_TYPES` are the types outside this set (users_finder `non_internal`). */
export const isInternalUser = (u: UserRow) => !(NON_INTERNAL_USER_TYPES as readonly string[]).includes(u.userType);

/** States in which GitLab's `user.blocked?` is true (app/models/user.rb state machine). */
export const BLOCKED_STATES = ['blocked', 'ldap_blocked', 'blocked_pending_approval', 'banned'] as const;
export const isBlockedState = (state: string) => (BLOCKED_STATES as readonly string[]).includes(state);

export const GHOST_BIO = 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.';

async function usernameTaken(db: Db, username: string): Promise<boolean> {
  const [u, ns] = await Promise.all([
    db.select({ id: users.id }).from(users).where(sql`lower(${users.username}) = lower(${username})`).get(),
    db.select({ id: namespaces.id }).from(namespaces).where(sql`lower(${namespaces.fullPath}) = lower(${username})`).get(),
  ]);
  return Boolean(u || ns);
}

/** Gitlab::Utils::Uniquify: `base`, then `base1`, `base2`, … until free. */
async function uniquify(make: (n: number | null) => string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  let n: number | null = null;
  for (let i = 0; i < 1000; i++) {
    const candidate = make(n);
    if (!(await taken(candidate))) return candidate;
    n = (n ?? 0) + 1;
  }
  throw new Error('no free name for an internal user');
}

/** The ghost user and its personal namespace (Users::Internal.ghost): two statements for a batch. */
export function ghostInsert(db: Db, names: { username: string; email: string }, now: number): BatchItem<'sqlite'>[] {
  return [
    db.insert(users).values({
      username: names.username,
      email: names.email,
      name: 'Ghost User',
      bio: GHOST_BIO,
      userType: 'ghost',
      state: 'active',
      projectsLimit: 0,
      canCreateGroup: false,
      confirmedAt: now,
      createdAt: now,
      updatedAt: now,
    }),
    personalNamespaceInsert(db, names.username, 'Ghost User', now),
    // Created confirmed, so with the row of its primary address (primary-email.ts).
    primaryEmailInsert(db, sql`u.username = ${names.username}`, now),
  ];
}

const findGhost = (db: Db) => db.select().from(users).where(eq(users.userType, 'ghost')).orderBy(users.id).get();

/**
 * The ghost user that holds contributions of deleted users (Users::Internal.ghost): created
 * lazily, username `ghost` (or ghost1, ghost2… when taken), email `ghost%s@example.com`.
 * Concurrent creators race on the unique indexes; the loser reads the winner's row.
 */
export async function findOrCreateGhost(db: Db): Promise<UserRow> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await findGhost(db);
    if (existing) return existing;
    const username = await uniquify((n) => `ghost${n ?? ''}`, (s) => usernameTaken(db, s));
    const email = await uniquify(
      (n) => `ghost${n ?? ''}@example.com`,
      async (s) => Boolean(await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${s})`).get()),
    );
    const now = Date.now();
    try {
      await db.batch(ghostInsert(db, { username, email }, now) as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  const ghost = await findGhost(db);
  if (!ghost) throw new Error('could not create the ghost user');
  return ghost;
}

/**
 * Groups the user is the only owner of (`User#solo_owned_groups`, which makes `can_be_removed?`
 * false): no other owner in the group or above it (`Group#last_owner?` counts inherited owners).
 * `userIds`: a literal list (sql`(${id})`) or a sub-select of one user.
 */
export function soleOwnedGroupsSql(userIds: SQL | { getSQL(): SQL }) {
  return sql`SELECT m.source_id FROM members m JOIN namespaces g ON g.id = m.source_id WHERE m.user_id IN ${userIds} AND m.source_type = 'Namespace' AND m.access_level = 50
    AND NOT EXISTS (SELECT 1 FROM members o JOIN namespaces a ON a.id = o.source_id WHERE o.source_type = 'Namespace' AND o.access_level = 50 AND o.user_id NOT IN ${userIds}
      AND g.traversal_path >= a.traversal_path AND g.traversal_path < a.traversal_path || ':')`;
}

/**
 * `without_projects` (User.without_projects: no project authorization): no project membership and
 * no membership of a group holding a project anywhere below it.
 */
export const withoutProjectsSql = () => sql`(NOT EXISTS (SELECT 1 FROM members m WHERE m.user_id = ${users.id} AND m.source_type = 'Project')
  AND NOT EXISTS (SELECT 1 FROM members m JOIN namespaces a ON a.id = m.source_id JOIN namespaces d ON d.traversal_path >= a.traversal_path AND d.traversal_path < a.traversal_path || ':'
    JOIN projects pr ON pr.namespace_id = d.id WHERE m.user_id = ${users.id} AND m.source_type = 'Namespace'))`;

/** `"<username>/<id>+<time>"`, the value GitLab stores in `blocked_by`/`unblocked_by` (Users::BlockService). */
export function actorStamp(actor: UserRow, now: number): string {
  const t = new Date(now).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  return `${actor.username}/${actor.id}+${t}`;
}

/** Upserts one custom attribute (CustomAttributes::UpsertService). */
export function upsertCustomAttribute(db: Db, userId: number, key: string, value: string) {
  return db
    .insert(userCustomAttributes)
    .values({ userId, key, value })
    .onConflictDoUpdate({ target: [userCustomAttributes.userId, userCustomAttributes.key], set: { value } });
}

/** Gitlab::FileTypeDetection::SAFE_IMAGE_EXT and the 200 KiB limit of `User#avatar`. */
const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];
const AVATAR_MAX_BYTES = 200 * 1024;

export function avatarErrors(file: Blob): string[] {
  const name = (file as File).name ?? '';
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  const errors: string[] = [];
  if (!AVATAR_EXTENSIONS.includes(ext)) errors.push(`file format is not supported. Please try one of the following supported formats: ${AVATAR_EXTENSIONS.join(', ')}`);
  if (file.size > AVATAR_MAX_BYTES) errors.push('is too big (should be at most 200 KiB)');
  return errors;
}

/** Stores an uploaded avatar where GitLab serves it (`/uploads/-/system/user/avatar/:id/:filename`); returns the path. */
export async function storeAvatar(blobs: BlobStore, userId: number, file: Blob): Promise<string> {
  const name = ((file as File).name || 'avatar.png').replace(/[^A-Za-z0-9._-]/g, '_');
  const key = `uploads/-/system/user/avatar/${userId}/${name}`;
  await blobs.put(key, await file.arrayBuffer(), file.type || undefined);
  return `/${key}`;
}
