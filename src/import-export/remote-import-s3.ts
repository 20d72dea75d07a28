/**
 * POST /projects/remote-import-s3 (lib/api/project_import.rb; Import::GitlabProjects::
 * FileAcquisitionStrategies::RemoteFileS3): the archive is an object in an S3 bucket, read with the
 * caller's access key. Behind the flag `import_project_from_remote_file_s3` (off by default: 404).
 *
 * GitLab asks the AWS SDK for the object (`exists?`, a HEAD), validates its type and length with
 * RemoteFileValidator and hands the worker a presigned URL. Here the HEAD and the GET are signed with
 * SigV4 (platform/sigv4.ts) and, as for remote-import, the archive is streamed into the blob store in
 * the request, so a refusal is a 400 with nothing created. Both requests go through the outbound
 * guard first (GitLab validates the presigned URL with the same addressable_url rules, https only);
 * the guard runs before anything is sent, where GitLab's SDK call comes first.
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
import { randomHex } from '../platform/crypto';
import { EMPTY_SHA256, signV4, uriEncode, type SigV4Credentials } from '../platform/sigv4';
import { remoteImportS3Enabled } from '../features/flags';
import { type Settings, settingsOf } from '../settings/settings';
import { applicationLimit } from '../settings/rate-limits';
import { ProjectImportStatusSchema } from './import-status';
import { checkOutbound } from './export-upload';
import { pinnedRequest, type RemoteAnswer } from './remote-fetch';
import { type ImportTarget, importStoredArchive, reasonOf, refuse, remoteFileValidatorError, requireGitlabProjectSource, storeArchive } from './remote-import';

/** The AWS SDK's defaults: http_open_timeout 15 s (the HEAD), then the body streams as long as it takes. */
const TIMEOUT_MS = 15_000;

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

/** S3's XML error body (`<Error><Code>…</Code><Message>…</Message>`): its Message, as the SDK raises it. */
async function s3ErrorMessage(res: RemoteAnswer): Promise<string> {
  if (!res.body) return sdkErrorName(res.status);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // An error document is small; read no more than 64 KB of whatever the server sends.
  while (size < 64 * 1024) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel();
  const decoder = new TextDecoder();
  const text = chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1];
  if (!message) return sdkErrorName(res.status);
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return message.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => entities[e]).slice(0, 500);
}

/** The object's URL: S3_ENDPOINT path-style, else AWS (virtual-hosted when the bucket is one DNS label). */
function objectUrl(endpoint: string | null, p: S3Params): string {
  const key = uriEncode(p.file_key, true);
  if (endpoint) return `${endpoint}/${uriEncode(p.bucket_name)}/${key}`;
  if (/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(p.bucket_name)) return `https://${p.bucket_name}.s3.${p.region}.amazonaws.com/${key}`;
  return `https://s3.${p.region}.amazonaws.com/${uriEncode(p.bucket_name)}/${key}`;
}

/** One signed request to the address the guard checked. */
async function signedRequest(method: 'HEAD' | 'GET', target: { url: URL; address: string | null }, cred: SigV4Credentials): Promise<RemoteAnswer> {
  const headers = await signV4({ method, url: target.url, headers: { 'x-amz-content-sha256': EMPTY_SHA256 } }, cred);
  return pinnedRequest({ url: target.url, address: target.address, method, timeoutMs: TIMEOUT_MS, headers });
}

/** RemoteFileS3's validations and the download, in GitLab's order; the first message, or null once the archive is stored at `blobKey`. */
async function fetchObject(c: Context<AppEnv>, p: S3Params, settings: Settings, blobKey: string): Promise<string | null> {
  for (const [name, human] of REQUIRED) if (!p[name].trim()) return `${human} can't be blank`;
  const failedToOpen = (reason: string) => `Failed to open '${p.file_key}' in '${p.bucket_name}': ${reason}`;
  // The SDK refuses a region that is not a host label (it would otherwise steer the request's host).
  if (!/^[a-z0-9-]+$/i.test(p.region)) return failedToOpen('Invalid `:region` option was provided.');
  const checked = await checkOutbound(objectUrl(c.var.config.s3Endpoint, p), settings, { schemes: ['https'], requireResolved: true });
  if ('error' in checked) return checked.error === 'URI is invalid' ? 'File url must be a valid URL' : `File url is blocked: ${checked.error}`;
  const cred = { accessKeyId: p.access_key_id, secretAccessKey: p.secret_access_key, region: p.region, service: 's3' };

  let head: RemoteAnswer;
  try {
    head = await signedRequest('HEAD', checked, cred);
  } catch (err) {
    return failedToOpen(reasonOf(err));
  }
  // Object#exists?: a 404 is "no such object", any other refusal is raised (a HEAD carries no body).
  if (head.status === 404) return `File not found '${p.file_key}' in '${p.bucket_name}'`;
  if (head.status < 200 || head.status > 299) return failedToOpen(sdkErrorName(head.status));
  const invalid = remoteFileValidatorError(parseInt(head.headers.get('content-length') ?? '', 10) || 0, head.headers.get('content-type') ?? '', settings);
  if (invalid) return invalid;

  let res: RemoteAnswer;
  try {
    res = await signedRequest('GET', checked, cred);
  } catch (err) {
    return failedToOpen(reasonOf(err));
  }
  if (res.status === 404) return `File not found '${p.file_key}' in '${p.bucket_name}'`;
  // A GET's refusal has S3's XML error document: the SDK's message is its <Message>.
  if (res.status < 200 || res.status > 299) return failedToOpen(await s3ErrorMessage(res));
  const failed = await storeArchive(c, res, settings, blobKey);
  return failed ? `Failed to download the file: ${failed}` : null;
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
      const key = `imports/${randomHex(16)}/archive.tar.gz`;
      const failed = await fetchObject(c, p as S3Params, settings, key);
      if (failed) throw refuse(failed);
      return importStoredArchive(c, caller, settings, p as ImportTarget, key);
    },
  );
}
