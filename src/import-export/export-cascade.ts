/** Export rows and archives that go with deleted projects (platform/cascade.ts). */
import { and, inArray, isNotNull } from 'drizzle-orm';
import { projectExportJobs } from '../db/schema';
import type { Cascade } from '../platform/cascade';

export const exportCascade: Cascade = {
  project: (db, ids) => ({
    statements: [db.delete(projectExportJobs).where(inArray(projectExportJobs.projectId, ids as never))],
    blobReads: [
      {
        query: db.select({ key: projectExportJobs.blobKey }).from(projectExportJobs).where(and(inArray(projectExportJobs.projectId, ids as never), isNotNull(projectExportJobs.blobKey))),
        keys: (rows: { key: string | null }[]) => rows.flatMap((r) => (r.key ? [r.key] : [])),
      },
    ],
  }),
};
