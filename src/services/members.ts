/**
 * Membership rules (app/services/members/*, app/models/members/*): who may manage members,
 * the owner rules, inherited-level validation, and the sole-owner count users need.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { members } from '../db/schema';
import { ACCESS, activeMember } from '../lib/abilities';

export const LEVEL_NAMES: Record<number, string> = { 10: 'Guest', 15: 'Planner', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

/** Owners of a group (direct memberships), at most `limit`. */
export async function groupOwnerCount(db: Db, groupId: number, limit = 2): Promise<number> {
  const rows = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.sourceType, 'Namespace'), eq(members.sourceId, groupId), eq(members.accessLevel, ACCESS.OWNER), activeMember()))
    .limit(limit)
    .all();
  return rows.length;
}

/** Groups whose only owner is the user (`User#solo_owned_groups`). */
export function soleOwnedGroupsSql(userId: number) {
  return sql`SELECT m.source_id FROM members m WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND m.access_level = 50
    AND NOT EXISTS (SELECT 1 FROM members o WHERE o.source_type = 'Namespace' AND o.source_id = m.source_id AND o.access_level = 50 AND o.user_id != ${userId})`;
}

export async function soleOwnedGroupIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db.all<{ source_id: number }>(soleOwnedGroupsSql(userId));
  return rows.map((r) => Number(r.source_id));
}
