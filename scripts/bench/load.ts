/**
 * Load generator over raw keep-alive TCP sockets with a minimal HTTP/1.1 response parser: far
 * cheaper per request than node:http or fetch, so on a 2-core machine the client takes less of the
 * server's CPU (wrk is not installed here; performance.md 4.2).
 *
 * - closedLoop: `conns` connections, each sends its next request when the previous one answered
 *   (capacity, like `wrk -c`).
 * - openLoop: requests are scheduled at a fixed rate whatever the server does, and latency counts from
 *   the scheduled time (corrects coordinated omission, like ../shared/tools/openloop.mjs and k6's
 *   constant-arrival-rate used by GitLab's GPT).
 */
import net from 'node:net';

export interface Req {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A label to break latencies down inside a mix. */
  kind?: string;
  /** Told the response status, or null when none came (a scenario that tracks what its writes did). */
  onDone?: (status: number | null) => void;
}

export interface Sample {
  ms: number;
  status: number;
  kind?: string;
  /** The response's X-Storage-Round-Trips (the servers report it in the benchmark), if it had one. */
  roundTrips?: number;
}

/** One completed response: its status and the round trips it reports. */
export interface Answer {
  status: number;
  roundTrips?: number;
}

export interface RunResult {
  samples: Sample[];
  elapsedMs: number;
  /** Socket errors and requests that never completed. */
  errors: number;
  /** One non-2xx response (status line and body start), if any. */
  errorSample?: string;
}

