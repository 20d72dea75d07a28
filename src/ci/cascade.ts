/**
 * What goes with deleted projects and groups (platform/cascade.ts): their registration tokens, their
 * runner links, and the project or group runners left with nothing to run for (the deleted project
 * was the runner's only one, or the runner's group is deleted). Each statement names the doomed rows
 * by sub-select, and runners go before the links that find them.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { ciRegistrationTokens, ciRunnerNamespaces, ciRunnerProjects, ciRunners } from '../db/schema';
import type { Cascade } from '../platform/cascade';
import { forgetAllRunners } from './runner-tokens';

/**
 * The deleted runners must not keep answering from this isolate's runner cache: it is emptied as the
 * deletion's batch is built (a poll whose read started before that is not cached after it; one read
 * in the single round trip until the batch commits still can be).
 */
export const ciCascade: Cascade = {
  project: (db, ids) => {
    forgetAllRunners(db);
    return {
      statements: [
        // Project runners none of whose other projects survive.
        db.delete(ciRunners).where(
          and(
            eq(ciRunners.runnerType, 'project_type'),
            inArray(ciRunners.id, db.select({ id: ciRunnerProjects.runnerId }).from(ciRunnerProjects).where(inArray(ciRunnerProjects.projectId, ids as never))),
            sql`NOT EXISTS (SELECT 1 FROM ${ciRunnerProjects} rp WHERE rp.runner_id = ${ciRunners.id} AND rp.project_id NOT IN ${ids})`,
          ),
        ),
        db.delete(ciRunnerProjects).where(inArray(ciRunnerProjects.projectId, ids as never)),
        db.delete(ciRegistrationTokens).where(and(eq(ciRegistrationTokens.scope, 'project'), inArray(ciRegistrationTokens.ownerId, ids as never))),
      ],
    };
  },
  group: (db, ids) => {
    forgetAllRunners(db);
    return {
      statements: [
        db.delete(ciRunners).where(and(eq(ciRunners.runnerType, 'group_type'), inArray(ciRunners.id, db.select({ id: ciRunnerNamespaces.runnerId }).from(ciRunnerNamespaces).where(inArray(ciRunnerNamespaces.namespaceId, ids as never))))),
        db.delete(ciRunnerNamespaces).where(inArray(ciRunnerNamespaces.namespaceId, ids as never)),
        db.delete(ciRegistrationTokens).where(and(eq(ciRegistrationTokens.scope, 'group'), inArray(ciRegistrationTokens.ownerId, ids as never))),
      ],
    };
  },
};
