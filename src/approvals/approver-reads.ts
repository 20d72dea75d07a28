/**
 * Whom a rule write may name (ApprovalRules::Updater and UpdateService#filter_eligible_groups!), read
 * in one round trip whatever the number of ids: the users named by id or username (User.by_ids_or_usernames)
 * kept when they are members of the project (Project#members_among), and the groups the caller can
 * access (Group.id_in(ids).accessible_to_user). The same group read tells which of the rule's current
 * groups are hidden from the caller, so an update keeps them.
 */
import { and, eq, gt, inArray, or, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { accessGrants, namespaces, users } from '../db/schema';
import { ACCESS, activeGrant, groupVisibleSql, type NamespaceRow, type ProjectRow, traversalIds } from '../projects/abilities';
import { batchReads, inJson } from '../db/batch-reads';

const safeIds = (ids: number[]) => [...new Set(ids.filter((x) => Number.isSafeInteger(x)))];

export interface EligibleApprovers {
  /** Users to link (undefined when neither user_ids nor usernames was sent). */
  userIds?: number[];
  /** Groups to link (undefined when group_ids was not sent). */
  groupIds?: number[];
  /** The rule's current groups the caller cannot see. */
  hidden: number[];
}

export async function eligibleApprovers(
  c: Context<AppEnv>,
  caller: Caller,
  project: ProjectRow,
  ns: NamespaceRow,
  p: { user_ids?: number[]; usernames?: string[]; group_ids?: number[] },
  current: number[] = [],
): Promise<EligibleApprovers> {
  const db = c.var.db;
  const wantUsers = p.user_ids !== undefined || p.usernames !== undefined;
  const ids = safeIds(p.user_ids ?? []);
  const names = [...new Set((p.usernames ?? []).map((u) => u.toLowerCase()))];
  const named = or(inJson(users.id, ids), inJson(sql`lower(${users.username})`, names));
  const groupIds = safeIds([...(p.group_ids ?? []), ...current]);
  const groupSources = traversalIds(ns);
  const sources = [and(eq(accessGrants.sourceType, 'Project'), eq(accessGrants.sourceId, project.id))];
  if (groupSources.length) sources.push(and(eq(accessGrants.sourceType, 'Namespace'), inArray(accessGrants.sourceId, groupSources)));
  const none = wantUsers && !ids.length && !names.length;
  const [found, memberRows, visible] = await batchReads(db, [
    wantUsers && !none ? db.select({ id: users.id }).from(users).where(named) : undefined,
    wantUsers && !none
      ? db
          .select({ userId: accessGrants.userId })
          .from(accessGrants)
          .where(and(inArray(accessGrants.userId, db.select({ id: users.id }).from(users).where(named)), or(...sources), gt(accessGrants.accessLevel, ACCESS.MINIMAL), activeGrant()))
      : undefined,
    groupIds.length ? db.select({ id: namespaces.id }).from(namespaces).where(and(inJson(namespaces.id, groupIds), eq(namespaces.kind, 'Group'), groupVisibleSql(caller))) : undefined,
  ]);
  const memberIds = new Set((memberRows ?? []).map((m) => m.userId));
  // A personal project's owner is its member without a members row.
  const isMember = (id: number) => memberIds.has(id) || (ns.kind === 'User' && ns.ownerId === id);
  const visibleIds = new Set((visible ?? []).map((g) => g.id));
  return {
    userIds: wantUsers ? [...new Set((found ?? []).map((u) => u.id))].filter(isMember) : undefined,
    groupIds: p.group_ids !== undefined ? safeIds(p.group_ids).filter((id) => visibleIds.has(id)) : undefined,
    hidden: current.filter((id) => !visibleIds.has(id)),
  };
}
