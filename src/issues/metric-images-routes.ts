/**
 * Incident metric images (GitLab ee/lib/ee/api/issues.rb, IncidentManagement::Incidents::
 * UploadMetricService, MetricImageUploading; reference 1 §5.4). A Premium feature
 * (`incident_metric_upload`), for incident issues only.
 *
 * GitLab accepts the upload only through Workhorse (`Gitlab-Workhorse` header, else 403). This
 * server has no Workhorse in front of it, so it reads the multipart file itself and applies the
 * same 1 MB limit; clients that upload to GitLab directly (python-gitlab, gitbeaker) work unchanged.
 *
 * Rights (ee/app/policies/ee/issue_policy.rb): reading needs a readable incident; uploading needs
 * project membership and `update_issue` (planner and above, or the author or an assignee);
 * updating and deleting need membership and authorship or planner and above.
 *
 * Files live in the blob store under a key carrying the issue id; they are served where GitLab
 * serves them, /uploads/-/system/issuable_metric_image/file/:id/:filename, to readers of the issue.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import type { BlobStore } from '../platform/blobs';
import { issueMetricImages, issues } from '../db/schema';
import { ACCESS } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { randomHex } from '../platform/crypto';
import { ApiError, badRequest, forbidden, notFound } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import { id, obj, raw, timestamp } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { iso } from '../platform/time';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { findReadableIssue } from './issues';

const TAGS = ['issues'];
/** MetricImageUploading::MAX_FILE_SIZE (1.megabyte). */
const MAX_FILE_SIZE = 1024 * 1024;
/** Gitlab::FileTypeDetection::SAFE_IMAGE_EXT, with the type each is served as (never sniffed). */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', tiff: 'image/tiff', ico: 'image/x-icon', webp: 'image/webp',
};
const EXTENSION_ERROR = 'File does not have a supported extension. Only png, jpg, jpeg, gif, bmp, tiff, ico, and webp are supported';

type ImageRow = typeof issueMetricImages.$inferSelect;
type IssueRow = typeof issues.$inferSelect;

const messageError = (status: number, message: string) => new ApiError(status, { message });

export const IssuableMetricImageSchema = obj({
  id,
  created_at: timestamp,
  filename: z.string(),
  file_path: z.string(),
  url: z.string().nullable(),
  url_text: z.string().nullable(),
}).meta({ id: 'IssuableMetricImage' });
export type IssuableMetricImage = z.infer<typeof IssuableMetricImageSchema>;

/** The file, served as the type of its extension (every one of IMAGE_TYPES is an image type). */
const ImageFile = raw('image/*', 'The image file (png, jpeg, gif, bmp, tiff, x-icon or webp)');

export const metricImageEntity = (m: ImageRow, base: string): IssuableMetricImage => ({
  id: m.id,
  created_at: iso(m.createdAt),
  filename: m.filename,
  // MetricImageUploading#file_path: the upload route on the instance's base URL.
  file_path: `${base}/uploads/-/system/issuable_metric_image/file/${m.id}/${encodeURIComponent(m.filename)}`,
  url: m.url ?? null,
  url_text: m.urlText ?? null,
});

/** CarrierWave's sanitize_regexp: anything but word characters, `.`, `-` and `+` becomes `_`. */
const sanitizeFilename = (name: string) => name.replace(/[^\p{L}\p{N}_.+-]/gu, '_');
const extensionOf = (name: string) => (name.includes('.') ? name.split('.').pop()!.toLowerCase() : '');

/** PublicUrlValidator (allow_blank), as `Url is blocked: …` messages; null when the URL is acceptable. */
function urlError(url: string | undefined | null): string | null {
  if (url == null || url.trim() === '') return null;
  if ([...url].length > 255) return 'Url is too long (maximum is 255 characters)';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Url is blocked: URI is invalid';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Url is blocked: Only allowed schemes are http, https';
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '0.0.0.0') return 'Url is blocked: Requests to localhost are not allowed';
  if (/^10\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host) || /^169\.254\./.test(host) || /^f[cd][0-9a-f]{2}:/.test(host) || /^fe80:/.test(host))
    return 'Url is blocked: Requests to the local network are not allowed';
  return null;
}

