import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The dependencies of a project as its default branch's lockfiles pin them (GitLab's SBOM
 * occurrences, which the dependency list reads). Rewritten as a whole, in the push's batch, when a
 * push to the default branch changes a lockfile (src/dependencies/scanner.ts). `id` is the list's order.
 */
export const projectDependencies = sqliteTable(
  'project_dependencies',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    version: text('version').notNull(),
    /** GitLab's `package_manager` (`npm`, `yarn`, `bundler`, ...). */
    packageManager: text('package_manager').notNull(),
    /** The lockfile's path in the repository. */
    dependencyFilePath: text('dependency_file_path').notNull(),
    /** The OSV ecosystem and normalised name the advisories know the package by (src/dependencies/ecosystems.ts). */
    ecosystem: text('ecosystem').notNull(),
    packageKey: text('package_key').notNull(),
  },
  (t) => [index('project_dependencies_project').on(t.projectId, t.id)],
);

/**
 * The lockfiles the rows above were read from, by blob: a push whose lockfiles are the same (path and
 * blob) as these changes nothing. A file that parsed to nothing is still listed here.
 */
export const projectDependencyFiles = sqliteTable(
  'project_dependency_files',
  {
    projectId: integer('project_id').notNull(),
    path: text('path').notNull(),
    blobSha: text('blob_sha').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.path] })],
);

/**
 * Security advisories in OSV format (https://ossf.github.io/osv-schema/), loaded by an administrator
 * (scripts/advisories-load.ts). `record` is the OSV JSON as loaded; `id` numbers it for the API.
 */
export const advisories = sqliteTable('advisories', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  osvId: text('osv_id').notNull().unique(),
  record: text('record').notNull(),
});

/** The packages an advisory affects, by OSV ecosystem and a normalised name (src/dependencies/ecosystems.ts), to find an advisory from a dependency. */
export const advisoryPackages = sqliteTable(
  'advisory_packages',
  {
    advisoryId: integer('advisory_id').notNull(),
    ecosystem: text('ecosystem').notNull(),
    name: text('name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ecosystem, t.name, t.advisoryId] }), index('advisory_packages_advisory').on(t.advisoryId)],
);
