/**
 * Group writes and shared helpers: path rules (lib/gitlab/path_regex.rb), full names, the
 * statements of a new group (namespace, its traversal path, the creator as owner) for one batch,
 * and the cascade of a deletion (Groups::DestroyService removes subgroups and projects).
 */
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { findGroupWhere, groupIdRef, namespaceFullNameSql } from './group-queries';
import type { BatchItem } from 'drizzle-orm/batch';
import { notFound } from '../platform/errors';
import { members, namespaces, projects } from '../db/schema';
import { canReadGroupVisibly, groupLevelSql, memberBelowSql, type NamespaceRow, subtreeOf, traversalIds, VISIBILITY_LEVEL } from './abilities';
import { USERNAME_FORMAT_MESSAGE } from '../users/users';
import { checkText, NAME_MAX, tooLong } from '../platform/text-limits';
import { isValidBranchName } from '../platform/git-ref';

const NAMESPACE_PATH_RE = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_\-]|[a-zA-Z0-9_])$/;
/** Top-level group paths GitLab reserves (path_regex.rb TOP_LEVEL_ROUTES, abridged). */
const RESERVED_TOP = new Set(['-', 'admin', 'api', 'assets', 'dashboard', 'explore', 'groups', 'help', 'import', 'login', 'oauth', 'profile', 'projects', 'public', 'search', 'snippets', 'uploads', 'users', 'v2']);
/** Group names: Gitlab::Regex.group_name_regex. */
const GROUP_NAME_RE = /^[\p{L}\p{N}_.()\-+ ]*$/u;

/** Namespace::Detail: `validates :description, length: { maximum: 255 }`. */
const GROUP_TEXT = { description: { max: NAME_MAX } };

