/**
 * POST /projects/remote-import (lib/api/project_import.rb; Import::GitlabProjects::
 * FileAcquisitionStrategies::RemoteFile and RemoteFileValidator): the archive comes from an HTTPS
 * URL instead of the request body. The URL passes the outbound guard (https only; localhost and
 * local networks only with `allow_local_requests_from_web_hooks_and_services`; every address of the
 * name checked and the connection pinned to it) and a HEAD request's headers are validated with
 * GitLab's messages. Then, as GitLab does, the project is created (`scheduled`) and the import job
 * downloads the archive (remote-download.ts: the guard again, the size bounded while it streams into
 * the blob store) before importing it; a download that fails is a `failed` import.
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
import { Blocked, follow, humanSize, reasonOf, remoteFileLimit } from './remote-download';

export { humanSize, reasonOf, remoteFileLimit };

/** RemoteFileValidator::ALLOWED_CONTENT_TYPES (S3 answers with the tar types). */
const ALLOWED_CONTENT_TYPES = ['application/gzip', 'application/x-tar', 'application/x-gzip'];
/** RemoteFile#headers: `Gitlab::HTTP.head(file_url, timeout: 1.second)`. */
const HEAD_TIMEOUT_MS = 1000;

/** 400 `{"message": "<first error>"}` (CreateProjectService#error: the first full message, :bad_request). */
export const refuse = (message: string) => new ApiError(400, { message });

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

export interface ImportTarget {
  path: string;
  name?: string;
  namespace?: string;
  overwrite?: boolean;
  override_params?: Record<string, unknown>;
}

/**
 * A queued import (201) whose job downloads `url` first (with the S3 import, a presigned URL): the
 * project is created `scheduled` now, and a failed download makes the import `failed`.
 */
export async function importRemoteArchive(c: Context<AppEnv>, caller: Parameters<typeof createImport>[1], settings: Settings, p: ImportTarget, url: string) {
  const status = await createImport(c, caller, settings, {
    path: p.path,
    name: p.name,
    namespace: p.namespace,
    overwrite: p.overwrite ?? false,
    overrideParams: (p.override_params ?? {}) as Record<string, unknown>,
    // Nothing is stored here: the job downloads to a key of its own and records it.
    blobKey: `imports/${randomHex(16)}/archive.tar.gz`,
    downloadUrl: url,
  });
  return c.json(status, 201);
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
      return importRemoteArchive(c, caller, settings, p as ImportTarget, p.url);
    },
  );
}
