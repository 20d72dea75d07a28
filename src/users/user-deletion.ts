/**
 * DELETE /users/:id in two round trips (issue 13): one batch reads the user, the groups they alone
 * own and the ghost user (or, while there is none, which of its first candidate names are taken);
 * the other deletes everything (platform/cascade.ts), creating the ghost at its head when needed,
 * so the cascade names the ghost by a sub-select instead of an id read first.
 */
import { eq, sql } from 'drizzle-orm';
import { batchReads } from '../db/batch-reads';
import type { Db } from '../db/client';
import { namespaces, users } from '../db/schema';
import { soleOwnedGroupsSql } from './users';

/** `ghost`, `ghost1`, … `ghost9` (Gitlab::Utils::Uniquify's first candidates); past them users.ts's findOrCreateGhost searches on. */
const CANDIDATES = Array.from({ length: 10 }, (_, n) => (n ? `ghost${n}` : 'ghost'));
const EMAILS = CANDIDATES.map((u) => `${u}@example.com`);
const inList = (column: unknown, values: string[]) => sql`lower(${column}) IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;

/** The ghost user as SQL, for statements that run after its creation in the same batch. */
export const GHOST_ID = sql`(SELECT g.id FROM users g WHERE g.user_type = 'ghost' ORDER BY g.id LIMIT 1)`;

/** What the deletion needs to know, one round trip. */
export async function userDeletionReads(db: Db, userId: number) {
  const [[user], soleOwned, [ghost], takenNames, takenPaths, takenEmails] = await batchReads(db, [
    db.select().from(users).where(eq(users.id, userId)).limit(1),
    db.select({ traversalPath: namespaces.traversalPath }).from(namespaces).where(sql`${namespaces.id} IN (${soleOwnedGroupsSql(sql`(${userId})`)})`),
    db.select({ id: users.id }).from(users).where(eq(users.userType, 'ghost')).orderBy(users.id).limit(1),
    db.select({ v: sql<string>`lower(${users.username})`.as('v') }).from(users).where(inList(users.username, CANDIDATES)),
    db.select({ v: sql<string>`lower(${namespaces.fullPath})`.as('v') }).from(namespaces).where(inList(namespaces.fullPath, CANDIDATES)),
    db.select({ v: sql<string>`lower(${users.email})`.as('v') }).from(users).where(inList(users.email, EMAILS)),
  ]);
  const taken = new Set([...takenNames, ...takenPaths, ...takenEmails].map((r) => r.v));
  const username = CANDIDATES.find((u) => !taken.has(u));
  const email = EMAILS.find((e) => !taken.has(e));
  return { user, soleOwned, ghostId: ghost?.id, ghostNames: username && email ? { username, email } : undefined };
}
