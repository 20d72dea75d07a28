/** A deleted user's own rows (platform/cascade.ts). Audit events keep their author ids: GitLab keeps the audit history of deleted users. */
import { or } from 'drizzle-orm';
import { emails, gpgKeys, identities, keys, userCustomAttributes, userFollows, userPreferences, users, userStatuses } from '../db/schema';
import { type Cascade, within } from '../platform/cascade';

export const usersCascade: Cascade = {
  user: (db, ids) => ({
    statements: [
      db.delete(identities).where(within(identities.userId, ids)),
      db.delete(userCustomAttributes).where(within(userCustomAttributes.userId, ids)),
      db.delete(keys).where(within(keys.userId, ids)),
      db.delete(emails).where(within(emails.userId, ids)),
      db.delete(gpgKeys).where(within(gpgKeys.userId, ids)),
      db.delete(userStatuses).where(within(userStatuses.userId, ids)),
      db.delete(userPreferences).where(within(userPreferences.userId, ids)),
      db.delete(userFollows).where(or(within(userFollows.followerId, ids), within(userFollows.followeeId, ids))),
      db.delete(users).where(within(users.id, ids)),
    ],
  }),
};
