/**
 * Project Markdown uploads (GitLab's Upload rows of FileUploader): a file uploaded to a project,
 * linked from Markdown as `/uploads/<secret>/<filename>`. The bytes live in the blob store under a
 * key carrying the project id (project-uploads.ts), so no upload of one project, imported or not,
 * can replace another project's.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const projectUploads = sqliteTable(
  'project_uploads',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    /**
     * The link's 32-hex directory (FileUploader.generate_secret, GitLab's `secret`). Unguessable but
     * no secret: every Markdown link to the file shows it, so it is named apart from secret columns.
     */
    secret: text('dir').notNull(),
    filename: text('filename').notNull(),
    size: integer('size').notNull(),
    /** Null for an imported upload (its uploader is not known here). */
    uploadedById: integer('uploaded_by_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('project_uploads_path').on(t.projectId, t.secret, t.filename), index('project_uploads_created').on(t.projectId, t.createdAt)],
);
