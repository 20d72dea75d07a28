/**
 * The Node HTTP server around the app: header-size and timeout bounds (platform/limits.ts), and
 * JSON answers for what Node's parser refuses before the app runs (oversized headers, timeouts,
 * malformed requests), where Node would otherwise send an empty 431/408/400.
 */
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import { createServer, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import type { EarlyAnswers } from './platform/early-answers';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_HEADER_BYTES, REQUEST_TIMEOUT_MS } from './platform/limits';
import { requestStarted } from './platform/request-gate';

export interface NodeServerOptions {
  port: number;
  hostname?: string;
  /** Environment for the timeout overrides (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS). */
  env?: Record<string, string | undefined>;
  /** Answers given before the web Request is built (the app's `early`, app.ts); the rest go to `fetch`. */
  early?: EarlyAnswers;
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

/** A header as the web Headers of @hono/node-server would give it for the names `early` reads. */
const headerOf = (req: IncomingMessage) => (name: string) => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
};

/**
 * The listener that offers each request to `early` first. Node has already parsed the request line
 * and headers; the body of a request `early` wants is read here (its length is declared and small),
 * and when `early` declines, the request goes to the app with that body (@hono/node-server takes a
 * Buffer `rawBody` as the body). Why: the web Request and Response of @hono/node-server, their
 * Headers and the body's promise chain were a large share of a cached runner poll's CPU (issue 14).
 */
function answeringEarly(early: EarlyAnswers, app: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const header = headerOf(req);
    // The URL the app would see: scheme, host and path (platform/limits.ts bounds its length).
    if (!early.wants(req.method ?? 'GET', url, 7 + (req.headers.host?.length ?? 0) + url.length, header)) return app(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => req.destroy());
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      let a: ReturnType<EarlyAnswers['answer']>;
      try {
        a = early.answer(url, header, { incoming: req, outgoing: res }, body);
      } catch {
        // Nothing here may take the process down: the app answers (and reports) what went wrong.
        a = undefined;
      }
      if (!a) {
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
        return app(req, res);
      }
      res.writeHead(a.status, a.headers);
      res.end(a.body ?? undefined);
    });
  };
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
      ...(opts.early ? { createServer: ((options: ServerOptions, app: RequestListener) => createServer(options, answeringEarly(opts.early!, app))) as typeof createServer } : {}),
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
  // Background jobs in this process wait for a moment without requests (platform/request-gate.ts).
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => res.once('close', requestStarted()));
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