function fieldErrors(url: string | undefined | null, urlText: string | undefined | null): string[] {
  const errors: string[] = [];
  const u = urlError(url);
  if (u) errors.push(u);
  if (urlText != null && [...urlText].length > 128) errors.push('Url text is too long (maximum is 128 characters)');
  return errors;
}

interface Found {
  issue: IssueRow;
  level: number;
  assigneeIds: number[];
}

/** `upload_issuable_metric_image`: a project member with `create_issue` and `update_issue` (author and assignees included). */
function canUpload(caller: Caller, f: Found): boolean {
  const user = caller.user;
  if (!user || f.level < ACCESS.GUEST) return false;
  return f.level >= ACCESS.PLANNER || f.issue.authorId === user.id || f.assigneeIds.includes(user.id);
}

/** `update_issuable_metric_image` / `destroy_…`: a project member who wrote the issue or may update it. */
function canChange(c: Context<AppEnv>, caller: Caller, f: Found): boolean {
  return planAllows(c.var.config, 'premium') && canUpload(caller, f);
}

async function findImage(c: Context<AppEnv>, issueId: number, imageId: number): Promise<ImageRow> {
  const image = await c.var.db.select().from(issueMetricImages).where(and(eq(issueMetricImages.id, imageId), eq(issueMetricImages.issueId, issueId))).get();
  if (!image) throw messageError(404, 'Metric image not found');
  return image;
}

