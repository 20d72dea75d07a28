/**
 * Project exports (GitLab ProjectExportJob + the export file of ImportExportUpload): one row per
 * `POST /projects/:id/export`. The job moves it queued -> started -> finished (or failed); the
 * archive lives in the blob store under `blob_key` until `expires_at`.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const projectExportJobs = sqliteTable(
  'project_export_jobs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    userId: integer('user_id').notNull(),
    /** The queue message id: a redelivered message finds its row by it. */
    jid: text('jid').notNull().unique(),
    /** queued, started, finished, failed. */
    status: text('status').notNull(),
    /** `description` of the request: overrides the project's in the exported project.json. */
    description: text('description'),
    uploadUrl: text('upload_url'),
    uploadMethod: text('upload_method'),
    /** Blob key of the finished archive (random per export: never derived from the project's path). */
    blobKey: text('blob_key'),
    /** The archive's file name, fixed when it was written (GitLab's timestamped export filename). */
    filename: text('filename'),
    error: text('error'),
    /**
     * JSON of the export's progress across queue messages (export-parts.ts `ExportProgress`): the
     * archive key, the relation and cursor being written and the sizes of the parts written so far.
     * Advanced with a compare-and-set on this column, so a redelivered message never moves it twice.
     */
    progress: text('progress'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    expiresAt: integer('expires_at'),
  },
  (t) => [index('project_export_jobs_project').on(t.projectId, t.id)],
);
