/**
 * POST /projects/remote-import (lib/api/project_import.rb; Import::GitlabProjects::
 * FileAcquisitionStrategies::RemoteFile and RemoteFileValidator): the archive comes from an HTTPS
 * URL instead of the request body. The URL passes the outbound guard (https only; localhost and
 * local networks only with `allow_local_requests_from_web_hooks_and_services`; every address of the
 * name checked and the connection pinned to it), a HEAD request's headers are validated with
 * GitLab's messages, and the archive is then streamed into the blob store (its size bounded while
 * it arrives) and imported by the same queued job as an upload.
 *
 * Where GitLab differs: its worker downloads the file after the project exists, so a download that
 * fails is a `failed` import. Here the download runs in the request, before the project is created:
 * the import job reads only the blob store, and a failed download is a 400 with nothing created.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { ApiError, forbidden, notFound } from '../platform/errors';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { randomHex } from '../platform/crypto';
import { remoteImportEnabled, remoteImportS3Enabled } from '../features/flags';
import { type Settings, settingsOf } from '../settings/settings';
import { createImport } from './import-create';
import { ProjectImportStatusSchema } from './import-status';
import { checkOutbound } from './export-upload';
import { pinnedRequest, type RemoteAnswer } from './remote-fetch';

/** RemoteFileValidator::ALLOWED_CONTENT_TYPES (S3 answers with the tar types). */
const ALLOWED_CONTENT_TYPES = ['application/gzip', 'application/x-tar', 'application/x-gzip'];
/** RemoteFileValidator::FILE_SIZE_LIMIT, the bound when `max_import_size` is 0 (unlimited). */
const FILE_SIZE_LIMIT = 10 * 1024 ** 3;
/** RemoteFile#headers: `Gitlab::HTTP.head(file_url, timeout: 1.second)`. */
const HEAD_TIMEOUT_MS = 1000;
/** Until the download's headers arrive (the body then streams for as long as it takes). */
const GET_TIMEOUT_MS = 30_000;
/** HTTParty's redirect limit. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** 400 `{"message": "<first error>"}` (CreateProjectService#error: the first full message, :bad_request). */
export const refuse = (message: string) => new ApiError(400, { message });

/** ActiveSupport number_to_human_size: 1024-based, three significant digits, no trailing zeros. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`;
}

/** The size an archive may have: `max_import_size` (MB) when set, else GitLab's 10 GB. */
export const remoteFileLimit = (settings: Settings) => {
  const mb = Number(settings.max_import_size) || 0;
  return mb > 0 ? mb * 1024 * 1024 : FILE_SIZE_LIMIT;
};

class Blocked extends Error {}

/**
 * Follows redirects by hand so each hop passes the guard again (Gitlab::HTTP validates every
 * request it makes, redirects included). Every hop must be https too: a redirect to http would
 * carry the archive in clear text past the https-only check of the first URL.
 */
async function follow(url: string, settings: Settings, method: 'HEAD' | 'GET', timeoutMs: number): Promise<RemoteAnswer> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const checked = await checkOutbound(current, settings, { schemes: ['https'], requireResolved: true });
    if ('error' in checked) throw new Blocked(checked.error);
    const res = await pinnedRequest({ url: checked.url, address: checked.address, method, timeoutMs });
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || !location) return res;
    await res.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new Error('too many redirects');
    current = new URL(location, checked.url).href;
  }
}

/** RemoteFileValidator: the announced length, then the type; the first message or null. */
export function remoteFileValidatorError(length: number, type: string, settings: Settings): string | null {
  const limit = remoteFileLimit(settings);
  if (length <= 0) return `Content length is too small (should be at least ${humanSize(1)})`;
  if (length > limit) return `Content length is too big (should be at most ${humanSize(limit)})`;
  if (!ALLOWED_CONTENT_TYPES.includes(type)) return `Content type '${type}' not allowed. (Allowed: ${ALLOWED_CONTENT_TYPES.join(', ')})`;
  return null;
}

