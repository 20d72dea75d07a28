/**
 * A webhook receiver on 127.0.0.1 for Node delivery tests: records every request (path, headers,
 * JSON body) and answers `ok`. Local hook requests are allowed while the file's tests run.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { api, rootToken } from '../support';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export function hookReceiver() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
      res.end('ok');
    });
  });
  const rx = { received, base: '' };
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    rx.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: true } });
  });
  afterAll(async () => {
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: false } });
    await new Promise((r) => server.close(r));
  });
  return rx;
}
