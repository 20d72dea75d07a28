/**
 * Membership rules (app/services/members/*, app/models/members/*): who may manage members,
 * the owner rules and inherited-level validation.
 */
import { and, eq, inArray, gt, or } from 'drizzle-orm';
import type { Db } from '../db/client';
import {
  accessGrants,
} from '../db/schema';
import { chunks } from '../platform/chunks';
import { ACCESS, activeGrant, type NamespaceRow, type ProjectRow, traversalIds } from './abilities';

export const LEVEL_NAMES: Record<number, string> = { 10: 'Guest', 15: 'Planner', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

/** Project#members_among: the given users who are members of the project (directly, through its groups, or its personal owner). */
export async function projectMembersAmong(db: Db, project: ProjectRow, ns: NamespaceRow, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const groupIds = traversalIds(ns);
  const out = new Set<number>();
  if (ns.kind === 'User' && ns.ownerId != null && ids.includes(ns.ownerId)) out.add(ns.ownerId);
  for (const part of chunks([...new Set(ids)], 80)) {
    const sources = [and(eq(accessGrants.sourceType, 'Project'), eq(accessGrants.sourceId, project.id))];
    if (groupIds.length) sources.push(and(eq(accessGrants.sourceType, 'Namespace'), inArray(accessGrants.sourceId, groupIds)));
    const rows = await db
      .select({ userId: accessGrants.userId })
      .from(accessGrants)
      .where(and(inArray(accessGrants.userId, part), or(...sources), gt(accessGrants.accessLevel, ACCESS.MINIMAL), activeGrant()))
      .all();
    for (const r of rows) out.add(r.userId);
  }
  return ids.filter((id, i) => out.has(id) && ids.indexOf(id) === i);
}
