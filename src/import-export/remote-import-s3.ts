/**
 * POST /projects/remote-import-s3 (lib/api/project_import.rb; Import::GitlabProjects::
 * FileAcquisitionStrategies::RemoteFileS3): the archive is an object in an S3 bucket, read with the
 * caller's access key. Behind the flag `import_project_from_remote_file_s3` (off by default: 404).
 *
 * GitLab asks the AWS SDK for the object (`exists?`, a HEAD), validates its type and length with
 * RemoteFileValidator and hands the worker a presigned URL. Here too: the HEAD is signed with SigV4
 * (platform/sigv4.ts), a refusal there is a 400 with nothing created, and the import job downloads
 * the presigned GET URL as remote-import's (remote-download.ts), so the secret is never stored. The
 * HEAD goes through the outbound guard first (GitLab validates the presigned URL with the same
 * addressable_url rules, https only); the guard runs before anything is sent, where GitLab's SDK
 * call comes first. A bucket in another region than the one given answers the HEAD with a 301 (or
 * a 400 AuthorizationHeaderMalformed) naming its region in `x-amz-bucket-region`: as the SDK's
 * region redirect does, the HEAD is signed again for that region once, and the presigned URL is
 * made for it.
 *
 * The host is `<bucket>.s3.<region>.amazonaws.com` (path-style `s3.<region>.amazonaws.com/<bucket>`
 * for a bucket that is not one DNS label, as the SDK does), or S3_ENDPOINT (config.ts) path-style.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { notFound } from '../platform/errors';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { EMPTY_SHA256, presignV4, signV4, uriEncode, type SigV4Credentials } from '../platform/sigv4';
import { remoteImportS3Enabled } from '../features/flags';
import { type Settings, settingsOf } from '../settings/settings';
import { applicationLimit } from '../settings/rate-limits';
import { ProjectImportStatusSchema } from './import-status';
import { checkOutbound } from './export-upload';
import { pinnedRequest, type RemoteAnswer } from './remote-fetch';
import { type ImportTarget, importRemoteArchive, reasonOf, refuse, remoteFileValidatorError, requireGitlabProjectSource } from './remote-import';

/** The AWS SDK's default http_open_timeout: 15 s for the HEAD's answer. */
const TIMEOUT_MS = 15_000;
/** RemoteFileS3's presigned URL lifetime (the worker may start hours after the request). */
const PRESIGNED_SECONDS = 28 * 3600;
/** An AWS region: a host label (it becomes part of the object's host name). */
const REGION = /^[a-z0-9-]+$/i;

/** RemoteFileS3's `validates_presence_of`, with Rails' humanized attribute names (`_id` dropped). */
const REQUIRED: [keyof S3Params, string][] = [
  ['region', 'Region'],
  ['bucket_name', 'Bucket name'],
  ['file_key', 'File key'],
  ['access_key_id', 'Access key'],
  ['secret_access_key', 'Secret access key'],
];

interface S3Params {
  region: string;
  bucket_name: string;
  file_key: string;
  access_key_id: string;
  secret_access_key: string;
}

/**
 * The error code aws-sdk-core gives an answer without a body (a HEAD's): Xml::ErrorHandler
 * #http_status_error_code. With no message, the error's message is its class name.
 */
function sdkErrorName(status: number): string {
  const codes: Record<number, string> = { 302: 'MovedTemporarily', 304: 'NotModified', 400: 'BadRequest', 403: 'Forbidden', 404: 'NotFound', 412: 'PreconditionFailed', 413: 'RequestEntityTooLarge' };
  return `Aws::S3::Errors::${codes[status] ?? `Http${status}Error`}`;
}

/** The object's URL: S3_ENDPOINT path-style, else AWS (virtual-hosted when the bucket is one DNS label). */
function objectUrl(endpoint: string | null, p: S3Params): string {
  const key = uriEncode(p.file_key, true);
  if (endpoint) return `${endpoint}/${uriEncode(p.bucket_name)}/${key}`;
  if (/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(p.bucket_name)) return `https://${p.bucket_name}.s3.${p.region}.amazonaws.com/${key}`;
  return `https://s3.${p.region}.amazonaws.com/${uriEncode(p.bucket_name)}/${key}`;
}

