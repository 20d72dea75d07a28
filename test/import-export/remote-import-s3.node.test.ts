/**
 * POST /projects/remote-import-s3 against a local HTTPS server acting as S3 (self-signed, trusted
 * through remote-fetch.ts `extraCertificates`; the app's S3 endpoint pointed at it as S3_ENDPOINT
 * would). The server checks every request's SigV4 signature with the bucket's secret, as S3 does:
 * in the Authorization header (the request's HEAD) or in the query (the presigned GET the import
 * job downloads). A request signed for another region than the bucket's is answered as S3 does, with
 * the bucket's region in `x-amz-bucket-region`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessApp, harnessBlobRoot, storageSql } from '../harness/node';
import { api, createUser, rootToken, type TestUser, unique } from '../support';
import { extraCertificates } from '../../src/import-export/remote-fetch';
import { presignV4, signV4 } from '../../src/platform/sigv4';
import { fixtureArchive, TREE } from './fixture-checks';
import { waitForImport } from './import-support';

const ACCESS_KEY = 'AKIAS3IMPORTTEST';
const SECRET = 'fake-s3-secret/for+the-tests';
const BUCKET = 'exports';
const REGION = 'eu-west-1';
let server: Server;
let base = '';
let archive: Uint8Array;
let user: TestUser;
/** What the server saw: method, path and whether the signature held. */
const requests: string[] = [];
/** Regions the tests sign for, and how S3 answers a HEAD signed for them (the bucket is in REGION). */
const WRONG_REGIONS: Record<string, { status: number; bucketRegion: string }> = {
  'us-east-1': { status: 301, bucketRegion: REGION },
  'us-west-2': { status: 400, bucketRegion: REGION },
  // A region header that is no region (the answer comes from the network): never followed.
  'eu-north-1': { status: 301, bucketRegion: 'evil.example#' },
  // Redirected to a region that redirects again: followed once only.
  'sa-east-1': { status: 301, bucketRegion: 'ap-south-1' },
  'ap-south-1': { status: 301, bucketRegion: 'sa-east-1' },
};

/** S3's check of a presigned request: the same signature over the URL without it, from the secret it holds. */
async function presignedHolds(method: string, path: string, host: string): Promise<'signed' | 'refused'> {
  const url = new URL(`https://${host}${path}`);
  const q = url.searchParams;
  const m = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(q.get('X-Amz-Credential') ?? '');
  const date = q.get('X-Amz-Date') ?? '';
  if (!m || m[1] !== ACCESS_KEY || m[3] !== REGION || q.get('X-Amz-SignedHeaders') !== 'host') return 'refused';
  const at = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const expires = Number(q.get('X-Amz-Expires'));
  if (Number.isNaN(at.getTime()) || Date.now() > at.getTime() + expires * 1000) return 'refused';
  const bare = new URL(url.href);
  for (const k of [...bare.searchParams.keys()]) if (k.startsWith('X-Amz-')) bare.searchParams.delete(k);
  const expected = await presignV4({ method, url: bare }, { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET, region: REGION, service: 's3' }, expires, at);
  return expected.searchParams.get('X-Amz-Signature') === q.get('X-Amz-Signature') ? 'signed' : 'refused';
}

