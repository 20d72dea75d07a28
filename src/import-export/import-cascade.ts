/**
 * What goes with a deleted project (platform/cascade.ts): its import state and failures, an upload
 * the job has not consumed yet, and the raw commit objects an imported repository keeps beside its
 * rows (bundle-import.ts `rawCommitKey`: commits whose bytes the rows cannot rebuild). Which commits
 * have one is not recorded, so every commit of an imported project is named; deleting a key that
 * was never written is harmless on both blob stores.
 */
import { eq } from 'drizzle-orm';
import { importFailures, projectImportStates, repoCommits } from '../db/schema';
import { type Cascade, within } from '../platform/cascade';
import { rawCommitKey } from './bundle-import';

export const importExportCascade: Cascade = {
  project: (db, ids) => ({
    blobReads: [
      {
        query: db.select({ key: projectImportStates.blobKey }).from(projectImportStates).where(within(projectImportStates.projectId, ids)),
        keys: (rows: { key: string | null }[]) => rows.flatMap((r) => (r.key ? [r.key] : [])),
      },
      {
        query: db
          .select({ projectId: repoCommits.projectId, sha: repoCommits.sha })
          .from(repoCommits)
          .innerJoin(projectImportStates, eq(projectImportStates.projectId, repoCommits.projectId))
          .where(within(repoCommits.projectId, ids)),
        keys: (rows: { projectId: number; sha: string }[]) => rows.map((r) => rawCommitKey(r.projectId, r.sha)),
      },
    ],
    statements: [db.delete(importFailures).where(within(importFailures.projectId, ids)), db.delete(projectImportStates).where(within(projectImportStates.projectId, ids))],
  }),
};
