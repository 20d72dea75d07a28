/** Export rows and archives, and Markdown uploads, that go with deleted projects (platform/cascade.ts). */
import { and, inArray, isNotNull } from 'drizzle-orm';
import { projectExportJobs, projectUploads } from '../db/schema';
import { uploadKey } from './project-uploads';
import { unfinishedKeys } from './export-parts';
import type { Cascade } from '../platform/cascade';

export const exportCascade: Cascade = {
  project: (db, ids) => ({
    statements: [db.delete(projectExportJobs).where(inArray(projectExportJobs.projectId, ids as never)), db.delete(projectUploads).where(inArray(projectUploads.projectId, ids as never))],
    blobReads: [
      {
        query: db.select({ key: projectExportJobs.blobKey }).from(projectExportJobs).where(and(inArray(projectExportJobs.projectId, ids as never), isNotNull(projectExportJobs.blobKey))),
        keys: (rows: { key: string | null }[]) => rows.flatMap((r) => (r.key ? [r.key] : [])),
      },
      {
        // An export still being written: its parts (the next message finds no row and stops).
        query: db.select({ progress: projectExportJobs.progress }).from(projectExportJobs).where(and(inArray(projectExportJobs.projectId, ids as never), isNotNull(projectExportJobs.progress))),
        keys: (rows: { progress: string | null }[]) => rows.flatMap((r) => unfinishedKeys(r.progress)),
      },
      {
        query: db.select({ projectId: projectUploads.projectId, secret: projectUploads.secret, filename: projectUploads.filename }).from(projectUploads).where(inArray(projectUploads.projectId, ids as never)),
        keys: (rows: { projectId: number; secret: string; filename: string }[]) => rows.map((r) => uploadKey(r.projectId, r.secret, r.filename)),
      },
    ],
  }),
};