/** S3's check of a request signed in the Authorization header: the same signature from the secret it holds. */
async function signatureHolds(method: string, path: string, headers: Record<string, string | string[] | undefined>): Promise<'signed' | 'refused' | 'wrong-region'> {
  if (path.includes('X-Amz-Signature=')) return presignedHolds(method, path, String(headers.host));
  const auth = String(headers.authorization ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$/.exec(auth);
  if (m && m[1] === ACCESS_KEY && WRONG_REGIONS[m[3]]) return 'wrong-region';
  if (!m || m[1] !== ACCESS_KEY || m[3] !== REGION) return 'refused';
  const date = String(headers['x-amz-date'] ?? '');
  const at = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  if (Number.isNaN(at.getTime()) || Math.abs(Date.now() - at.getTime()) > 15 * 60_000) return 'refused';
  const signed = Object.fromEntries(m[4].split(';').filter((h) => h !== 'host' && h !== 'x-amz-date').map((h) => [h, String(headers[h] ?? '')]));
  const url = new URL(`https://${headers.host}${path}`);
  const expected = await signV4({ method, url, headers: signed, payloadHash: String(headers['x-amz-content-sha256']) }, { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET, region: REGION, service: 's3' }, at);
  return expected.authorization === auth && m[4].split(';').includes('host') ? 'signed' : 'refused';
}

const xmlError = (code: string, message: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>`;

/** The bucket's objects: what a HEAD and a GET of each answer once the signature holds. */
function object(key: string, method: string): { status: number; headers: Record<string, string>; body?: Uint8Array | string } {
  const s3 = { Server: 'AmazonS3', 'x-amz-request-id': '4442587FB7D0A2F9' };
  switch (key) {
    case 'dir/export file.tar.gz':
      return { status: 200, headers: { ...s3, 'Content-Type': 'application/x-gzip', 'Content-Length': String(archive.byteLength) }, body: archive };
    case 'notes.txt':
      return { status: 200, headers: { ...s3, 'Content-Type': 'text/plain', 'Content-Length': '5' }, body: 'notes' };
    case 'locked.tar.gz':
      // HEAD allowed, GET refused (a bucket policy denying GetObject): S3's XML error document.
      return method === 'HEAD' ? { status: 200, headers: { ...s3, 'Content-Type': 'application/gzip', 'Content-Length': '100' } } : { status: 403, headers: { ...s3, 'Content-Type': 'application/xml' }, body: xmlError('AccessDenied', 'Access Denied') };
    default:
      return { status: 404, headers: { ...s3, 'Content-Type': 'application/xml' }, body: method === 'HEAD' ? undefined : xmlError('NoSuchKey', 'The specified key does not exist.') };
  }
}

beforeAll(async () => {
  archive = await fixtureArchive();
  const dir = mkdtempSync(join(tmpdir(), 'remote-import-s3-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  extraCertificates.push(cert);
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, async (req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const verdict = await signatureHolds(method, path, req.headers);
    const key = path.split('?')[0];
    requests.push(`${method} ${decodeURIComponent(key)} ${verdict}${path.includes('X-Amz-Signature=') ? ' (presigned)' : ''}`);
    let a: ReturnType<typeof object>;
    if (verdict === 'wrong-region') {
      const region = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(req.headers.authorization))![1];
      const w = WRONG_REGIONS[region];
      // S3: PermanentRedirect (301) or AuthorizationHeaderMalformed (400), the bucket's region in a header either way.
      a = { status: w.status, headers: { 'x-amz-bucket-region': w.bucketRegion, 'Content-Type': 'application/xml' }, body: xmlError(w.status === 301 ? 'PermanentRedirect' : 'AuthorizationHeaderMalformed', 'wrong region') };
    } else if (verdict === 'refused') a = { status: 403, headers: { 'Content-Type': 'application/xml' }, body: xmlError('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.') };
    else if (!key.startsWith(`/${BUCKET}/`)) a = { status: 404, headers: {}, body: xmlError('NoSuchBucket', 'The specified bucket does not exist') };
    else a = object(decodeURIComponent(key.slice(BUCKET.length + 2)), method);
    res.writeHead(a.status, a.headers);
    res.end(method === 'HEAD' ? undefined : a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  // What S3_ENDPOINT sets (config.ts), for this file's app.
  (await harnessApp()).config.s3Endpoint = base;
  user = await createUser();
  expect((await settings({ project_import_limit: 1000 })).status).toBe(200);
});

afterAll(async () => {
  extraCertificates.length = 0;
  (await harnessApp()).config.s3Endpoint = null;
  await settings({ project_import_limit: 6 });
  await new Promise((r) => server.close(r));
});

const settings = (body: Record<string, unknown>) => api('/application/settings', { method: 'PUT', token: rootToken, body });
const s3Import = (extra: Record<string, unknown> = {}, token = user.token) =>
  api('/projects/remote-import-s3', { token, body: { region: REGION, bucket_name: BUCKET, file_key: 'dir/export file.tar.gz', access_key_id: ACCESS_KEY, secret_access_key: SECRET, path: unique('s3'), ...extra } });
const projectCount = async () => (await api('/projects?owned=true', { token: user.token })).body.length;

/** Every file under the blob store's imports/ folder (temporary files included). */
function storedImports(): string[] {
  const walk = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)])) : []);
  return [...walk(join(harnessBlobRoot, 'imports')), ...walk(join(harnessBlobRoot, '.tmp'))];
}

/** Runs `body` with the S3 flag on (POST /features as an administrator), and deletes the flag after. */
async function withFlag<T>(body: () => Promise<T>): Promise<T> {
  expect((await api('/features/import_project_from_remote_file_s3', { token: rootToken, body: { value: true } })).status).toBe(201);
  try {
    return await body();
  } finally {
    expect((await api('/features/import_project_from_remote_file_s3', { method: 'DELETE', token: rootToken })).status).toBe(204);
  }
}

describe('POST /projects/remote-import-s3 gates', () => {
  it('is a 404 while import_project_from_remote_file_s3 is off (its default), before any request to S3', async () => {
    const before = requests.length;
    expect(await s3Import()).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    expect(requests.length).toBe(before);
  });

  it('needs a signed-in caller, the gitlab_project import source and every S3 parameter', async () => {
    await withFlag(async () => {
      expect((await s3Import({}, null as unknown as string)).status).toBe(401);
      const { region: _r, ...noRegion } = { region: REGION, bucket_name: BUCKET, file_key: 'k', access_key_id: ACCESS_KEY, secret_access_key: SECRET, path: 'p' };
      expect((await api('/projects/remote-import-s3', { token: user.token, body: noRegion })).body).toEqual({ error: 'region is missing' });
      const sources = (await api('/application/settings', { token: rootToken })).body.import_sources;
      expect(sources).toContain('gitlab_project');
      await settings({ import_sources: ['github'] });
      try {
        expect(await s3Import()).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
      } finally {
        await settings({ import_sources: sources });
      }
    });
  });
});

describe('POST /projects/remote-import-s3 refusals', () => {
  it("refuses blank parameters, a bad region and a local endpoint unless local requests are allowed, sending nothing", async () => {
    const before = requests.length;
    await withFlag(async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ region: '' }, "Region can't be blank"],
        [{ bucket_name: ' ' }, "Bucket name can't be blank"],
        [{ file_key: '' }, "File key can't be blank"],
        [{ access_key_id: '' }, "Access key can't be blank"],
        [{ secret_access_key: '' }, "Secret access key can't be blank"],
        [{ region: 'evil.example.com#' }, "Failed to open 'dir/export file.tar.gz' in 'exports': Invalid `:region` option was provided."],
        // S3_ENDPOINT is 127.0.0.1 here: the outbound guard's refusal, as for remote-import.
        [{}, 'File url is blocked: Requests to localhost are not allowed'],
      ];
      for (const [extra, message] of cases) {
        const res = await s3Import(extra);
        expect([extra, res.status, res.body]).toEqual([extra, 400, { message }]);
      }
    });
    expect(requests.length).toBe(before);
  });

  it("answers GitLab's messages when S3 refuses, and creates and stores nothing", async () => {
    const count = await projectCount();
    const stored = storedImports().length;
    await settings({ allow_local_requests_from_web_hooks_and_services: true });
    try {
      await withFlag(async () => {
        const cases: [Record<string, unknown>, string, string][] = [
          // A wrong secret: S3 refuses the HEAD with a 403 and no body; the SDK's error is its class name.
          [{ secret_access_key: 'not-the-secret' }, "Failed to open 'dir/export file.tar.gz' in 'exports': Aws::S3::Errors::Forbidden", 'HEAD /exports/dir/export file.tar.gz refused'],
          [{ file_key: 'missing.tar.gz' }, "File not found 'missing.tar.gz' in 'exports'", 'HEAD /exports/missing.tar.gz signed'],
          [{ file_key: 'notes.txt' }, "Content type 'text/plain' not allowed. (Allowed: application/gzip, application/x-tar, application/x-gzip)", 'HEAD /exports/notes.txt signed'],
          // A region header that is no region is not followed; a second redirect is not either (the SDK retries once).
          [{ region: 'eu-north-1' }, "Failed to open 'dir/export file.tar.gz' in 'exports': Aws::S3::Errors::Http301Error", 'HEAD /exports/dir/export file.tar.gz wrong-region'],
          [{ region: 'sa-east-1' }, "Failed to open 'dir/export file.tar.gz' in 'exports': Aws::S3::Errors::Http301Error", 'HEAD /exports/dir/export file.tar.gz wrong-region'],
        ];
        for (const [extra, message, last] of cases) {
          const res = await s3Import(extra);
          expect(JSON.stringify(res.body)).not.toContain(SECRET);
          expect([extra, res.status, res.body, requests.at(-1)]).toEqual([extra, 400, { message }, last]);
        }
      });
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false });
    }
    expect(await projectCount()).toBe(count);
    expect(storedImports().length).toBe(stored);
  });
});

describe('POST /projects/remote-import-s3', () => {
  /** The import with the flag and local requests on until its job has ended (the job downloads). */
  async function importAndWait(extra: Record<string, unknown>) {
    await settings({ allow_local_requests_from_web_hooks_and_services: true });
    try {
      return await withFlag(async () => {
        const res = await s3Import(extra);
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ import_status: 'scheduled', import_type: 'gitlab_project', import_error: null });
        return { res, done: await waitForImport(user.token, res.body.id) };
      });
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false });
    }
  }
  const expectedTitles = () =>
    TREE['tree/project/issues.ndjson']
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l).title)
      .sort();

  it('checks the object with a signed HEAD; the job downloads a presigned GET and imports it', async () => {
    const { res, done } = await importAndWait({ name: 'From S3' });
    expect(res.body.name).toBe('From S3');
    expect(requests.slice(-2)).toEqual(['HEAD /exports/dir/export file.tar.gz signed', 'GET /exports/dir/export file.tar.gz signed (presigned)']);
    expect(done.body).toMatchObject({ import_status: 'finished', import_error: null });
    expect(expectedTitles().length).toBeGreaterThan(5);
    const issues = (await api(`/projects/${res.body.id}/issues?per_page=100`, { token: user.token })).body;
    expect(issues.map((i: { title: string }) => i.title).sort()).toEqual(expectedTitles());
  });

  it("fails the import with GitLab's download error when S3 refuses the GET", async () => {
    const { res, done } = await importAndWait({ file_key: 'locked.tar.gz' });
    expect(requests.slice(-2)).toEqual(['HEAD /exports/locked.tar.gz signed', 'GET /exports/locked.tar.gz signed (presigned)']);
    expect(done.body).toMatchObject({ import_status: 'failed', import_error: 'unsupported response downloading fragment 403' });
    expect((await api(`/projects/${res.body.id}/issues`, { token: user.token })).body).toEqual([]);
  });

  it("follows S3's region redirect once, as the SDK does: a 301 or a 400 naming the bucket's region, signed again for it", async () => {
    for (const region of ['us-east-1', 'us-west-2']) {
      const { res, done } = await importAndWait({ region });
      expect([region, ...requests.slice(-3)]).toEqual([region, 'HEAD /exports/dir/export file.tar.gz wrong-region', 'HEAD /exports/dir/export file.tar.gz signed', 'GET /exports/dir/export file.tar.gz signed (presigned)']);
      expect([region, done.body.import_status, done.body.import_error]).toEqual([region, 'finished', null]);
      const issues = (await api(`/projects/${res.body.id}/issues?per_page=100`, { token: user.token })).body;
      expect(issues.map((i: { title: string }) => i.title).sort()).toEqual(expectedTitles());
    }
  });
});

describe('the credentials', () => {
  it('are never stored nor shown (the secret sweep does not know the name secret_access_key)', async () => {
    const tables = (await storageSql("SELECT name FROM sqlite_master WHERE type = 'table'")) as { name: string }[];
    expect(tables.length).toBeGreaterThan(10);
    for (const { name } of tables) {
      const rows = await storageSql(`SELECT * FROM "${name}"`);
      expect([name, JSON.stringify(rows).includes(SECRET)]).toEqual([name, false]);
    }
    for (const file of storedImports()) expect(readFileSync(file).includes(SECRET)).toBe(false);
    // The same check finds a value that is stored (a project's name from this file).
    const names = JSON.stringify(await storageSql('SELECT * FROM projects'));
    expect(names.includes('From S3')).toBe(true);
  });
});