export function encodeRequest(host: string, r: Req): Buffer {
  const body = r.body === undefined ? null : Buffer.from(JSON.stringify(r.body));
  let head = `${r.method} ${r.path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: workflow-api-bench\r\nAccept: application/json\r\n`;
  for (const [k, v] of Object.entries(r.headers ?? {})) head += `${k}: ${v}\r\n`;
  if (body) head += `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
  head += '\r\n';
  return body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
}

/**
 * Incremental parser for responses on one connection. `push` returns the status of each response
 * completed by the chunk. Handles Content-Length and chunked bodies (what Node and workerd send).
 */
export class ResponseParser {
  private buf: Buffer = Buffer.alloc(0);
  private status = 0;
  private roundTrips: number | undefined;
  private bodyLeft = -1; // -1: reading head; >= 0: bytes of a Content-Length body still to come
  private chunked = false;
  closeAfter = false;
  /** Head and start of the body of the latest non-2xx response (for the report). */
  lastError: string | null = null;

  push(chunk: Buffer): number[] {
    return this.answers(chunk).map((a) => a.status);
  }

  /** As `push`, with each response's X-Storage-Round-Trips. */
  answers(chunk: Buffer): Answer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const done: Answer[] = [];
    const answer = (): Answer => (this.roundTrips === undefined ? { status: this.status } : { status: this.status, roundTrips: this.roundTrips });
    for (;;) {
      if (this.bodyLeft < 0 && !this.chunked) {
        const end = this.buf.indexOf('\r\n\r\n');
        if (end < 0) return done;
        const head = this.buf.toString('latin1', 0, end);
        this.buf = this.buf.subarray(end + 4);
        this.status = Number(head.slice(9, 12));
        const lower = head.toLowerCase();
        const cl = /\r\ncontent-length:\s*(\d+)/.exec(lower);
        this.chunked = !cl && /\r\ntransfer-encoding:\s*chunked/.test(lower);
        this.closeAfter = /\r\nconnection:\s*close/.test(lower);
        const rt = /\r\nx-storage-round-trips:\s*(\d+)/.exec(lower);
        this.roundTrips = rt ? Number(rt[1]) : undefined;
        this.bodyLeft = this.chunked ? -1 : cl ? Number(cl[1]) : 0;
        if (this.status < 200 || this.status >= 300) this.lastError = head.split('\r\n')[0];
      }
      if (this.chunked) {
        // Consume whole chunks; the last one is `0\r\n\r\n` (no trailers from our servers).
        for (;;) {
          const eol = this.buf.indexOf('\r\n');
          if (eol < 0) return done;
          const size = parseInt(this.buf.toString('latin1', 0, eol), 16);
          if (size === 0) {
            if (this.buf.length < eol + 4) return done;
            this.buf = this.buf.subarray(eol + 4);
            this.chunked = false;
            this.bodyLeft = -1;
            done.push(answer());
            break;
          }
          if (this.buf.length < eol + 2 + size + 2) return done;
          this.buf = this.buf.subarray(eol + 2 + size + 2);
        }
        continue;
      }
      if (this.buf.length < this.bodyLeft) return done;
      if (this.status < 200 || this.status >= 300) this.lastError += ' ' + this.buf.toString('utf8', 0, Math.min(this.bodyLeft, 300));
      this.buf = this.buf.subarray(this.bodyLeft);
      this.bodyLeft = -1;
      done.push(answer());
    }
  }
}

class Conn {
  private socket!: net.Socket;
  private parser!: ResponseParser;
  get lastError() {
    return this.parser.lastError;
  }
  private onDone: ((a: Answer) => void) | null = null;
  private onFail: ((err: Error) => void) | null = null;
  busy = false;
  private dead = false;
  /** Answers received on the current socket, and whether the pending request has seen any byte. */
  private answered = 0;
  private gotBytes = false;

  constructor(private port: number) {
    this.open();
  }

  private open() {
    this.dead = false;
    this.parser = new ResponseParser();
    this.socket = net.connect({ port: this.port, host: '127.0.0.1', noDelay: true });
    this.answered = 0;
    this.socket.on('data', (chunk) => {
      this.gotBytes = true;
      for (const a of this.parser.answers(chunk)) {
        const cb = this.onDone;
        this.onDone = this.onFail = null;
        this.busy = false;
        if (this.parser.closeAfter) this.reopen();
        cb?.(a);
      }
    });
    const fail = (err: Error) => {
      const cb = this.onFail;
      this.onDone = this.onFail = null;
      this.busy = false;
      cb?.(err);
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => {
      this.dead = true;
      fail(new Error('closed'));
    });
  }

  private reopen() {
    this.socket.removeAllListeners();
    this.socket.destroy();
    this.open();
  }

  send(bytes: Buffer, retried = false): Promise<Answer> {
    this.busy = true;
    if (this.dead) this.reopen();
    // A kept-alive connection the server closes for idleness (Node's keepAliveTimeout) can close just
    // as a request goes out on it. HTTP clients resend an idempotent request once on a fresh
    // connection when a reused one fails before any byte of the answer (undici, urllib3); the
    // generator does the same, so such a race is not counted as the server's error.
    const reused = this.answered > 0;
    this.gotBytes = false;
    const idempotent = bytes.subarray(0, 5).toString() === 'GET /' || bytes.subarray(0, 6).toString() === 'HEAD /';
    return new Promise((resolve, reject) => {
      this.onDone = (a) => {
        this.answered++;
        resolve(a);
      };
      this.onFail = (err) => {
        const again = reused && !this.gotBytes && idempotent && !retried;
        this.reopen();
        if (again) this.send(bytes, true).then(resolve, reject);
        else reject(err);
      };
      this.socket.write(bytes);
    });
  }

  close() {
    this.socket.removeAllListeners();
    this.socket.on('error', () => {});
    this.socket.destroy();
  }
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** Runs `conns` loops for `seconds`; `next()` gives each request. Samples before `warmupSeconds` are dropped. */
export async function closedLoop(port: number, next: () => Req, conns: number, seconds: number, warmupSeconds = 0): Promise<RunResult> {
  const host = `127.0.0.1:${port}`;
  const samples: Sample[] = [];
  let errors = 0;
  const start = nowMs();
  const measureFrom = start + warmupSeconds * 1000;
  const end = measureFrom + seconds * 1000;
  const pool = Array.from({ length: conns }, () => new Conn(port));
  await Promise.all(
    pool.map(async (c) => {
      while (nowMs() < end) {
        const r = next();
        const t = nowMs();
        try {
          const { status, roundTrips } = await c.send(encodeRequest(host, r));
          r.onDone?.(status);
          if (t >= measureFrom) samples.push({ ms: nowMs() - t, status, kind: r.kind, roundTrips });
        } catch {
          r.onDone?.(null);
          if (t >= measureFrom) errors++;
          await new Promise((res) => setTimeout(res, 10));
        }
      }
    }),
  );
  const elapsedMs = nowMs() - measureFrom;
  pool.forEach((c) => c.close());
  return { samples, elapsedMs, errors, errorSample: pool.find((c) => c.lastError)?.lastError ?? undefined };
}

/**
 * Sends `rate` requests per second for `seconds` on up to `maxConns` connections; a request whose
 * turn comes while every connection is busy waits (its wait counts). Requests still open `drainSeconds`
 * after the last send are counted as errors.
 */
export async function openLoop(port: number, next: () => Req, rate: number, seconds: number, maxConns = 256, drainSeconds = 10): Promise<RunResult> {
  const host = `127.0.0.1:${port}`;
  const samples: Sample[] = [];
  let errors = 0;
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const pool: Conn[] = [];
  const waiting: (() => void)[] = [];
  let inflight = 0;
  const start = nowMs();

  const acquire = (): Promise<Conn> => {
    const free = pool.find((c) => !c.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    if (pool.length < maxConns) {
      const c = new Conn(port);
      c.busy = true;
      pool.push(c);
      return Promise.resolve(c);
    }
    return new Promise((resolve) => waiting.push(() => resolve(acquire())));
  };
  const release = () => waiting.shift()?.();

  const fire = async (scheduled: number) => {
    inflight++;
    const r = next();
    const c = await acquire();
    try {
      const { status, roundTrips } = await c.send(encodeRequest(host, r));
      r.onDone?.(status);
      samples.push({ ms: nowMs() - scheduled, status, kind: r.kind, roundTrips });
    } catch {
      r.onDone?.(null);
      errors++;
    } finally {
      inflight--;
      release();
    }
  };

  let sent = 0;
  await new Promise<void>((done) => {
    // Sleep on a timer until ~2 ms before the next send, then spin on setImmediate: on time without
    // keeping a core busy between requests (the server needs it).
    const tick = () => {
      const now = nowMs();
      while (sent < total && start + sent * interval <= now) fire(start + sent++ * interval);
      if (sent >= total) return done();
      const wait = start + sent * interval - nowMs();
      if (wait > 3) setTimeout(tick, wait - 2);
      else setImmediate(tick);
    };
    tick();
  });
  const lastSend = nowMs();
  while (inflight > 0 && nowMs() - lastSend < drainSeconds * 1000) await new Promise((r) => setTimeout(r, 5));
  errors += inflight;
  const elapsedMs = Math.max(nowMs() - start, seconds * 1000);
  pool.forEach((c) => c.close());
  return { samples, elapsedMs, errors, errorSample: pool.find((c) => c.lastError)?.lastError ?? undefined };
}
