/** A deleted user's tokens, OAuth applications and web sessions (platform/cascade.ts). */
import { oauthAccessTokens, oauthApplications, personalAccessTokens, webSessions } from '../db/schema';
import { type Cascade, within } from '../platform/cascade';

export const authCascade: Cascade = {
  user: (db, ids) => ({
    statements: [
      db.delete(personalAccessTokens).where(within(personalAccessTokens.userId, ids)),
      db.delete(oauthAccessTokens).where(within(oauthAccessTokens.userId, ids)),
      // Doorkeeper applications the user owns go with it (User has_many oauth_applications, dependent: :destroy).
      db.delete(oauthApplications).where(within(oauthApplications.ownerId, ids)),
      db.delete(webSessions).where(within(webSessions.userId, ids)),
    ],
  }),
};
