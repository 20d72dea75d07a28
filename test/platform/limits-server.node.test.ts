/**
 * The real Node server (src/node-server.ts) on an ephemeral port, spoken to over raw sockets so
 * that Content-Length, chunked bodies, oversized headers and slow clients are real: every limit
 * answers GitLab-shaped JSON (or closes a stalled socket) and the next client is served.
 */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeApp } from '../../src/node-app';
import { serveNode } from '../../src/node-server';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';

const HEADERS_TIMEOUT = 400;
const REQUEST_TIMEOUT = 800;
let server: Server;
let port: number;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-limits-'));
  const { app } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'test.db')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: join(import.meta.dirname, '../../drizzle'),
    env: { PASSWORD_HASH_ITERATIONS: '1000' },
  });
  server = serveNode(app.fetch, { port: 0, hostname: '127.0.0.1', env: { HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT) } });
  await once(server, 'listening');
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

interface RawResponse {
  status: number;
  headers: string;
  body: string;
  /** The server closed the socket without any response. */
  closedSilently: boolean;
}

/** Sends `write(socket)` and reads one response (to its Content-Length, or to the close). */
function raw(write: (s: Socket) => void | Promise<void>): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const text = data.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const status = Number(text.slice(9, 12)) || 0;
      resolve({ status, headers: end < 0 ? text : text.slice(0, end), body: end < 0 ? '' : text.slice(end + 4), closedSilently: data.length === 0 });
      socket.destroy();
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: *(\d+)/i.exec(text.slice(0, end));
      if (end >= 0 && length && data.length >= end + 4 + Number(length[1])) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => void Promise.resolve(write(socket)).catch(() => {}));
  });
}

const get = (path: string, extra = '') => raw((s) => void s.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`));
const served = async () => {
  const res = await get('/api/v4/user', `PRIVATE-TOKEN: ${DEV_ROOT_TOKEN}\r\n`);
  expect(res.status).toBe(200);
};

/** Writes `total` bytes of `x` in 1 MiB pieces, waiting for the socket to drain; stops quietly if the server closes. */
async function pump(s: Socket, total: number, frame: (chunk: Buffer) => Buffer = (c) => c) {
  const piece = Buffer.alloc(1024 * 1024, 'x');
  for (let sent = 0; sent < total && !s.destroyed; sent += piece.length) {
    if (!s.write(frame(piece.subarray(0, Math.min(piece.length, total - sent))))) await Promise.race([once(s, 'drain'), once(s, 'close')]);
  }
}

describe('Node server limits', () => {
  it('answers JSON 414 for URLs over 8 KiB, up to the raised header limit', async () => {
    for (const length of [9_000, 30_000]) {
      const res = await get(`/api/v4/projects?search=${'a'.repeat(length)}`);
      expect(res.status).toBe(414);
      expect(JSON.parse(res.body)).toEqual({ message: '414 Request-URI Too Large' });
    }
    await served();
  });

  it('answers JSON 431 for headers over the server limit', async () => {
    const res = await get('/api/v4/projects', `X-Big: ${'b'.repeat(70_000)}\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(res.body)).toEqual({ message: '431 Request Header Fields Too Large' });
    await served();
  });

  it('answers 413 to a 50 MB body with Content-Length, without waiting for it, and serves the next request', async () => {
    const size = 50 * 1024 * 1024;
    const res = await raw(async (s) => {
      s.write(`POST /api/v4/projects HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
      await pump(s, size);
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ message: '413 Request Entity Too Large' });
    await served();
  });

  it('cuts off a 50 MB chunked body at the limit and serves the next request', async () => {
    const res = await raw(async (s) => {
      s.write(`POST /api/v4/projects HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nPRIVATE-TOKEN: ${DEV_ROOT_TOKEN}\r\n\r\n`);
      await pump(s, 50 * 1024 * 1024, (c) => Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]));
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ message: '413 Request Entity Too Large' });
    await served();
  });

  it('answers 400 to 10,000 form parameters and serves the next request', async () => {
    const body = Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&');
    const res = await raw((s) => void s.write(`PUT /api/v4/user/status HTTP/1.1\r\nHost: localhost\r\nPRIVATE-TOKEN: ${DEV_ROOT_TOKEN}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatch(/total number of query parameters \(10000\) exceeds limit/);
    await served();
  });

  it('closes (or answers 408) a client that sends its headers too slowly, while a normal client is served', async () => {
    const started = Date.now();
    const slow = raw((s) => void s.write('GET /api/v4/user HTTP/1.1\r\nHost: localhost\r\n'));
    await served();
    const res = await slow;
    expect(res.status === 408 || res.closedSilently).toBe(true);
    if (res.status === 408) expect(JSON.parse(res.body)).toEqual({ message: '408 Request Timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(HEADERS_TIMEOUT - 50);
    expect(Date.now() - started).toBeLessThan(HEADERS_TIMEOUT + 3000);
  });

  it('cuts off a client that holds a request body open past the request timeout', async () => {
    const started = Date.now();
    const slow = raw((s) => void s.write(`PUT /api/v4/user/status HTTP/1.1\r\nHost: localhost\r\nPRIVATE-TOKEN: ${DEV_ROOT_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mess`));
    await served();
    const res = await slow;
    expect(res.status === 408 || res.status === 400 || res.closedSilently).toBe(true);
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT + 3000);
  });
});