export function groupFieldErrors(f: { name?: string; path?: string; parentId?: number | null; description?: string | null; defaultBranch?: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  checkText(errors, { description: f.description }, GROUP_TEXT);
  // NamespaceSetting#default_branch_name (blank is stored as none): a name git accepts for a branch.
  if (f.defaultBranch !== undefined && f.defaultBranch.trim() !== '' && (!isValidBranchName(f.defaultBranch) || tooLong(f.defaultBranch, NAME_MAX)))
    errors.default_branch_name = ['is invalid'];
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (f.name !== undefined) {
    if (!f.name.trim()) add('name', "can't be blank");
    else if (!GROUP_NAME_RE.test(f.name) || !/^[\p{L}\p{N}_]/u.test(f.name))
      add('name', "can contain only letters, digits, emoji, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.");
    if (f.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  }
  if (f.path !== undefined) {
    if (!f.path) add('path', "can't be blank");
    else if (!NAMESPACE_PATH_RE.test(f.path) || /\.(git|atom)$/i.test(f.path)) add('path', USERNAME_FORMAT_MESSAGE);
    else if (!f.parentId && RESERVED_TOP.has(f.path.toLowerCase())) add('path', `${f.path} is a reserved name`);
    if (f.path.length > 255) add('path', 'is too long (maximum is 255 characters)');
  }
  return errors;
}

/** `full_name` of namespaces: ancestors' names joined by ` / ` (one query for all rows). */
export async function loadFullNames(db: Db, rows: NamespaceRow[]): Promise<Map<number, string>> {
  const ids = [...new Set(rows.flatMap((r) => traversalIds(r)))];
  const names = new Map<number, string>();
  for (const r of rows) names.set(r.id, r.name);
  for (let i = 0; i < ids.length; i += 90) {
    const chunk = ids.slice(i, i + 90).filter((id) => !names.has(id));
    if (!chunk.length) continue;
    for (const n of await db.select({ id: namespaces.id, name: namespaces.name }).from(namespaces).where(inArray(namespaces.id, chunk)).all()) names.set(n.id, n.name);
  }
  const out = new Map<number, string>();
  for (const r of rows) {
    const chain = traversalIds(r);
    out.set(r.id, chain.length ? chain.map((id) => names.get(id) ?? '').join(' / ') : r.name);
  }
  return out;
}

/** Group#visibility_level_allowed_by_parent. */
export function visibilityAllowedByParent(visibility: string, parent: NamespaceRow | null | undefined): string | null {
  if (parent && VISIBILITY_LEVEL[visibility] > VISIBILITY_LEVEL[parent.visibility])
    return `${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`;
  return null;
}

/** Group#visibility_level_allowed_by_sub_groups / _by_projects when lowering visibility. */
export async function visibilityAllowedByChildren(db: Db, group: NamespaceRow, visibility: string): Promise<string | null> {
  const higher = Object.entries(VISIBILITY_LEVEL).filter(([, n]) => n > VISIBILITY_LEVEL[visibility]).map(([k]) => k);
  if (!higher.length) return null;
  const sub = await db.select({ id: namespaces.id }).from(namespaces).where(and(eq(namespaces.parentId, group.id), inArray(namespaces.visibility, higher))).limit(1).get();
  if (sub) return `${visibility} is not allowed since there are sub-groups with higher visibility.`;
  const pr = await db.select({ id: projects.id }).from(projects).where(and(eq(projects.namespaceId, group.id), inArray(projects.visibility, higher))).limit(1).get();
  if (pr) return `${visibility} is not allowed since this group contains projects with higher visibility.`;
  return null;
}

/**
 * Rows of a new group in one batch: the namespace, then its traversal path (which needs the new
 * id), then the creator's owner membership. The batch is atomic; a lost race on the full path
 * fails the whole batch on the unique index.
 */
export function groupInsertStatements(db: Db, values: typeof namespaces.$inferInsert, parent: NamespaceRow | null, creatorId: number, now: number) {
  const byPath = sql`lower(${namespaces.fullPath}) = lower(${values.fullPath})`;
  const prefix = parent?.traversalPath ?? '/';
  return [
    db.insert(namespaces).values(values),
    db.update(namespaces).set({ traversalPath: sql`${prefix} || ${namespaces.id} || '/'` }).where(byPath),
    db.insert(members).select(
      db
        .select({
          id: sql<number>`NULL`.as('id'),
          sourceType: sql<string>`'Namespace'`.as('source_type'),
          sourceId: namespaces.id,
          userId: sql<number>`${creatorId}`.as('user_id'),
          accessLevel: sql<number>`50`.as('access_level'),
          expiresAt: sql<string>`NULL`.as('expires_at'),
          createdById: sql<number>`${creatorId}`.as('created_by_id'),
          createdAt: sql<number>`${now}`.as('created_at'),
          updatedAt: sql<number>`${now}`.as('updated_at'),
        })
        .from(namespaces)
        .where(byPath),
    ),
  ] as const;
}

/** The ids of every project in the group's subtree, as a sub-select. */
export function groupTreeProjectIds(db: Db, group: Pick<NamespaceRow, 'traversalPath'>) {
  const tree = db.select({ id: namespaces.id }).from(namespaces).where(subtreeOf(group.traversalPath!));
  return db.select({ id: projects.id }).from(projects).where(inArray(projects.namespaceId, tree));
}

/** Renaming a path rewrites the full path of the group and of every descendant in one statement. */
export function fullPathRewrite(db: Db, group: NamespaceRow, newFullPath: string) {
  const old = group.fullPath;
  return db
    .update(namespaces)
    .set({ fullPath: sql`${newFullPath} || substr(${namespaces.fullPath}, ${old.length + 1})` })
    .where(and(subtreeOf(group.traversalPath!), sql`${namespaces.id} != ${group.id}`));
}

/**
 * `find_group!`: a group the caller cannot read is indistinguishable from a missing one. One
 * statement: the group, its full name, the caller's level in it and whether the caller is a member
 * somewhere below it.
 */
export async function findReadableGroup(c: Context<AppEnv>, caller: Caller, id: string): Promise<{ group: NamespaceRow; level: number; fullName: string }> {
  const { reads: _, ...found } = await findReadableGroupWith(c, caller, id, () => [] as const);
  return found;
}

/**
 * `findReadableGroup` and, in the same round trip, reads that need nothing but the group's id
 * (`groupId` is the id, or a sub-select by full path). They run before the caller is authorised
 * and are dropped with the 404 when the group is hidden: reads change nothing.
 */
export async function findReadableGroupWith<const R extends readonly BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  caller: Caller,
  id: string,
  reads: (groupId: SQL) => R,
): Promise<{ group: NamespaceRow; level: number; fullName: string; reads: { [K in keyof R]: R[K] extends BatchItem<'sqlite'> ? Awaited<R[K]> : never } }> {
  const userId = caller.user?.id;
  const db = c.var.db;
  const head = db
    .select({
      group: namespaces,
      fullName: namespaceFullNameSql(),
      level: (userId === undefined ? sql<number>`0` : groupLevelSql(userId)).as('level'),
      below: (userId === undefined ? sql<number>`0` : memberBelowSql(userId)).as('below'),
    })
    .from(namespaces)
    .where(findGroupWhere(id))
    .limit(1);
  const more = reads(groupIdRef(id));
  type Head = Awaited<typeof head>;
  const [rows, ...rest] = more.length ? ((await db.batch([head, ...more])) as unknown as [Head, ...unknown[]]) : [await head];
  const row = rows[0];
  if (!row) throw notFound('Group');
  const level = Number(row.level ?? 0);
  if (!(canReadGroupVisibly(caller, row.group, level) || (caller.user && row.below))) throw notFound('Group');
  return { group: row.group, level, fullName: row.fullName, reads: rest as never };
}
