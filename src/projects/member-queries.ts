/** Membership rows with their users. */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { members, users } from '../db/schema';

export type SourceType = 'Project' | 'Namespace';

export const findMember = (db: Db, sourceType: SourceType, sourceId: number, userId: number) =>
  db
    .select({ member: members, user: users })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(and(eq(members.sourceType, sourceType), eq(members.sourceId, sourceId), eq(members.userId, userId)))
    .get();
