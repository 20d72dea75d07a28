/**
 * Membership rules (app/services/members/*, app/models/members/*): who may manage members,
 * the owner rules, inherited-level validation, and the sole-owner count users need.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { members } from '../db/schema';
import { ACCESS, activeMember } from './abilities';

export const LEVEL_NAMES: Record<number, string> = { 10: 'Guest', 15: 'Planner', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

/** Owners of a group, its ancestors' owners included (`Group#last_owner?`), at most `limit`. */
export async function groupOwnerCount(db: Db, groupIds: number[], limit = 2): Promise<number> {
  const rows = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.sourceType, 'Namespace'), inArray(members.sourceId, groupIds), eq(members.accessLevel, ACCESS.OWNER), activeMember()))
    .limit(limit)
    .all();
  return rows.length;
}

/** Groups whose only owner is the user (`User#solo_owned_groups`). */
export function soleOwnedGroupsSql(userId: number) {
  return sql`SELECT m.source_id FROM members m JOIN namespaces g ON g.id = m.source_id WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND m.access_level = 50
    AND NOT EXISTS (SELECT 1 FROM members o JOIN namespaces a ON a.id = o.source_id WHERE o.source_type = 'Namespace' AND o.access_level = 50 AND o.user_id != ${userId}
      AND g.traversal_path >= a.traversal_path AND g.traversal_path < a.traversal_path || ':')`;
}

export async function soleOwnedGroupIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db.all<{ source_id: number }>(soleOwnedGroupsSql(userId));
  return rows.map((r) => Number(r.source_id));
}
