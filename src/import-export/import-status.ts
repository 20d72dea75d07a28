/**
 * ProjectImportStatus (lib/api/entities/project_import_status.rb): the project's identity, the import
 * state and its hard failures (at most 100, newest first). Reads go in the caller's batch; the
 * presenter is pure.
 */
import { desc, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { importFailures, namespaces, projectImportStates, projects } from '../db/schema';
import { int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { ProjectIdentitySchema, projectIdentity } from '../projects/project-entity';
import { namespaceFullNameSql } from '../projects/group-queries';

export const FailedRelationSchema = obj({
  id: int,
  created_at: timestamp,
  exception_class: z.string(),
  exception_message: z.string().nullable(),
  source: z.string(),
  relation_name: z.string(),
  line_number: int.nullable(),
}).meta({ id: 'ProjectImportFailedRelation' });

export const ProjectImportStatusSchema = ProjectIdentitySchema.extend({
  import_status: z.enum(['none', 'scheduled', 'started', 'finished', 'failed']),
  import_type: z.string().nullable(),
  correlation_id: z.string().nullable(),
  failed_relations: z.array(FailedRelationSchema),
  import_error: z.string().nullable(),
}).meta({ id: 'ProjectImportStatus' });
export type ProjectImportStatus = z.infer<typeof ProjectImportStatusSchema>;

type StateRow = typeof projectImportStates.$inferSelect;
type FailureRow = typeof importFailures.$inferSelect;

/** The import state, its newest 100 failures and the namespace's full name, for a project id as SQL. */
export function importStatusReads(db: Db, projectId: SQL) {
  return [
    db.select().from(projectImportStates).where(sql`${projectImportStates.projectId} = ${projectId}`).limit(1),
    db.select().from(importFailures).where(sql`${importFailures.projectId} = ${projectId}`).orderBy(desc(importFailures.id)).limit(100),
    db.select({ fullName: namespaceFullNameSql() }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(sql`${projects.id} = ${projectId}`).limit(1),
  ] as const;
}

export function importStatusEntity(p: ProjectRow, ns: NamespaceRow, fullName: string, state: StateRow | undefined, failures: FailureRow[]): ProjectImportStatus {
  return {
    ...projectIdentity(p, ns, { namespaceFullName: fullName }),
    import_status: (state?.status ?? 'none') as ProjectImportStatus['import_status'],
    import_type: state?.importType ?? null,
    correlation_id: state?.correlationId ?? null,
    // ImportFailure rows of this import (`relation_hard_failures`), newest first.
    failed_relations: failures
      .filter((f) => f.correlationId === state?.correlationId)
      .map((f) => ({
        id: f.id,
        created_at: iso(f.createdAt),
        exception_class: f.exceptionClass,
        exception_message: f.exceptionMessage,
        source: f.source,
        relation_name: f.relationKey,
        line_number: f.relationIndex,
      })),
    import_error: state?.lastError ?? null,
  };
}
