import { eq, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { users } from '../schema';

export const findUserById = (db: Db, id: number) => db.select().from(users).where(eq(users.id, id)).get();

/** Case-insensitive username lookup (GitLab `find_by_username`). */
export const findUserByUsername = (db: Db, username: string) =>
  db.select().from(users).where(sql`lower(${users.username}) = lower(${username})`).get();

/** `:id_or_username` path parameters: digits are ids, anything else a username. */
export const findUserByIdOrUsername = (db: Db, value: string) =>
  /^\d+$/.test(value) ? findUserById(db, Number(value)) : findUserByUsername(db, value);
