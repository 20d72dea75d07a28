/**
 * The `emails` row of a user's primary address. GitLab keeps one for every confirmed primary
 * (User `after_save` when the email or confirmed_at changed on a confirmed user: an existing row of
 * the address is confirmed, else `add_primary_email_to_emails!` creates it with the user's
 * confirmed_at), so /user/emails lists the primary too, and a row left behind by an email change stays
 * as a secondary address. These are batch statements, placed after the write of the user they follow.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { emails } from '../db/schema';

/**
 * The row of the primary address of the confirmed users that `userWhere` (over `users u`) picks, with
 * their confirmed_at, unless the address has one already (Email#email= lowercases and strips).
 */
export const primaryEmailInsert = (db: Db, userWhere: SQL, now: number) =>
  db
    .insert(emails)
    .select(sql`SELECT NULL, u.id, lower(trim(u.email)), u.confirmed_at, ${now} FROM users u WHERE (${userWhere}) AND u.confirmed_at IS NOT NULL`)
    .onConflictDoNothing();

/**
 * After a confirmed user's primary address changed: the user's own row of the new address, if any,
 * becomes confirmed (Devise `confirm`; a confirmed row keeps its date), otherwise the row is created.
 */
export function primaryEmailChanged(db: Db, userId: number, now: number) {
  const confirmed = sql`EXISTS (SELECT 1 FROM users u WHERE u.id = ${userId} AND u.confirmed_at IS NOT NULL)`;
  return [
    db
      .update(emails)
      .set({ confirmedAt: now })
      .where(sql`${emails.userId} = ${userId} AND ${emails.email} = (SELECT lower(trim(u.email)) FROM users u WHERE u.id = ${userId}) AND ${emails.confirmedAt} IS NULL AND ${confirmed}`),
    primaryEmailInsert(db, sql`u.id = ${userId}`, now),
  ] as const;
}
