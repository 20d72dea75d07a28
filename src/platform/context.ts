import type { Config } from './config';
import type { Db } from '../db/client';
import type { users } from '../db/schema';
import type { Jobs } from './jobs';
import type { RateLimiter } from './rate-limiter';
import type { BlobStore } from './blobs';
import type { StaticAssets } from './assets';

export type UserRow = typeof users.$inferSelect;

/** How the caller proved who they are. */
export type CredentialKind = 'personal_access_token' | 'impersonation_token' | 'oauth' | 'session' | 'job_token';

export interface Credential {
  kind: CredentialKind;
  id: number;
  scopes: string[];
}

/** The resolved caller of a request (middleware/auth.ts). `user` is null for anonymous requests. */
export interface Caller {
  user: UserRow | null;
  /** The administrator behind a sudo request; null otherwise. */
  sudoer: UserRow | null;
  credential: Credential | null;
  /** Administrator powers in effect (false for admins without admin mode when admin mode is required). */
  isAdmin: boolean;
}

/** Ports and per-request values every handler can reach through `c.var`. */
export interface Deps {
  db: Db;
  blobs: BlobStore;
  jobs: Jobs;
  config: Config;
  rateLimiter: RateLimiter;
  /** Files shipped from npm packages (the API reference bundle); without it they answer 404. */
  assets?: StaticAssets;
}

export type AppEnv = {
  Variables: Deps & {
    requestId: string;
    caller: Caller;
    rawParams: Record<string, unknown>;
  };
};