/** RemoteFile's validations, in GitLab's order; the first message or null. */
async function remoteFileError(c: Context<AppEnv>, url: string, settings: Settings): Promise<string | null> {
  const first = await checkOutbound(url, settings, { schemes: ['https'], requireResolved: true });
  if ('error' in first) return first.error === 'URI is invalid' ? 'File url must be a valid URL' : `File url is blocked: ${first.error}`;
  let headers: Headers;
  try {
    headers = (await follow(url, settings, 'HEAD', HEAD_TIMEOUT_MS)).headers;
  } catch (err) {
    const reason = err instanceof Blocked ? `URL is blocked: ${err.message}` : String((err as Error)?.message ?? err).slice(0, 200);
    return `Failed to retrive headers: ${reason}`;
  }
  // RemoteFile#aws_s3 and the condition on RemoteFileValidator: with the S3 flag on, an S3 answer is
  // sent to remote-import-s3; with it off, an S3 answer's headers are not validated at all.
  const fromS3 = headers.get('server') === 'AmazonS3' && !!headers.get('x-amz-request-id');
  const s3Enabled = await remoteImportS3Enabled(c);
  if (s3Enabled && fromS3) return 'To import from AWS S3 use `projects/remote-import-s3`';
  if (!s3Enabled && fromS3) return null;
  return remoteFileValidatorError(parseInt(headers.get('content-length') ?? '', 10) || 0, headers.get('content-type') ?? '', settings);
}

/** The reason a fetch failed, short enough for a message. */
export const reasonOf = (err: unknown) => String((err as Error)?.message ?? err).slice(0, 200);

/**
 * Streams an answer's body into the blob store at `key`, never more than the limit (a server may
 * send more than its HEAD announced); the reason it failed, or null (nothing is kept on failure).
 */
export async function storeArchive(c: Context<AppEnv>, res: RemoteAnswer, settings: Settings, key: string): Promise<string | null> {
  if (res.status < 200 || res.status > 299 || !res.body) {
    await res.body?.cancel();
    return `Code ${res.status}`;
  }
  const limit = remoteFileLimit(settings);
  let seen = 0;
  const bounded = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > limit) ctl.error(new Error(`Content length is too big (should be at most ${humanSize(limit)})`));
        else ctl.enqueue(chunk);
      },
    }),
  );
  try {
    await c.var.blobs.put(key, bounded, 'application/gzip');
  } catch (err) {
    await c.var.blobs.delete(key);
    return reasonOf(err);
  }
  if (seen === 0) {
    await c.var.blobs.delete(key);
    return 'the file is empty';
  }
  return null;
}

/** Follows the URL's redirects (each checked) and stores the archive; the reason it failed, or null. */
async function download(c: Context<AppEnv>, url: string, settings: Settings, key: string): Promise<string | null> {
  let res: RemoteAnswer;
  try {
    res = await follow(url, settings, 'GET', GET_TIMEOUT_MS);
  } catch (err) {
    return err instanceof Blocked ? `URL is blocked: ${err.message}` : reasonOf(err);
  }
  return storeArchive(c, res, settings, key);
}

export interface ImportTarget {
  path: string;
  name?: string;
  namespace?: string;
  overwrite?: boolean;
  override_params?: Record<string, unknown>;
}

/** The stored archive at `key` becomes a queued import (201); refused after the download, it is not kept. */
export async function importStoredArchive(c: Context<AppEnv>, caller: Parameters<typeof createImport>[1], settings: Settings, p: ImportTarget, key: string) {
  try {
    const status = await createImport(c, caller, settings, {
      path: p.path,
      name: p.name,
      namespace: p.namespace,
      overwrite: p.overwrite ?? false,
      overrideParams: (p.override_params ?? {}) as Record<string, unknown>,
      blobKey: key,
    });
    return c.json(status, 201);
  } catch (err) {
    // Refused after the download (namespace, path, limits): the archive is not kept.
    await c.var.blobs.delete(key);
    throw err;
  }
}

/** project_import.rb's `before`: every route of the file needs the gitlab_project import source. */
export function requireGitlabProjectSource(settings: Settings) {
  const sources = Array.isArray(settings.import_sources) ? settings.import_sources.map(String) : [];
  if (!sources.includes('gitlab_project')) throw forbidden();
}

export function mountRemoteImport(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/remote-import',
      summary: 'Import a project from a GitLab export archive at a remote URL',
      tags: ['project_import'],
      signedIn: true,
      rateLimit: 'project_import',
      params: params({
        url: g.string(),
        path: g.string(),
        name: g.string().optional(),
        namespace: g.string().optional(),
        overwrite: g.bool().optional(),
        override_params: g.hash().optional(),
      }),
      responses: { 201: ProjectImportStatusSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const settings = await settingsOf(c);
      requireGitlabProjectSource(settings);
      // GitLab gates the route with the flag `import_project_from_remote_file` (on by default here).
      if (!(await remoteImportEnabled(c))) throw notFound();
      const invalid = await remoteFileError(c, p.url, settings);
      if (invalid) throw refuse(invalid);
      const key = `imports/${randomHex(16)}/archive.tar.gz`;
      const failed = await download(c, p.url, settings, key);
      if (failed) throw refuse(`Failed to download the file: ${failed}`);
      return importStoredArchive(c, caller, settings, p as ImportTarget, key);
    },
  );
}