/** One signed request to the address the guard checked. */
async function signedHead(target: { url: URL; address: string | null }, cred: SigV4Credentials): Promise<RemoteAnswer> {
  const headers = await signV4({ method: 'HEAD', url: target.url, headers: { 'x-amz-content-sha256': EMPTY_SHA256 } }, cred);
  return pinnedRequest({ url: target.url, address: target.address, method: 'HEAD', timeoutMs: TIMEOUT_MS, headers });
}

/**
 * aws-sdk-s3's region redirect: a 301 PermanentRedirect, or a 400 AuthorizationHeaderMalformed (a
 * request signed for the wrong region), with the bucket's region in `x-amz-bucket-region`. That
 * region, when it is another one and a valid host label (the answer comes from the network).
 */
function redirectRegion(res: RemoteAnswer, region: string): string | null {
  if (res.status !== 301 && res.status !== 400) return null;
  const named = res.headers.get('x-amz-bucket-region');
  return named && named !== region && REGION.test(named) ? named : null;
}

/**
 * RemoteFileS3's validations in GitLab's order: the first message, or the presigned GET URL of the
 * object (for the region it was found in) for the import job to download.
 */
async function checkObject(c: Context<AppEnv>, p: S3Params, settings: Settings): Promise<{ error: string } | { url: string }> {
  for (const [name, human] of REQUIRED) if (!p[name].trim()) return { error: `${human} can't be blank` };
  const failedToOpen = (reason: string) => ({ error: `Failed to open '${p.file_key}' in '${p.bucket_name}': ${reason}` });
  // The SDK refuses a region that is not a host label (it would otherwise steer the request's host).
  if (!REGION.test(p.region)) return failedToOpen('Invalid `:region` option was provided.');
  let region = p.region;
  for (let attempt = 0; ; attempt++) {
    const checked = await checkOutbound(objectUrl(c.var.config.s3Endpoint, { ...p, region }), settings, { schemes: ['https'], requireResolved: true });
    if ('error' in checked) return { error: checked.error === 'URI is invalid' ? 'File url must be a valid URL' : `File url is blocked: ${checked.error}` };
    const cred = { accessKeyId: p.access_key_id, secretAccessKey: p.secret_access_key, region, service: 's3' };
    let head: RemoteAnswer;
    try {
      head = await signedHead(checked, cred);
    } catch (err) {
      return failedToOpen(reasonOf(err));
    }
    // Once: a second redirect is the SDK's error like any other refusal.
    const moved = attempt === 0 ? redirectRegion(head, region) : null;
    if (moved) {
      region = moved;
      continue;
    }
    // Object#exists?: a 404 is "no such object", any other refusal is raised (a HEAD carries no body).
    if (head.status === 404) return { error: `File not found '${p.file_key}' in '${p.bucket_name}'` };
    if (head.status < 200 || head.status > 299) return failedToOpen(sdkErrorName(head.status));
    const invalid = remoteFileValidatorError(parseInt(head.headers.get('content-length') ?? '', 10) || 0, head.headers.get('content-type') ?? '', settings);
    if (invalid) return { error: invalid };
    return { url: (await presignV4({ method: 'GET', url: checked.url }, cred, PRESIGNED_SECONDS)).href };
  }
}

export function mountRemoteImportS3(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/remote-import-s3',
      summary: 'Import a project from a GitLab export archive in an AWS S3 bucket',
      tags: ['project_import'],
      signedIn: true,
      params: params({
        region: g.string(),
        bucket_name: g.string(),
        file_key: g.string(),
        access_key_id: g.string(),
        secret_access_key: g.string(),
        path: g.string(),
        name: g.string().optional(),
        namespace: g.string().optional(),
        overwrite: g.bool().optional(),
        override_params: g.hash().optional(),
      }),
      responses: { 201: ProjectImportStatusSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const settings = await settingsOf(c);
      requireGitlabProjectSource(settings);
      // The route's body: `not_found!` for the flag, then `check_rate_limit! :project_import` (so a
      // request while the flag is off spends nothing of the limit import and remote-import share).
      if (!(await remoteImportS3Enabled(c))) throw notFound();
      await applicationLimit(c, 'project_import', [`user:${user.id}`]);
      const object = await checkObject(c, p as S3Params, settings);
      if ('error' in object) throw refuse(object.error);
      return importRemoteArchive(c, caller, settings, p as ImportTarget, object.url);
    },
  );
}
