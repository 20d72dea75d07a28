/**
 * Issue 14: on Node a known runner's plain, cached poll or verify is answered by the server before
 * the web Request is built (src/node-server.ts asking the app's early answers,
 * src/ci/runner-poll-first.ts). Spoken to over real HTTP: the answers, their headers and bodies are
 * the routes' own, and everything outside the plain cached case reaches the app with its body intact.
 * The early answers are observed (not replaced) to tell which side answered.
 */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeApp } from '../../src/node-app';
import { serveNode } from '../../src/node-server';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { EarlyAnswers } from '../../src/platform/early-answers';

let server: Server;
let base: string;
let answeredEarly = 0;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-runner-http-'));
  const { app, early } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'test.db')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: join(import.meta.dirname, '../../drizzle'),
    env: { PASSWORD_HASH_ITERATIONS: '1000', REPORT_ROUND_TRIPS: 'true' },
  });
  const observed: EarlyAnswers = {
    wants: early.wants,
    answer: (...args) => {
      const a = early.answer(...args);
      if (a) answeredEarly++;
      return a;
    },
  };
  server = serveNode(app.fetch, { port: 0, hostname: '127.0.0.1', early: observed });
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v4`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

interface Sent {
  status: number;
  headers: Headers;
  text: string;
  early: boolean;
  trips: number;
}

/** A POST over HTTP; `early` says whether the server answered it before the app. */
async function post(path: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }): Promise<Sent> {
  const before = answeredEarly;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, early: answeredEarly > before, trips: Number(res.headers.get('x-storage-round-trips')) };
}

const json = { 'Content-Type': 'application/json' };
const INFO = { name: 'gitlab-runner', version: '17.5.0', revision: '1d3ef4c3', platform: 'linux', architecture: 'amd64', executor: 'docker', features: { variables: true, cache: true } };

async function registered(): Promise<{ id: number; token: string }> {
  const reg = await fetch(`${base}/runners/reset_registration_token`, { method: 'POST', headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN } });
  const { token } = (await reg.json()) as { token: string };
  const created = await post('/runners', JSON.stringify({ token, info: INFO }));
  expect(created.status).toBe(201);
  return JSON.parse(created.text);
}

/** A runner this server has cached: its first poll reads it (and writes its first contact). */
async function known(): Promise<{ id: number; token: string; stamp: string }> {
  const runner = await registered();
  const first = await post('/jobs/request', JSON.stringify({ token: runner.token, info: INFO }), { ...json, 'RUNNER-TOKEN': runner.token });
  expect([first.status, first.early]).toEqual([204, false]);
  expect(first.trips).toBeGreaterThan(0);
  return { ...runner, stamp: first.headers.get('x-gitlab-last-update')! };
}

describe('answered by the server before the app', () => {
  it("a cached poll: 204, the queue stamp, the request id echoed, GitLab's security headers, no round trip", async () => {
    const { token, stamp } = await known();
    const body = JSON.stringify({ token, system_id: 's_1', last_update: stamp, info: INFO });
    for (let i = 0; i < 2; i++) {
      const res = await post('/jobs/request', body, { ...json, 'RUNNER-TOKEN': token, 'X-Request-Id': `poll-${i}` });
      expect([res.status, res.early, res.trips, res.text]).toEqual([204, true, 0, '']);
      expect(res.headers.get('x-gitlab-last-update')).toBe(stamp);
      expect(res.headers.get('x-request-id')).toBe(`poll-${i}`);
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const generated = await post('/jobs/request', body, { ...json, 'RUNNER-TOKEN': token });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f]{26}$/);
  });

  it('the token in the body alone, or in the RUNNER-TOKEN header alone', async () => {
    const { token, stamp } = await known();
    const bodyOnly = await post('/jobs/request', JSON.stringify({ token, info: INFO }));
    expect([bodyOnly.status, bodyOnly.early, bodyOnly.headers.get('x-gitlab-last-update')]).toEqual([204, true, stamp]);
    const headerOnly = await post('/jobs/request', JSON.stringify({ info: INFO }), { ...json, 'RUNNER-TOKEN': token });
    expect([headerOnly.status, headerOnly.early, headerOnly.headers.get('x-gitlab-last-update')]).toEqual([204, true, stamp]);
  });

  it("a verify: 200 with the route's body and Content-Type", async () => {
    const { id, token } = await known();
    const res = await post('/runners/verify', JSON.stringify({ token, system_id: 's_1', info: INFO }), { ...json, 'RUNNER-TOKEN': token });
    expect([res.status, res.early, res.trips]).toEqual([200, true, 0]);
    expect(JSON.parse(res.text)).toEqual({ id, token, token_expires_at: null });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it("the body's token wins over the header's, even after the header's runner sent the same header before", async () => {
    const a = await known();
    const b = await known();
    expect((await post('/jobs/request', JSON.stringify({ token: a.token }), { ...json, 'RUNNER-TOKEN': a.token })).early).toBe(true);
    const verified = await post('/runners/verify', JSON.stringify({ token: b.token }), { ...json, 'RUNNER-TOKEN': a.token });
    expect([verified.early, JSON.parse(verified.text).id]).toEqual([true, b.id]);
    const polled = await post('/jobs/request', JSON.stringify({ token: b.token }), { ...json, 'RUNNER-TOKEN': a.token });
    expect([polled.early, polled.headers.get('x-gitlab-last-update')]).toEqual([true, b.stamp]);
  });
});

describe('left to the app, with the body intact', () => {
  it('an unknown token: 403 with its body', async () => {
    const res = await post('/jobs/request', JSON.stringify({ token: 'no-such-runner-token' }), { ...json, 'X-Request-Id': 'unknown' });
    expect([res.status, res.early, JSON.parse(res.text)]).toEqual([403, false, { message: '403 Forbidden' }]);
    expect(res.headers.get('x-request-id')).toBe('unknown');
  });

  it("a form body, a query string, a chunked body, a wrong type, malformed JSON, no token: the routes' answers", async () => {
    const { token } = await known();
    const form = await post('/jobs/request', `token=${token}`, { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect([form.status, form.early]).toEqual([204, false]);
    const query = await post(`/jobs/request?token=${token}`, '{}');
    expect([query.status, query.early]).toEqual([204, false]);
    const chunked = await fetch(`${base}/runners/verify`, {
      method: 'POST',
      headers: json,
      body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(JSON.stringify({ token }))), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(200);
    const wrongType = await post('/jobs/request', JSON.stringify({ token, info: 'linux' }));
    expect([wrongType.status, wrongType.early, JSON.parse(wrongType.text)]).toEqual([400, false, { error: 'info is invalid' }]);
    const malformed = await post('/runners/verify', `{"token":"${token}"`);
    expect([malformed.status, malformed.early]).toEqual([400, false]);
    expect(JSON.parse(malformed.text).error).toContain('message body does not match declared format');
    const missing = await post('/jobs/request', JSON.stringify({ system_id: 's_1' }));
    expect([missing.status, JSON.parse(missing.text)]).toEqual([400, { error: 'token is missing' }]);
  });

  it('a poll that reports a new version is written by the app; the same body next time is answered early', async () => {
    const { id, token } = await known();
    const body = JSON.stringify({ token, info: { ...INFO, version: '17.6.0' } });
    const changed = await post('/jobs/request', body, { ...json, 'RUNNER-TOKEN': token });
    expect([changed.status, changed.early, changed.trips]).toEqual([204, false, 1]);
    const shown = await fetch(`${base}/runners/${id}`, { headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN } });
    expect(((await shown.json()) as { version: string }).version).toBe('17.6.0');
    expect((await post('/jobs/request', body, { ...json, 'RUNNER-TOKEN': token })).early).toBe(true);
  });

  it('a runner deleted through the API is refused at once', async () => {
    const { token } = await known();
    const deleted = await fetch(`${base}/runners`, { method: 'DELETE', headers: json, body: JSON.stringify({ token }) });
    expect(deleted.status).toBe(204);
    const res = await post('/jobs/request', JSON.stringify({ token }), { ...json, 'RUNNER-TOKEN': token });
    expect([res.status, res.early, JSON.parse(res.text)]).toEqual([403, false, { message: '403 Forbidden' }]);
  });
});
