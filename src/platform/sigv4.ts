/**
 * AWS Signature Version 4 for requests signed in the `Authorization` header (the form the AWS SDKs
 * send), with Web Crypto only (HMAC-SHA256 through crypto.subtle), so the same code signs on Node and
 * on Workers. Written here rather than taken from a package: it is ~70 lines, none is installed, and
 * the AWS SDK would be megabytes for two requests. Checked against AWS's published test vectors
 * (test/import-export/remote-import-s3-sigv4.node.test.ts).
 */
import { sha256, toHex } from './crypto';

/** The hex SHA-256 of an empty payload (a GET or HEAD has no body). */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
}

export interface SigV4Request {
  method: string;
  /** The path must already be URI-encoded as it goes on the wire (S3 signs it as sent, without normalizing). */
  url: URL;
  /** Headers to sign besides `host` and `x-amz-date`, which are added. */
  headers?: Record<string, string>;
  /** Hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`. */
  payloadHash?: string;
}

const enc = new TextEncoder();

async function hmac(key: Uint8Array | ArrayBuffer, data: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', k, enc.encode(data));
}

/** RFC 3986 encoding as SigV4 wants it: unreserved characters kept, every other byte %XX in upper case. */
export function uriEncode(s: string, keepSlash = false): string {
  const out = encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? out.replace(/%2F/g, '/') : out;
}

/** `20150830T123600Z`: ISO 8601 basic format, seconds precision. */
export const amzDate = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

const canonicalQuery = (params: URLSearchParams) =>
  [...params]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');

/** The signature of a canonical request: string to sign, then the key derived from the secret for the day, region and service. */
async function sign(cred: SigV4Credentials, date: string, scope: string, canonicalRequest: string): Promise<string> {
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, toHex(await sha256(canonicalRequest))].join('\n');
  let key = await hmac(enc.encode(`AWS4${cred.secretAccessKey}`), date.slice(0, 8));
  for (const part of [cred.region, cred.service, 'aws4_request']) key = await hmac(key, part);
  return toHex(await hmac(key, stringToSign));
}

/**
 * A presigned URL (the signature in the query string, as the SDK's `presigned_url(:get, expires_in:)`
 * writes it): only `host` is signed and the payload is UNSIGNED-PAYLOAD, so whoever holds the URL
 * may send that one request until it expires, without the secret.
 */
export async function presignV4(req: { method: string; url: URL }, cred: SigV4Credentials, expiresSeconds: number, now: Date = new Date()): Promise<URL> {
  const date = amzDate(now);
  const scope = `${date.slice(0, 8)}/${cred.region}/${cred.service}/aws4_request`;
  const url = new URL(req.url.href);
  url.searchParams.set('X-Amz-Algorithm', 'AWS4-HMAC-SHA256');
  url.searchParams.set('X-Amz-Credential', `${cred.accessKeyId}/${scope}`);
  url.searchParams.set('X-Amz-Date', date);
  url.searchParams.set('X-Amz-Expires', String(expiresSeconds));
  url.searchParams.set('X-Amz-SignedHeaders', 'host');
  const canonicalRequest = [req.method, url.pathname || '/', canonicalQuery(url.searchParams), `host:${url.host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  url.searchParams.set('X-Amz-Signature', await sign(cred, date, scope, canonicalRequest));
  return url;
}

/**
 * The headers to send: the given ones, `x-amz-date` and `authorization`. `host` is signed from the
 * URL (with its port when not the default) and left to the HTTP client, which sends the same value.
 */
export async function signV4(req: SigV4Request, cred: SigV4Credentials, now: Date = new Date()): Promise<Record<string, string>> {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const payloadHash = req.payloadHash ?? EMPTY_SHA256;
  const headers: Record<string, string> = { host: req.url.host };
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
  headers['x-amz-date'] = date;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n].trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [req.method, req.url.pathname || '/', canonicalQuery(req.url.searchParams), canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${day}/${cred.region}/${cred.service}/aws4_request`;
  const signature = await sign(cred, date, scope, canonicalRequest);
  const out: Record<string, string> = { ...req.headers, 'x-amz-date': date };
  out.authorization = `AWS4-HMAC-SHA256 Credential=${cred.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return out;
}
