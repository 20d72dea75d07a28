/**
 * POST /projects/remote-import against a local HTTPS server (self-signed, trusted through
 * remote-fetch.ts `extraCertificates`): GitLab's refusals with their exact messages, redirects and
 * the pinned connection, and archives imported from the server. As in GitLab, the request only runs
 * the HEAD checks: the import job downloads the archive (so a setting the download depends on stays
 * on until the import ends), and a failed download is a `failed` import.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';
import { extraCertificates, pinnedRequest } from '../../src/import-export/remote-fetch';
import { humanSize } from '../../src/import-export/remote-import';
import { IMPORT_JOB } from '../../src/import-export/import-job-message';
import { harnessBlobRoot, sendJob } from '../harness/node';
import { fixtureArchive, TREE } from './fixture-checks';
import { waitForImport } from './import-support';

let server: Server;
let base = '';
let port = 0;
let archive: Uint8Array;
let user: TestUser;
const requests: string[] = [];

/** Paths of the test server: what a HEAD and a GET of each answer. */
function answer(path: string, method: string): { status: number; headers: Record<string, string>; body?: Uint8Array } {
  const gz = { 'Content-Type': 'application/gzip', 'Content-Length': String(archive.byteLength) };
  switch (path) {
    case '/archive.tar.gz':
      return { status: 200, headers: gz, body: archive };
    case '/html':
      return { status: 200, headers: { 'Content-Type': 'text/html', 'Content-Length': '10' }, body: new Uint8Array(10) };
    case '/empty':
      return { status: 200, headers: { 'Content-Type': 'application/gzip', 'Content-Length': '0' } };
    case '/big':
      return { status: 200, headers: { 'Content-Type': 'application/gzip', 'Content-Length': String(2 * 1024 * 1024) } };
    case '/s3':
      // S3's headers on a type RemoteFileValidator refuses: with the S3 flag off the validator is skipped.
      return { status: 200, headers: { 'Content-Type': 'binary/octet-stream', 'Content-Length': String(archive.byteLength), Server: 'AmazonS3', 'x-amz-request-id': 'abc' }, body: archive };
    case '/to-archive':
      return { status: 302, headers: { Location: '/archive.tar.gz' } };
    case '/to-loopback':
      return { status: 302, headers: { Location: `https://127.0.0.1:${port}/archive.tar.gz` } };
    case '/to-http':
      return { status: 302, headers: { Location: `http://localhost:${port}/archive.tar.gz` } };
    case '/get-fails':
      // The HEAD is fine; the GET is refused.
      return method === 'HEAD' ? { status: 200, headers: gz } : { status: 500, headers: {} };
    case '/get-to-loopback':
      // The HEAD is fine; the GET redirects to an address the guard refuses.
      return method === 'HEAD' ? { status: 200, headers: gz } : { status: 302, headers: { Location: `https://127.0.0.1:${port}/archive.tar.gz` } };
    case '/lying':
      // The HEAD announces a small archive; the GET sends more than max_import_size (1 MB in that test).
      return method === 'HEAD' ? { status: 200, headers: { 'Content-Type': 'application/gzip', 'Content-Length': '100' } } : { status: 200, headers: { 'Content-Type': 'application/gzip' }, body: new Uint8Array(3 * 1024 * 1024) };
    default:
      return { status: 404, headers: {} };
  }
}

beforeAll(async () => {
  archive = await fixtureArchive();
  const dir = mkdtempSync(join(tmpdir(), 'remote-import-'));
  // A certificate for the names the tests connect to: localhost, 127.0.0.1 and a name no DNS knows.
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,DNS:pinned.invalid,IP:127.0.0.1'], { stdio: 'ignore' });
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  extraCertificates.push(cert);
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const a = answer(req.url ?? '', req.method ?? 'GET');
    res.writeHead(a.status, a.headers);
    res.end(req.method === 'HEAD' ? undefined : a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  base = `https://127.0.0.1:${port}`;
  user = await createUser();
  // project_import allows 6 a minute per user; this file makes more.
  expect((await settings({ project_import_limit: 1000 })).status).toBe(200);
});

afterAll(async () => {
  extraCertificates.length = 0;
  await settings({ project_import_limit: 6 });
  await new Promise((r) => server.close(r));
});

/** Every file under the blob store's imports/ folder (temporary files included). */
function storedImports(): string[] {
  const walk = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)])) : []);
  return [...walk(join(harnessBlobRoot, 'imports')), ...walk(join(harnessBlobRoot, '.tmp'))];
}

const settings = (body: Record<string, unknown>) => api('/application/settings', { method: 'PUT', token: rootToken, body });
const remote = (url: string, extra: Record<string, unknown> = {}) => api('/projects/remote-import', { token: user.token, body: { url, path: unique('remote'), ...extra } });
const projectCount = async () => (await api('/projects?owned=true', { token: user.token })).body.length;

