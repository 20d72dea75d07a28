/**
 * Membership rules (app/services/members/*, app/models/members/*): who may manage members,
 * the owner rules and inherited-level validation.
 */
import { and, eq, inArray } from 'drizzle-orm';
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
