/** What goes with a deleted project (platform/cascade.ts): its dependency list and the lockfiles it was read from. Advisories are the instance's. */
import { inArray } from 'drizzle-orm';
import { projectDependencies, projectDependencyFiles } from '../db/schema';
import type { Cascade } from '../platform/cascade';

export const dependenciesCascade: Cascade = {
  project: (db, ids) => ({
    statements: [db.delete(projectDependencies).where(inArray(projectDependencies.projectId, ids as never)), db.delete(projectDependencyFiles).where(inArray(projectDependencyFiles.projectId, ids as never))],
  }),
};
