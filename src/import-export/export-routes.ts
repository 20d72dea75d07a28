/**
 * Project export (lib/api/project_export.rb; spec 001 "Project import and export"; reference 2
 * §4.1): start an export, read its status, download the archive. Every route answers 404 while
 * `project_export_enabled` is off and needs `admin_project` (maintainers, administrators). The
 * archive is built by the `project_export` job (export-job.ts) on the Queue / in-process runner.
 */
import { and, desc, eq, inArray, or, gt } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { namespaces, projectExportJobs, projects } from '../db/schema';
import { ACCESS, hasProjectLevel } from '../projects/abilities';
import { findReadableProjectWith } from '../projects/projects';
import { namespaceFullNameSql } from '../projects/group-queries';
import { ApiError, forbidden, grapeError, notFound, validationFailed } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { obj, raw } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { randomHex } from '../platform/crypto';
import { APP_LIMITS, appLimitThreshold, checkRateLimit } from '../settings/rate-limits';
import { settingsOf } from '../settings/settings';
import { downloadable, exportStatus, ProjectExportStatusSchema, projectExportStatusEntity } from './export-status';
import { EXPORT_JOB } from './export-job';

const TAGS = ['project_export'];
const Accepted = obj({ message: z.string() });
const Archive = raw('application/gzip', 'The export archive (gzip-compressed tar, GitLab import/export format 0.2.4)');

/** WebUploadStrategy::INVALID_HTTP_METHOD. */
const INVALID_HTTP_METHOD = 'invalid. Only PUT and POST methods allowed.';

/** The project, the caller's level, the namespace's full name and the export rows that matter, in one round trip. */
async function loadForExport(c: Context<AppEnv>, caller: Caller, id: string) {
  const settings = await settingsOf(c);
  if (!settings.project_export_enabled) throw notFound();
  const db = c.var.db;
  const now = Date.now();
  const found = await findReadableProjectWith(c, caller, id, (projectId) => [
    db.select({ fullName: namespaceFullNameSql().as('full_name') }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, projectId)).limit(1),
    db
      .select()
      .from(projectExportJobs)
      .where(and(eq(projectExportJobs.projectId, projectId), or(inArray(projectExportJobs.status, ['queued', 'started']), and(eq(projectExportJobs.status, 'finished'), gt(projectExportJobs.expiresAt, now)))))
      .orderBy(desc(projectExportJobs.id))
      .limit(20),
  ]);
  // authorize_admin_project: a project the caller sees but may not administer is a 403.
  if (!caller.user || !hasProjectLevel(caller, found.level, ACCESS.MAINTAINER)) throw forbidden();
  const [names, rows] = found.reads;
  return { ...found, fullName: names[0]?.fullName ?? found.namespace.name, rows, now, settings };
}

async function limit(c: Context<AppEnv>, key: string, scope: (string | number)[], settings: Awaited<ReturnType<typeof settingsOf>>) {
  const threshold = appLimitThreshold(settings, c.var.config?.rateLimits ?? {}, key);
  await checkRateLimit(c, key, scope, threshold, APP_LIMITS[key].intervalSeconds);
}

/** The `upload` hash: Grape's `upload[url]` / `upload[http_method]` errors, then WebUploadStrategy's validations. */
function uploadOf(upload: Record<string, unknown> | undefined): { url: string; method: 'PUT' | 'POST' } | null {
  if (upload === undefined) return null;
  const url = upload.url;
  if (url === undefined || url === null) throw grapeError('upload[url] is missing');
  if (typeof url !== 'string') throw grapeError('upload[url] is invalid');
  const method = upload.http_method ?? 'PUT';
  if (typeof method !== 'string') throw grapeError('upload[http_method] is invalid');
  if (method !== 'PUT' && method !== 'POST') throw grapeError('upload[http_method] does not have a valid value');
  // `after_export_params[:url].present?`: a blank URL means no upload.
  if (url.trim() === '') return null;
  const errors: Record<string, string[]> = {};
  const urlError = uploadUrlError(url);
  if (urlError) errors.url = [urlError];
  if (Object.keys(errors).length) throw validationFailed(errors);
  return { url, method };
}

/** AddressableUrlValidator with its defaults (http and https; local addresses are checked when the upload is sent). */
function uploadUrlError(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'is blocked: Only allowed schemes are http, https';
  if (!parsed.hostname) return 'must be a valid URL';
  return null;
}

export function mountProjectExport(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/:id/export',
      summary: 'Schedule an export of a project',
      tags: TAGS,
      params: params({ id: g.string(), description: g.string().optional(), upload: g.hash().optional() }),
      responses: { 202: Accepted },
    },
    async ({ c, p, caller }) => {
      const { project, settings } = await loadForExport(c, caller, p.id);
      const user = caller.user!;
      const upload = uploadOf(p.upload);
      await limit(c, 'project_export', [`user:${user.id}`], settings);
      const now = Date.now();
      const jid = `project_export:${project.id}:${randomHex(12)}`;
      await c.var.db
        .insert(projectExportJobs)
        .values({ projectId: project.id, userId: user.id, jid, status: 'queued', description: p.description ?? null, uploadUrl: upload?.url ?? null, uploadMethod: upload?.method ?? null, createdAt: now, updatedAt: now })
        .run();
      await c.var.jobs.send({ type: EXPORT_JOB, id: jid });
      // accepted!: 202 with Grape's status message.
      return c.json({ message: '202 Accepted' }, 202);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/export',
      summary: 'The export status of a project',
      tags: TAGS,
      params: params({ id: g.string() }),
      responses: { 200: ProjectExportStatusSchema },
    },
    async ({ c, p, caller }) => {
      const { project, namespace, fullName, rows, now } = await loadForExport(c, caller, p.id);
      return c.json(projectExportStatusEntity(project, namespace, fullName, exportStatus(rows, now), baseUrl(c)));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/export/download',
      summary: 'Download the finished export archive of a project',
      tags: TAGS,
      params: params({ id: g.string() }),
      responses: { 200: Archive },
    },
    async ({ c, p, caller }) => {
      const { project, namespace, rows, now, settings } = await loadForExport(c, caller, p.id);
      // scope: [current_user, user_project.namespace]
      await limit(c, 'project_download_export', [`user:${caller.user!.id}`, `namespace:${namespace.id}`], settings);
      const file = downloadable(rows, now);
      const blob = file?.blobKey ? await c.var.blobs.get(file.blobKey) : null;
      if (!file || !blob) throw new ApiError(404, { message: '404 Not found or has expired' });
      return new Response(blob.body, {
        status: 200,
        headers: {
          'Content-Type': 'application/gzip',
          'Content-Length': String(blob.size),
          'Content-Disposition': `attachment; filename="${file.filename}"; filename*=UTF-8''${encodeURIComponent(file.filename ?? `project-${project.id}_export.tar.gz`)}`,
        },
      });
    },
  );
}