describe('POST /projects/remote-import refusals', () => {
  it('needs url and path, and a signed-in caller', async () => {
    expect((await api('/projects/remote-import', { token: user.token, body: { path: 'x' } })).body).toEqual({ error: 'url is missing' });
    expect((await api('/projects/remote-import', { token: null, body: { path: 'x', url: `${base}/archive.tar.gz` } })).status).toBe(401);
  });

  it('takes https only, and no local address unless the setting allows local requests', async () => {
    const before = requests.length;
    const cases: [string, string][] = [
      [`http://127.0.0.1:${port}/archive.tar.gz`, 'File url is blocked: Only allowed schemes are https'],
      ['http://example.com/archive.tar.gz', 'File url is blocked: Only allowed schemes are https'],
      [`${base}/archive.tar.gz`, 'File url is blocked: Requests to localhost are not allowed'],
      [`https://localhost:${port}/archive.tar.gz`, 'File url is blocked: Requests to localhost are not allowed'],
      ['https://10.1.2.3/archive.tar.gz', 'File url is blocked: Requests to the local network are not allowed'],
      ['https://169.254.169.254/latest/meta-data', 'File url is blocked: Requests to the link local network are not allowed'],
      ['https://[::1]/x', 'File url is blocked: Requests to localhost are not allowed'],
      ['not a url', 'File url must be a valid URL'],
      // A name is resolved before anything is sent: one without an address is refused (.invalid never has one).
      ['https://nothing-here.invalid/archive.tar.gz', 'File url is blocked: Host cannot be resolved or invalid'],
    ];
    for (const [url, message] of cases) {
      const res = await remote(url);
      expect([url, res.status, res.body]).toEqual([url, 400, { message }]);
    }
    // Refused before any request was made.
    expect(requests.length).toBe(before);
    // Allowing local requests never allows http (RemoteFile's scheme list is https alone).
    await settings({ allow_local_requests_from_web_hooks_and_services: true });
    try {
      expect((await remote(`http://127.0.0.1:${port}/archive.tar.gz`)).body).toEqual({ message: 'File url is blocked: Only allowed schemes are https' });
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false });
    }
  });

  it("checks the HEAD's content type, length, S3 and redirects, and creates nothing", async () => {
    const count = await projectCount();
    await settings({ allow_local_requests_from_web_hooks_and_services: true, max_import_size: 1 });
    try {
      const cases: [string, string][] = [
        ['/html', "Content type 'text/html' not allowed. (Allowed: application/gzip, application/x-tar, application/x-gzip)"],
        ['/empty', 'Content length is too small (should be at least 1 Byte)'],
        ['/big', 'Content length is too big (should be at most 1 MB)'],
        ['/to-http', 'Failed to retrive headers: URL is blocked: Only allowed schemes are https'],
      ];
      for (const [path, message] of cases) {
        const res = await remote(`${base}${path}`);
        expect([path, res.status, res.body]).toEqual([path, 400, { message }]);
      }
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false, max_import_size: 0 });
    }
    expect(await projectCount()).toBe(count);
  });

  it('re-checks every redirect: an allowlisted name may not send the request to a refused address', async () => {
    await settings({ outbound_local_requests_whitelist: ['localhost'] });
    try {
      const res = await remote(`https://localhost:${port}/to-loopback`);
      expect(res.body).toEqual({ message: 'Failed to retrive headers: URL is blocked: Requests to localhost are not allowed' });
      expect(requests.at(-1)).toBe('HEAD /to-loopback');
    } finally {
      await settings({ outbound_local_requests_whitelist: [] });
    }
  });
});

