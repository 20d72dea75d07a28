/**
 * A new runner with its authentication token, for both ways GitLab makes one: registration with a
 * registration token (POST /runners) and creation by a user (POST /user/runners). The runner row,
 * its project or group link and its id read back go in one batch; the token is returned once and
 * only its digest is stored.
 */
import { eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { writeThenRead } from '../db/batch-reads';
import { ciRunnerNamespaces, ciRunnerProjects, ciRunners } from '../db/schema';
import type { AppEnv } from '../platform/context';
import type { Settings } from '../settings/settings';
import { digestOf, newAuthenticationToken, type RunnerType, tokenExpiry } from './runner-tokens';

type RunnerInsert = typeof ciRunners.$inferInsert;

export interface NewRunner {
  type: RunnerType;
  /** The project (project_type) or group (group_type) it belongs to. */
  ownerId: number;
  registrationType: 'registration_token' | 'authenticated_user';
  /** Validated attributes and, for registration, what the runner reports about itself. */
  columns: Omit<RunnerInsert, 'runnerType' | 'tokenDigest' | 'tokenExpiresAt' | 'registrationType' | 'createdAt' | 'updatedAt'>;
}

/** Inserts the runner; undefined when its row could not be read back. */
export async function createRunner(c: Context<AppEnv>, settings: Settings, n: NewRunner): Promise<{ id: number; token: string; expiresAt: number | null } | undefined> {
  const db = c.var.db;
  const now = Date.now();
  const token = newAuthenticationToken(n.registrationType);
  const digest = await digestOf(c, token);
  const expiresAt = tokenExpiry(settings, n.type, now);
  const runnerId = sql`(SELECT ${ciRunners.id} FROM ${ciRunners} WHERE ${ciRunners.tokenDigest} = ${digest})`;
  const [[created]] = await writeThenRead(
    db,
    [
      db.insert(ciRunners).values({
        ...n.columns,
        runnerType: n.type,
        tokenDigest: digest,
        tokenExpiresAt: expiresAt,
        // Creating is not a contact: the runner is not_connected until it verifies or polls.
        contactedAt: null,
        registrationType: n.registrationType,
        createdAt: now,
        updatedAt: now,
      }),
      ...(n.type === 'project_type' ? [db.insert(ciRunnerProjects).values({ runnerId, projectId: n.ownerId, createdAt: now })] : []),
      ...(n.type === 'group_type' ? [db.insert(ciRunnerNamespaces).values({ runnerId, namespaceId: n.ownerId })] : []),
    ],
    [db.select({ id: ciRunners.id }).from(ciRunners).where(eq(ciRunners.tokenDigest, digest)).limit(1)],
  );
  return created ? { id: created.id, token, expiresAt } : undefined;
}
