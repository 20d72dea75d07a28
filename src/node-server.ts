/**
 * The Node HTTP server around the app: header-size and timeout bounds (platform/limits.ts), and
 * JSON answers for what Node's parser refuses before the app runs (oversized headers, timeouts,
 * malformed requests), where Node would otherwise send an empty 431/408/400.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_HEADER_BYTES, REQUEST_TIMEOUT_MS } from './platform/limits';

export interface NodeServerOptions {
  port: number;
  hostname?: string;
  /** Environment for the timeout overrides (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS). */
  env?: Record<string, string | undefined>;
}

const ms = (value: string | undefined, fallback: number) => (value && Number(value) > 0 ? Number(value) : fallback);

/** GitLab-shaped JSON bodies for the statuses Node's parser produces on its own. */
function clientErrorStatus(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

export function clientErrorResponse(status: number): string {
  const reason = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({ message: status === 400 ? '400 Bad request' : `${status} ${reason}` });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export function serveNode(fetch: (req: Request) => Response | Promise<Response>, opts: NodeServerOptions, onListen?: (info: AddressInfo) => void): Server {
  const env = opts.env ?? process.env;
  const requestTimeout = ms(env.REQUEST_TIMEOUT_MS, REQUEST_TIMEOUT_MS);
  const headersTimeout = Math.min(ms(env.HEADERS_TIMEOUT_MS, HEADERS_TIMEOUT_MS), requestTimeout);
  const server = serve(
    {
      fetch,
      port: opts.port,
      hostname: opts.hostname,
      serverOptions: {
        maxHeaderSize: MAX_HEADER_BYTES,
        requestTimeout,
        headersTimeout,
        keepAliveTimeout: ms(env.KEEP_ALIVE_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS),
        // Node checks the two timeouts on this interval (30 s by default): a fraction of the
        // shortest keeps the bound close to its value.
        connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
      },
    },
    onListen,
  ) as Server;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset connection has no one to answer; a response already under way cannot be replaced.
    const inFlight = (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(clientErrorStatus(err.code)));
  });
  return server;
}
