/**
 * The web upload after an export (GitLab ImportExport::AfterExportStrategies::WebUploadStrategy):
 * the archive goes as the raw body of a PUT or POST with `Content-Type: application/gzip`, through
 * the outbound guard GitLab applies to every such request (Gitlab::UrlBlocker: localhost and local
 * networks refused unless `allow_local_requests_from_web_hooks_and_services`, or the host is in
 * `outbound_local_requests_whitelist`; redirects are not followed). On Node the host's DNS answers
 * are checked too; Workers cannot reach private addresses from the edge.
 */
import type { Settings } from '../settings/settings';

/** Why UrlBlocker refuses `url`, or null when it may be requested. */
export async function outboundUrlError(url: string, settings: Pick<Settings, string>): Promise<string | null> {
  const checked = await checkOutbound(url, settings, { schemes: ['http', 'https'], requireResolved: false });
  return 'error' in checked ? checked.error : null;
}

/** What the guard decided: a refusal, or the URL with the address the request must connect to. */
export type OutboundCheck = { error: string } | { url: URL; host: string; address: string | null };

/**
 * UrlBlocker.validate!: the scheme, then the host. A name is resolved and every address it has must
 * pass; the first one comes back so the caller connects to the very address that was checked (the
 * DNS-rebinding protection: a second lookup could answer differently). `address` is null where this
 * runtime cannot resolve names (Workers) or the host is allowed without a lookup.
 * `requireResolved`: a name with no address is refused ('Host cannot be resolved or invalid').
 */
export async function checkOutbound(url: string, settings: Pick<Settings, string>, opts: { schemes: string[]; requireResolved: boolean }): Promise<OutboundCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: 'URI is invalid' };
  }
  if (!opts.schemes.includes(parsed.protocol.slice(0, -1))) return { error: `Only allowed schemes are ${opts.schemes.join(', ')}` };
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!host) return { error: 'URI is invalid' };
  const allowList = Array.isArray(settings.outbound_local_requests_whitelist) ? settings.outbound_local_requests_whitelist.map((h) => String(h).toLowerCase()) : [];
  const allowed = settings.allow_local_requests_from_web_hooks_and_services === true || allowList.includes(host);
  if (isIp(host)) {
    const err = allowed ? null : addressError(host);
    return err ? { error: err } : { url: parsed, host, address: host };
  }
  if (!allowed && (host === 'localhost' || host.endsWith('.localhost'))) return { error: 'Requests to localhost are not allowed' };
  // A name: every address it resolves to must be public (UrlBlocker validates all of them).
  const addresses = await resolveAll(host);
  if (addresses === null) return { url: parsed, host, address: null };
  if (!addresses.length) return opts.requireResolved ? { error: 'Host cannot be resolved or invalid' } : { url: parsed, host, address: null };
  if (!allowed) {
    for (const address of addresses) {
      const err = addressError(address);
      if (err) return { error: err };
    }
  }
  return { url: parsed, host, address: addresses[0] };
}

const isIp = (h: string) => /^\d+\.\d+\.\d+\.\d+$/.test(h) || h.includes(':');

/** UrlBlocker's checks of one address (WHATWG URL already wrote IPv4 in dotted form). */
function addressError(a: string): string | null {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a)?.slice(1).map(Number) ?? mappedV4(a);
  if (v4) {
    const [x, y] = v4;
    if (x === 127 || x === 0) return 'Requests to localhost are not allowed';
    if (x === 169 && y === 254) return 'Requests to the link local network are not allowed';
    if (x === 10 || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168) || (x === 100 && y >= 64 && y <= 127)) return 'Requests to the local network are not allowed';
    return null;
  }
  if (!a.includes(':')) return null;
  if (a === '::1' || a === '::') return 'Requests to localhost are not allowed';
  if (/^fe[89ab][0-9a-f]?:/.test(a)) return 'Requests to the link local network are not allowed';
  if (/^f[cd][0-9a-f]{0,2}:/.test(a)) return 'Requests to the local network are not allowed';
  return null;
}

/** `::ffff:7f00:1` (how WHATWG writes ::ffff:127.0.0.1) or `::ffff:127.0.0.1` as IPv4 bytes. */
function mappedV4(a: string): number[] | undefined {
  const dotted = /^::ffff:(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (dotted) return dotted.slice(1).map(Number);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (!hex) return undefined;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255];
}

/** Every address of `host`; null where this runtime has no resolver, [] when the name has none. */
async function resolveAll(host: string): Promise<string[] | null> {
  let dns: typeof import('node:dns/promises') | undefined;
  try {
    dns = await import('node:dns/promises');
  } catch {
    return null;
  }
  try {
    return (await dns.lookup(host, { all: true })).map((r) => r.address.toLowerCase());
  } catch (err) {
    // The name has no address (or none now); any other failure means no usable resolver here.
    const code = (err as { code?: string } | null)?.code;
    return code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' ? [] : null;
  }
}

/** Attempts of an upload that found no server or a 5xx answer. */
const UPLOAD_ATTEMPTS = 3;

/** The archive to send: its size, and a fresh stream of its bytes for each attempt. */
export interface UploadSource {
  size: number;
  open(): Promise<ReadableStream<Uint8Array>>;
}

/**
 * A request body of known length from a stream, so the request carries a Content-Length (a
 * presigned S3 PUT URL refuses a chunked body): workerd sends a FixedLengthStream with its length;
 * undici sends the declared Content-Length and needs `duplex: 'half'` for any stream body.
 */
function sizedBody(stream: ReadableStream<Uint8Array>, size: number): { body: ReadableStream<Uint8Array>; init: Record<string, unknown> } {
  const Fixed = (globalThis as { FixedLengthStream?: new (n: number) => TransformStream<Uint8Array, Uint8Array> }).FixedLengthStream;
  if (Fixed) {
    const fixed = new Fixed(size);
    stream.pipeTo(fixed.writable).catch(() => undefined);
    return { body: fixed.readable, init: {} };
  }
  return { body: stream, init: { duplex: 'half' } };
}

/**
 * Sends the archive, streamed from `source` (never whole in memory); the error GitLab records when
 * it fails (`Error uploading the project. Code <code>: <message>`), or null on a 2xx answer.
 */
export async function uploadArchive(url: string, method: string, source: UploadSource, settings: Pick<Settings, string>, retryDelayMs = 500): Promise<string | null> {
  const blocked = await outboundUrlError(url, settings);
  // The URL itself is never echoed: a pre-signed URL carries its signature.
  if (blocked) return `Error uploading the project. Code 0: URL is blocked: ${blocked}`;
  // Bounded retries of what may pass on a second try (no answer, a 5xx); a 4xx is final.
  let failure = '';
  for (let attempt = 1; attempt <= UPLOAD_ATTEMPTS; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, retryDelayMs * 2 ** (attempt - 2)));
    let res: Response;
    try {
      const { body, init } = sizedBody(await source.open(), source.size);
      res = await fetch(url, { method, body, headers: { 'Content-Type': 'application/gzip', 'Content-Length': String(source.size) }, redirect: 'manual', ...init } as RequestInit);
    } catch (err) {
      failure = `Error uploading the project. Code 0: ${String((err as Error)?.message ?? err).slice(0, 200)}`;
      continue;
    }
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return null;
    failure = `Error uploading the project. Code ${res.status}: ${res.statusText || 'upload refused'}`;
    if (res.status < 500) return failure;
  }
  return failure;
}
