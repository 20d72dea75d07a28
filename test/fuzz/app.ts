/**
 * The fuzzer's server: the Node app on a fresh libSQL file (as test/harness/node.ts builds it), its
 * route table, and one `send` that times each request and reads its body.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeApp } from '../../src/node-app';
import { APP_LIMITS } from '../../src/settings/rate-limits';
import { takeViolations, VIOLATION_HEADER } from '../../src/platform/response-check';

export interface Sent {
  status: number;
  headers: Headers;
  text: string;
  /** Wall time from the request to the last byte of the body. */
  ms: number;
  /** What the app's own response check (VALIDATE_RESPONSES) found, if anything. */
  violation: string | null;
}

export type FuzzApp = Awaited<ReturnType<typeof startFuzzApp>>;

/**
 * Application rate limits are switched off (RATE_LIMITS, 0 disables) so that thousands of requests in
 * a minute reach the code behind them instead of a 429; the throttles' own tests live in test/settings.
 */
export async function startFuzzApp() {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-fuzz-'));
  const created = await createNodeApp({
    databaseUrl: `file:${join(dir, 'fuzz.db')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: join(import.meta.dirname, '../../drizzle'),
    env: {
      PASSWORD_HASH_ITERATIONS: '1000',
      RATE_LIMITS: JSON.stringify(Object.fromEntries(Object.keys(APP_LIMITS).map((k) => [k, 0]))),
      // The fuzz may turn import_project_from_remote_file_s3 on: its S3 requests then go to a local
      // port nothing listens on (refused by the outbound guard, or at once), never to AWS.
      S3_ENDPOINT: 'https://127.0.0.1:9',
    },
  });
  async function send(url: string, init: RequestInit = {}): Promise<Sent> {
    const started = performance.now();
    const res = await created.app.fetch(new Request(url.startsWith('http') ? url : `http://localhost${url}`, init));
    const text = await res.text();
    const ms = performance.now() - started;
    let violation: string | null = null;
    if (res.headers.has(VIOLATION_HEADER)) {
      violation = decodeURIComponent(res.headers.get(VIOLATION_HEADER)!);
      // Reported with the request here, not again by test/harness/node-setup.ts after the test.
      takeViolations();
    }
    return { status: res.status, headers: res.headers, text, ms, violation };
  }
  /** JSON helper for fixtures: throws unless the status is the expected one. */
  async function call<T = any>(method: string, path: string, token: string | null, body?: unknown, expected = [200, 201, 204]): Promise<T> {
    const headers: Record<string, string> = {};
    if (token) headers['PRIVATE-TOKEN'] = token;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    const url = path.startsWith('/api/') || path.startsWith('/oauth') || path.startsWith('/-/') || path.startsWith('/uploads') ? path : `/api/v4${path}`;
    const res = await send(url, { method, headers, body: payload });
    if (!expected.includes(res.status)) throw new Error(`fixture ${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    return (res.text ? JSON.parse(res.text) : null) as T;
  }
  return { ...created, send, call };
}
