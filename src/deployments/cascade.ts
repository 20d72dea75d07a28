/**
 * What goes with a deleted project (platform/cascade.ts): its deployments, environments and
 * protected environments with their deploy and approval entries. Rows are named by sub-select.
 */
import { inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deploymentApprovals, deploymentMergeRequests, deployments, environments, protectedEnvironmentEntries, protectedEnvironments } from '../db/schema';
import type { Cascade } from '../platform/cascade';

export const deploymentsCascade: Cascade = {
  project: (db, ids) => ({
    statements: [
      // Approvals and shipped merge requests first: they are found through the deployments.
      db.delete(deploymentApprovals).where(inArray(deploymentApprovals.deploymentId, db.select({ id: deployments.id }).from(deployments).where(inArray(deployments.projectId, ids as never)))),
      db.delete(deploymentMergeRequests).where(inArray(deploymentMergeRequests.deploymentId, db.select({ id: deployments.id }).from(deployments).where(inArray(deployments.projectId, ids as never)))),
      db.delete(deployments).where(inArray(deployments.projectId, ids as never)),
      db.delete(environments).where(inArray(environments.projectId, ids as never)),
      db
        .delete(protectedEnvironmentEntries)
        .where(inArray(protectedEnvironmentEntries.protectedEnvironmentId, db.select({ id: protectedEnvironments.id }).from(protectedEnvironments).where(inArray(protectedEnvironments.projectId, ids as never)))),
      db.delete(protectedEnvironments).where(inArray(protectedEnvironments.projectId, ids as never)),
    ],
  }),
};

/** The approvals and shipped merge requests of the deployments `ids` names (a sub-select), deleted before those deployments. */
export const deploymentDependents = (db: Db, ids: SQL) =>
  [db.delete(deploymentApprovals).where(sql`${deploymentApprovals.deploymentId} IN ${ids}`), db.delete(deploymentMergeRequests).where(sql`${deploymentMergeRequests.deploymentId} IN ${ids}`)] as const;
