/** What goes with a deleted project (platform/cascade.ts): its import state and failures, and an upload the job has not consumed yet. */
import { importFailures, projectImportStates } from '../db/schema';
import { type Cascade, within } from '../platform/cascade';

export const importExportCascade: Cascade = {
  project: (db, ids) => ({
    blobReads: [
      {
        query: db.select({ key: projectImportStates.blobKey }).from(projectImportStates).where(within(projectImportStates.projectId, ids)),
        keys: (rows: { key: string | null }[]) => rows.flatMap((r) => (r.key ? [r.key] : [])),
      },
    ],
    statements: [db.delete(importFailures).where(within(importFailures.projectId, ids)), db.delete(projectImportStates).where(within(projectImportStates.projectId, ids))],
  }),
};
