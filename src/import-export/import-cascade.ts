/**
 * What goes with a deleted project (platform/cascade.ts): its import state and failures, an upload
 * the job has not consumed yet, and the raw commit objects an imported repository keeps beside its
 * rows (bundle-import.ts `rawCommitKey`: commits whose bytes the rows cannot rebuild). Which commits
 * have one is not recorded, so every commit of an imported project is named; deleting a key that
 * was never written is harmless on both blob stores.
 */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { importFailures, mergeRequestDiffCommits, mergeRequestDiffFiles, mergeRequestDiffs, mergeRequests, projectImportStates, repoCommits } from '../db/schema';
import { type Cascade, type IdSelect, within } from '../platform/cascade';
import { rawCommitKey } from './bundle-import';

/** The archive's diff files and commits (import-diffs.ts) of the versions of merge requests `mrIds`. */
function archiveDiffDeletes(db: Db, mrIds: IdSelect) {
  const versions = db.select({ id: mergeRequestDiffs.id }).from(mergeRequestDiffs).where(within(mergeRequestDiffs.mergeRequestId, mrIds));
  return [db.delete(mergeRequestDiffFiles).where(inArray(mergeRequestDiffFiles.mergeRequestDiffId, versions)), db.delete(mergeRequestDiffCommits).where(inArray(mergeRequestDiffCommits.mergeRequestDiffId, versions))];
}

export const importExportCascade: Cascade = {
  mergeRequest: (db, ids) => ({ statements: archiveDiffDeletes(db, ids) }),
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
    statements: [
      ...archiveDiffDeletes(db, db.select({ id: mergeRequests.id }).from(mergeRequests).where(within(mergeRequests.projectId, ids))),
      db.delete(importFailures).where(within(importFailures.projectId, ids)),
      db.delete(projectImportStates).where(within(projectImportStates.projectId, ids)),
    ],
  }),
};