export function mountIssueMetricImages(r: Router) {
  const path = '/projects/:id/issues/:issue_iid/metric_images';

  r.route(
    {
      method: 'POST',
      path,
      summary: 'Upload a metric image for an incident',
      tags: TAGS,
      params: params({ id: g.string(), issue_iid: g.int(), file: g.file(), url: g.string().optional(), url_text: g.string().optional() }),
      responses: { 201: IssuableMetricImageSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      // The size check precedes the issue lookup in ee/lib/ee/api/issues.rb.
      if (p.file.size > MAX_FILE_SIZE) throw badRequest('File is too large');
      const found = await findReadableIssue(c, caller, p.id, p.issue_iid);
      const { issue } = found;
      if (issue.issueType !== 'incident' || !planAllows(c.var.config, 'premium') || !canUpload(caller, found)) throw messageError(403, 'Not allowed!');
      const filename = sanitizeFilename((p.file as File).name || '');
      const errors: string[] = [];
      if (!IMAGE_TYPES[extensionOf(filename)]) errors.push(EXTENSION_ERROR);
      errors.push(...fieldErrors(p.url, p.url_text));
      // UploadMetricService rescues RecordInvalid into a 403 with the record's message.
      if (errors.length) throw messageError(403, `Validation failed: ${errors.join(', ')}`);

      const key = `issuable_metric_image/${issue.id}/${randomHex(16)}/${filename}`;
      const contentType = IMAGE_TYPES[extensionOf(filename)];
      await c.var.blobs.put(key, await p.file.arrayBuffer(), contentType);
      const now = Date.now();
      let row: ImageRow | undefined;
      try {
        [row] = await c.var.db
          .insert(issueMetricImages)
          .values({ issueId: issue.id, filename, blobKey: key, contentType, size: p.file.size, url: p.url || null, urlText: p.url_text ?? null, createdAt: now, updatedAt: now })
          .returning()
          .all();
      } catch (err) {
        await c.var.blobs.delete(key);
        throw err;
      }
      return c.json(metricImageEntity(row!, baseUrl(c)), 201);
    },
  );

  r.route(
    {
      method: 'GET',
      path,
      summary: 'List the metric images of an incident',
      tags: TAGS,
      params: params({ id: g.string(), issue_iid: g.int() }),
      responses: { 200: z.array(IssuableMetricImageSchema) },
    },
    async ({ c, p, caller }) => {
      const { issue } = await findReadableIssue(c, caller, p.id, p.issue_iid);
      // `read_issuable_metric_image` needs an incident and the licensed feature.
      if (issue.issueType !== 'incident' || !planAllows(c.var.config, 'premium')) throw messageError(404, 'Issue not found');
      const rows = await c.var.db.select().from(issueMetricImages).where(eq(issueMetricImages.issueId, issue.id)).orderBy(asc(issueMetricImages.createdAt), asc(issueMetricImages.id)).all();
      const base = baseUrl(c);
      return c.json(rows.map((m) => metricImageEntity(m, base)));
    },
  );

  r.route(
    {
      method: 'PUT',
      path: `${path}/:metric_image_id`,
      summary: 'Update a metric image of an incident',
      tags: TAGS,
      params: params({ id: g.string(), issue_iid: g.int(), metric_image_id: g.int(), url: g.string().optional(), url_text: g.string().optional() }),
      responses: { 200: IssuableMetricImageSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const found = await findReadableIssue(c, caller, p.id, p.issue_iid);
      if (!canChange(c, caller, found)) throw forbidden();
      const image = await findImage(c, found.issue.id, p.metric_image_id);
      const set: Partial<ImageRow> = {};
      if (p.url !== undefined) set.url = p.url;
      if (p.url_text !== undefined) set.urlText = p.url_text;
      if (fieldErrors(set.url, set.urlText).length) throw badRequestMessage('Metric image could not be updated');
      let updated = image;
      if (Object.keys(set).length) {
        const [row] = await c.var.db.update(issueMetricImages).set({ ...set, updatedAt: Date.now() }).where(eq(issueMetricImages.id, image.id)).returning().all();
        if (!row) throw messageError(404, 'Metric image not found');
        updated = row;
      }
      return c.json(metricImageEntity(updated, baseUrl(c)));
    },
  );

  r.route(
    {
      method: 'DELETE',
      path: `${path}/:metric_image_id`,
      summary: 'Delete a metric image of an incident',
      tags: TAGS,
      params: params({ id: g.string(), issue_iid: g.int(), metric_image_id: g.int() }),
      responses: { 204: null },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const found = await findReadableIssue(c, caller, p.id, p.issue_iid);
      if (!canChange(c, caller, found)) throw forbidden();
      const image = await findImage(c, found.issue.id, p.metric_image_id);
      checkUnmodifiedSince(c, image.updatedAt);
      const [gone] = await c.var.db.delete(issueMetricImages).where(eq(issueMetricImages.id, image.id)).returning().all();
      if (!gone) throw messageError(404, 'Metric image not found');
      await c.var.blobs.delete(gone.blobKey);
      return c.body(null, 204);
    },
  );

  // The file itself, outside /api/v4 where GitLab's UploadsController serves it. `at` records it with
  // the API's routes: the OpenAPI document shows it and other methods answer 405.
  const web = r.at('');
  web.route(
    {
      method: 'GET',
      path: '/uploads/-/system/issuable_metric_image/file/:image_id/:filename',
      domain: 'issues',
      summary: 'An incident metric image file',
      tags: ['uploads'],
      params: params({ image_id: g.int(), filename: g.string() }),
      responses: { 200: ImageFile },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const image = await db.select().from(issueMetricImages).where(eq(issueMetricImages.id, p.image_id)).get();
      if (!image || image.filename !== p.filename) throw notFound();
      const issue = await db.select({ projectId: issues.projectId, iid: issues.iid }).from(issues).where(eq(issues.id, image.issueId)).get();
      if (!issue) throw notFound();
      // Readers of the issue only: an unreadable project or confidential issue is a plain 404 here.
      try {
        await findReadableIssue(c, caller, String(issue.projectId), issue.iid);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) throw notFound();
        throw err;
      }
      const blob = await c.var.blobs.get(image.blobKey);
      if (!blob) throw notFound();
      return new Response(blob.body, {
        headers: {
          'Content-Type': IMAGE_TYPES[extensionOf(image.filename)] ?? 'application/octet-stream',
          'Content-Length': String(blob.size),
          'Content-Disposition': 'inline',
          'Cache-Control': 'private, max-age=60',
          'X-Content-Type-Options': 'nosniff',
        },
      });
    },
  );
}

const badRequestMessage = (message: string) => messageError(400, message);

/**
 * For issue and project deletion: the blob keys of the issues' metric images, to read before the
 * deleting batch and pass to `deleteMetricImageBlobs` after it (rows go with the batch, files after).
 */
export async function metricImageBlobKeys(db: Db, issueIds: number[]): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < issueIds.length; i += 90)
    for (const row of await db.select({ key: issueMetricImages.blobKey }).from(issueMetricImages).where(inArray(issueMetricImages.issueId, issueIds.slice(i, i + 90))).all()) keys.push(row.key);
  return keys;
}

export async function deleteMetricImageBlobs(blobs: BlobStore, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => blobs.delete(k)));
}
