/**
 * One webhook request (WebHookService#make_request: POST, JSON body, redirects not followed, a
 * timeout). On Node the connection goes to the address the outbound guard checked (UrlBlocker's
 * DNS-rebinding protection, as remote-fetch.ts does for imports) and `enable_ssl_verification: false`
 * skips certificate checks for this hook only. Workers' fetch offers neither: there the request goes
 * by name and certificates are always verified.
 */
export interface HookAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Bytes of a response body kept (WebHookLog truncates what it stores). */
export const RESPONSE_BODY_LIMIT = 8 * 1024;
/** Gitlab::HTTP's webhook timeout (WebHookService::REQUEST_TIMEOUT … 10 s). */
export const HOOK_TIMEOUT_MS = 10_000;

const onWorkers = () => typeof navigator !== 'undefined' && navigator.userAgent === 'Cloudflare-Workers';

export async function postHook(url: URL, address: string | null, headers: Record<string, string>, body: string, verifyTls: boolean): Promise<HookAnswer> {
  if (onWorkers()) {
    const res = await fetch(url.href, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(HOOK_TIMEOUT_MS) });
    const text = await res.text();
    return { status: res.status, headers: Object.fromEntries(res.headers), body: text.slice(0, RESPONSE_BODY_LIMIT) };
  }
  const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise<HookAnswer>((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(new TextEncoder().encode(body).byteLength) },
        agent: false,
        ...(url.protocol === 'https:' ? { rejectUnauthorized: verifyTls, servername: /^[\d.]+$/.test(host) || host.includes(':') ? undefined : host } : {}),
        ...(address
          ? {
              lookup: ((_n: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) => {
                const family = address.includes(':') ? 6 : 4;
                if (o?.all) cb(null, [{ address, family }]);
                else cb(null, address, family);
              }) as never,
            }
          : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (b: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT) chunks.push(b);
          size += b.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_LIMIT) });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('execution expired')), HOOK_TIMEOUT_MS);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}
