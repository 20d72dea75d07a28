/**
 * Group entries of protected branches (EE ProtectedRefAccess): which of the groups the rules name
 * let the caller in. Kept apart from protected-branches.ts, which calls it from the push and merge
 * checks.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { projectGroupLinks } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { memo } from '../platform/read-memo';
import { today } from '../platform/time';
import { ACCESS } from '../projects/abilities';

/** The entries of a rule, as far as groups go. */
interface RuleEntries {
  push: { groupId: number | null }[];
  merge: { groupId: number | null }[];
  unprotect: { groupId: number | null }[];
}

/**
 * EE ProtectedRefAccess#group_access_allowed?: of the groups `rules`' entries name, those that let
 * the caller in: the project is shared with the group at Developer or more (a link in force) and the
 * caller is a direct member of the group at Developer or more. Read (once per request) only when
 * some rule names a group.
 */
export async function groupEntryGrants(c: Context<AppEnv>, caller: Caller, projectId: number, rules: RuleEntries[]): Promise<ReadonlySet<number>> {
  const ids = [...new Set(rules.flatMap((r) => [...r.push, ...r.merge, ...r.unprotect]).map((l) => l.groupId).filter((g): g is number => g != null))].sort((a, b) => a - b);
  const uid = caller.user?.id;
  if (!ids.length || uid == null) return new Set();
  const rows = await memo(c, `protected-branch-groups:${projectId}:${uid}:${ids.join(',')}`, () => {
    const day = today();
    return c.var.db
      .select({ id: projectGroupLinks.groupId })
      .from(projectGroupLinks)
      .where(
        and(
          eq(projectGroupLinks.projectId, projectId),
          inArray(projectGroupLinks.groupId, ids),
          sql`${projectGroupLinks.groupAccess} >= ${ACCESS.DEVELOPER} AND (${projectGroupLinks.expiresAt} IS NULL OR ${projectGroupLinks.expiresAt} > ${day})`,
          sql`EXISTS (SELECT 1 FROM members m WHERE m.source_type = 'Namespace' AND m.source_id = ${sql.raw('"project_group_links"."group_id"')} AND m.user_id = ${uid} AND m.access_level >= ${ACCESS.DEVELOPER} AND (m.expires_at IS NULL OR m.expires_at > ${day}))`,
        ),
      )
      .all();
  });
  return new Set(rows.map((r) => r.id));
}

