import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);

/**
 * One project's file import (GitLab `project_import_state`): status scheduled -> started ->
 * finished | failed, the uploaded archive's blob key, and the consumer's progress, so a redelivered
 * or resumed job continues where the last one stopped (`progress`: JSON `{ "<relation>": next line }`
 * plus the archive user -> local user map).
 */
export const projectImportStates = sqliteTable('project_import_states', {
  projectId: integer('project_id').primaryKey(),
  /** scheduled | started | finished | failed */
  status: text('status').notNull(),
  importType: text('import_type').notNull().default('gitlab_project'),
  correlationId: text('correlation_id').notNull(),
  lastError: text('last_error'),
  importerId: integer('importer_id').notNull(),
  blobKey: text('blob_key'),
  /** JSON of `override_params` given with the upload: applied over tree/project.json. */
  overrideParams: text('override_params').notNull().default('{}'),
  progress: text('progress').notNull().default('{}'),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

/** A line of an archive relation that could not be imported (GitLab `import_failures`). */
export const importFailures = sqliteTable(
  'import_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    correlationId: text('correlation_id').notNull(),
    relationKey: text('relation_key').notNull(),
    relationIndex: integer('relation_index'),
    exceptionClass: text('exception_class').notNull(),
    exceptionMessage: text('exception_message'),
    source: text('source').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  // One failure per relation line: a redelivered chunk records it once.
  (t) => [index('import_failures_project').on(t.projectId, t.id)],
);
