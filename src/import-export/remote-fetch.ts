/**
 * One outbound HTTPS request to an address the guard already checked (export-upload.ts
 * checkOutbound). GitLab's UrlBlocker resolves a name, validates every address, and then connects to
 * the validated address with the name kept for TLS (SNI, certificate) and the Host header: its DNS
 * rebinding protection. A second lookup by the HTTP client could answer with 127.0.0.1 after the
 * check saw a public address, so on Node the connection's `lookup` answers with the pinned address.
 *
 * On Workers this cannot be done: `fetch` takes a URL only, the runtime resolves the name itself and
 * offers no way to choose the address it connects to (nor to open a TLS socket to an address while
 * verifying the certificate for a name). There the request goes by name; what bounds it is that a
 * Worker runs on Cloudflare's edge, which has no route to this deployment's private networks.
 */

/** The answer, without the Fetch API's limits on statuses (a 1xx or a 204 with headers is still an answer). */
export interface RemoteAnswer {
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

export interface PinnedRequest {
  url: URL;
  /** The checked address to connect to; null: go by name (no resolver, or Workers). */
  address: string | null;
  method: 'HEAD' | 'GET';
  /** Until the answer's headers arrive. */
  timeoutMs: number;
  /** Sent besides User-Agent and Accept (the S3 import's signed headers). */
  headers?: Record<string, string>;
}

/**
 * Certificates trusted besides the system's, as NODE_EXTRA_CA_CERTS would add them (Node only).
 * The Node tests' HTTPS server is self-signed; the checks a request passes are the same either way.
 */
export const extraCertificates: string[] = [];

const onWorkers = () => typeof navigator !== 'undefined' && navigator.userAgent === 'Cloudflare-Workers';

export async function pinnedRequest(req: PinnedRequest): Promise<RemoteAnswer> {
  if (onWorkers()) {
    // Redirects come back to the caller, which checks the next hop before following it.
    const res = await fetch(req.url.href, { method: req.method, headers: req.headers, redirect: 'manual', signal: AbortSignal.timeout(req.timeoutMs) });
    return { status: res.status, headers: res.headers, body: req.method === 'HEAD' ? (await res.body?.cancel(), null) : res.body };
  }
  const [https, tls, { Readable }] = await Promise.all([import('node:https'), import('node:tls'), import('node:stream')]);
  const { address } = req;
  return new Promise<RemoteAnswer>((resolve, reject) => {
    const host = req.url.hostname.replace(/^\[|\]$/g, '');
    const r = https.request(
      req.url,
      {
        method: req.method,
        headers: { 'User-Agent': 'GitLab', Accept: '*/*', ...req.headers },
        // A connection of its own: a pooled socket is keyed by name, and may lead to another address.
        agent: false,
        // SNI only for a name (an address literal has none).
        servername: /^[\d.]+$/.test(host) || host.includes(':') ? undefined : host,
        ...(extraCertificates.length ? { ca: [...tls.rootCertificates, ...extraCertificates] } : {}),
        // Never a second lookup: the connection goes to the address that was checked.
        ...(address
          ? {
              lookup: ((_name: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
                const family = address.includes(':') ? 6 : 4;
                if (options?.all) cb(null, [{ address, family }]);
                else cb(null, address, family);
              }) as never,
            }
          : {}),
      },
      (res) => {
        clearTimeout(timer);
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        if (req.method === 'HEAD') {
          res.resume();
          resolve({ status: res.statusCode ?? 0, headers, body: null });
        } else resolve({ status: res.statusCode ?? 0, headers, body: Readable.toWeb(res) as unknown as ReadableStream<Uint8Array> });
      },
    );
    // Net::OpenTimeout's words: no answer's headers within the timeout.
    const timer = setTimeout(() => r.destroy(new Error('execution expired')), req.timeoutMs);
    r.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    r.end();
  });
}
