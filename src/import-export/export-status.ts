/**
 * What GitLab shows of a project's exports: the status (app/models/project.rb `export_status`),
 * the ProjectExportStatus entity (lib/api/entities/project_export_status.rb) and the archive's
 * file name (lib/gitlab/import_export.rb `export_filename`). Pure: rows in, wire values out.
 */
import { z } from 'zod';
import type { projectExportJobs } from '../db/schema';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { ProjectIdentitySchema, projectIdentity } from '../projects/project-entity';
import { obj } from '../platform/response-schemas';

export type ExportRow = typeof projectExportJobs.$inferSelect;

export const EXPORT_STATUSES = ['none', 'queued', 'started', 'finished', 'regeneration_in_progress'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Exports are removed a day after they were written (ImportExportCleanUpService, 24 hours). */
export const EXPORT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A job queued or started this long ago died with its consumer (StuckExportJobsWorker,
 * EXPORT_JOBS_EXPIRATION: 6 hours): it no longer counts as running.
 */
export const EXPORT_STUCK_MS = 6 * 60 * 60 * 1000;
const running = (r: ExportRow, status: string, now: number) => r.status === status && r.updatedAt > now - EXPORT_STUCK_MS;

/** The finished archive still downloadable at `now`, newest first. */
export const downloadable = (rows: ExportRow[], now: number) => rows.find((r) => r.status === 'finished' && r.blobKey && (r.expiresAt ?? 0) > now);

/**
 * Project#export_status: a job queued or running while a finished file exists is a regeneration;
 * otherwise queued, then started, then finished when a file exists, else none.
 */
export function exportStatus(rows: ExportRow[], now: number): ExportStatus {
  const queued = rows.some((r) => running(r, 'queued', now));
  const started = rows.some((r) => running(r, 'started', now));
  const file = downloadable(rows, now);
  if ((queued || started) && file) return 'regeneration_in_progress';
  if (queued) return 'queued';
  if (started) return 'started';
  if (file) return 'finished';
  return 'none';
}

export const ProjectExportStatusSchema = ProjectIdentitySchema.extend({
  export_status: z.enum(EXPORT_STATUSES),
  _links: obj({ api_url: z.string(), web_url: z.string() }).optional(),
}).meta({ id: 'ProjectExportStatus' });
export type ProjectExportStatus = z.infer<typeof ProjectExportStatusSchema>;

export function projectExportStatusEntity(p: ProjectRow, ns: NamespaceRow, namespaceFullName: string, status: ExportStatus, base: string): ProjectExportStatus {
  const identity = projectIdentity(p, ns, { namespaceFullName });
  return {
    ...identity,
    export_status: status,
    // `_links` only once an archive can be downloaded (expose ... if: finished?).
    ...(status === 'finished'
      ? { _links: { api_url: `${base}/api/v4/projects/${p.id}/export/download`, web_url: `${base}/${identity.path_with_namespace}/download_export` } }
      : {}),
  };
}

/** Gitlab::ImportExport.export_filename: `<%Y-%m-%d_%H-%M-%3N>_<full path with / as _>`, cut to 51 characters, `_export.tar.gz`. */
export function exportFilename(fullPath: string, at: Date): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  // strftime('%Y-%m-%d_%H-%M-%3N'): GitLab's format has no seconds, only milliseconds after the minutes.
  const stamp = `${at.getUTCFullYear()}-${p2(at.getUTCMonth() + 1)}-${p2(at.getUTCDate())}_${p2(at.getUTCHours())}-${p2(at.getUTCMinutes())}-${String(at.getUTCMilliseconds()).padStart(3, '0')}`;
  const basename = `${stamp}_${fullPath.replaceAll('/', '_')}`;
  return `${basename.slice(0, 51)}_export.tar.gz`;
}