describe('POST /projects/remote-import downloads on the job', () => {
  it('answers 201 scheduled without downloading; a download that fails makes the import failed, with nothing imported', async () => {
    await settings({ allow_local_requests_from_web_hooks_and_services: true, max_import_size: 1 });
    try {
      const cases: [string, string, string][] = [
        ['/get-fails', 'unsupported response downloading fragment 500', 'GET /get-fails'],
        // The HEAD announced 100 bytes: the size is bounded again while the body streams.
        ['/lying', 'Content length is too big (should be at most 1 MB)', 'GET /lying'],
      ];
      for (const [path, error, last] of cases) {
        const res = await remote(`${base}${path}`);
        expect([path, res.status, res.body.import_status, res.body.import_error]).toEqual([path, 201, 'scheduled', null]);
        const done = await waitForImport(user.token, res.body.id);
        expect([path, done.body.import_status, done.body.import_error, requests.at(-1)]).toEqual([path, 'failed', error, last]);
        expect((await api(`/projects/${res.body.id}/issues`, { token: user.token })).body).toEqual([]);
      }
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false, max_import_size: 0 });
    }
  });

  it("passes every hop of the job's download through the guard again", async () => {
    await settings({ outbound_local_requests_whitelist: ['localhost'] });
    try {
      const res = await remote(`https://localhost:${port}/get-to-loopback`);
      expect(res.status).toBe(201);
      const done = await waitForImport(user.token, res.body.id);
      expect(done.body).toMatchObject({ import_status: 'failed', import_error: 'URL is blocked: Requests to localhost are not allowed' });
      // The redirect's target was never requested.
      expect(requests.slice(-2)).toEqual(['HEAD /get-to-loopback', 'GET /get-to-loopback']);
    } finally {
      await settings({ outbound_local_requests_whitelist: [] });
    }
  });

  it('is idempotent: the message delivered again, at once and after the end, downloads and imports once', async () => {
    await settings({ allow_local_requests_from_web_hooks_and_services: true });
    try {
      const res = await remote(`${base}/archive.tar.gz`);
      expect(res.status).toBe(201);
      const message = { type: IMPORT_JOB, id: `${IMPORT_JOB}:${res.body.id}:${res.body.correlation_id}`, projectId: res.body.id };
      await sendJob(message);
      const done = await waitForImport(user.token, res.body.id);
      expect(done.body).toMatchObject({ import_status: 'finished', import_error: null });
      await sendJob(message);
      await new Promise((r) => setTimeout(r, 300));
      const expected = TREE['tree/project/issues.ndjson'].split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).title).sort();
      const issues = (await api(`/projects/${res.body.id}/issues?per_page=100`, { token: user.token })).body;
      expect(issues.map((i: { title: string }) => i.title).sort()).toEqual(expected);
      expect((await api(`/projects/${res.body.id}/import`, { token: user.token })).body).toMatchObject({ import_status: 'finished', import_error: null });
      // Each copy downloaded to a key of its own: the loser's is gone, and the winner's once imported.
      await new Promise((r) => setTimeout(r, 200));
      expect(storedImports()).toEqual([]);
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false });
    }
  });
});

describe('an S3 URL given to remote-import', () => {
  it('is sent to remote-import-s3 while that flag is on; with it off its headers are not validated (RemoteFile#validate_aws_s3?)', async () => {
    await settings({ allow_local_requests_from_web_hooks_and_services: true });
    try {
      expect((await api('/features/import_project_from_remote_file_s3', { token: rootToken, body: { value: true } })).status).toBe(201);
      try {
        const count = await projectCount();
        expect(await remote(`${base}/s3`)).toMatchObject({ status: 400, body: { message: 'To import from AWS S3 use `projects/remote-import-s3`' } });
        expect(await projectCount()).toBe(count);
      } finally {
        expect((await api('/features/import_project_from_remote_file_s3', { method: 'DELETE', token: rootToken })).status).toBe(204);
      }
      const res = await remote(`${base}/s3`);
      expect(res).toMatchObject({ status: 201, body: { import_status: 'scheduled' } });
      // The job downloads with local requests still allowed.
      expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false });
    }
  });
});

describe('pinned connections', () => {
  it('connects to the checked address and never looks the name up again', async () => {
    // pinned.invalid resolves nowhere: the answer can only come from the pinned address.
    const res = await pinnedRequest({ url: new URL(`https://pinned.invalid:${port}/archive.tar.gz`), address: '127.0.0.1', method: 'HEAD', timeoutMs: 5000 });
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-length')]).toEqual([200, 'application/gzip', String(archive.byteLength)]);
    await expect(pinnedRequest({ url: new URL(`https://pinned.invalid:${port}/archive.tar.gz`), address: null, method: 'HEAD', timeoutMs: 5000 })).rejects.toThrow();
  });

  it('writes sizes as number_to_human_size does', () => {
    expect([1, 2, 1024, 1024 * 1024, 1536 * 1024, 10 * 1024 ** 3].map(humanSize)).toEqual(['1 Byte', '2 Bytes', '1 KB', '1 MB', '1.5 MB', '10 GB']);
  });
});

describe('POST /projects/remote-import', () => {
  it('downloads the archive (following a redirect) and imports it on the queue', async () => {
    await settings({ allow_local_requests_from_web_hooks_and_services: true });
    let res;
    let done;
    try {
      res = await remote(`${base}/to-archive`, { name: 'Remote Fixture' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'Remote Fixture', import_status: 'scheduled', import_type: 'gitlab_project', import_error: null });
      // The job downloads while local requests are still allowed.
      done = await waitForImport(user.token, res.body.id);
    } finally {
      await settings({ allow_local_requests_from_web_hooks_and_services: false });
    }
    expect(requests.slice(-4)).toEqual(['HEAD /to-archive', 'HEAD /archive.tar.gz', 'GET /to-archive', 'GET /archive.tar.gz']);
    expect(done.body).toMatchObject({ import_status: 'finished', import_error: null });
    const expected = TREE['tree/project/issues.ndjson']
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l).title)
      .sort();
    expect(expected.length).toBeGreaterThan(5);
    const issues = (await api(`/projects/${res.body.id}/issues?per_page=100`, { token: user.token })).body;
    expect(issues.map((i: { title: string }) => i.title).sort()).toEqual(expected);
  });
});
