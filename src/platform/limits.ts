/**
 * Every bound the platform puts on a request, in one place, with where each number comes from.
 * Each limit is checked before any parsing or storage work and answers a 4xx in GitLab's JSON
 * error shape; nothing is changed by a refused request.
 */
import { ApiError, grapeError } from './errors';

/**
 * Bracket nesting of a query-string or form key (`a[b][c]` is 3 levels). Rack's
 * `Rack::Utils.param_depth_limit` default; Grape turns Rack's ParamsTooDeepError into a 400
 * (Grape::Exceptions::TooDeepParameters). Without a bound, 10,000 levels overflowed the stack.
 */
export const PARAM_DEPTH_LIMIT = 100;

/** Nesting of arrays/objects in a JSON body. No GitLab endpoint takes more than a few levels. */
export const JSON_DEPTH_LIMIT = 32;

/**
 * Parameters (key=value pairs and multipart parts) across the query string and the body. Rack 3.1's
 * `params_limit` is 4096; GitLab's largest legitimate requests (bulk label or assignee lists) stay
 * far below 1,000, and the lower bound keeps the per-request work small.
 */
export const PARAMS_LIMIT = 1000;

/**
 * Default request body bound for JSON and form bodies. The largest text GitLab accepts in one field
 * is a description of 1,000,000 characters (Issuable DESCRIPTION_LENGTH_MAX = 1.megabyte); in
 * UTF-8 that may take up to 4 MB, JSON-escaped more, so 8 MiB leaves room for it and the other
 * fields. Routes that take files declare their own `bodyLimit` (router.ts), e.g. from the
 * application setting `max_attachment_size` (MB), as GitLab's upload endpoints do.
 */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * Above this many bytes of URL the front proxy answers 414 (GitLab's nginx/Workhorse default is 8 KiB request lines).
 *
 * What each runtime does before this check can run (measured with raw sockets, workerd 1.20261102.1
 * under `wrangler dev` 4.156, and from Cloudflare's Workers limits page):
 * - workerd passes URLs of up to 64 KiB to the Worker, so 8-64 KiB get our JSON 414. Longer ones
 *   never reach it: up to about 70 KB its URL parser fails ("uri too long", a plain 500 from
 *   wrangler dev's proxy), beyond that its HTTP server answers a plain-text 414 "URI too long".
 *   A header block of up to about 480 KiB reaches the Worker; above it, a plain-text 431.
 * - On Cloudflare the edge refuses URLs over 16 KB (414) and headers over 128 KB in total before the
 *   Worker runs, so there every URL between 8 and 16 KB gets our JSON 414.
 * - Node: see MAX_HEADER_BYTES.
 */
export const MAX_URL_BYTES = 8192;

/**
 * Node's HTTP parser limit on the request line plus headers. Node's default (16 KiB) would refuse a
 * 9 KiB URL with its own empty 431 before the app could answer 414; 64 KiB lets the app see it.
 * Above it, the server's `clientError` handler answers 431 with a JSON body (src/node-server.ts).
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Node server timeouts (ms), overridable by environment for tests: a real client sends its headers
 * within milliseconds and a 8 MiB body within seconds; a slow client holding a socket open does not.
 */
export const HEADERS_TIMEOUT_MS = 20_000; // HEADERS_TIMEOUT_MS: request line and headers (Node default 60 s)
export const REQUEST_TIMEOUT_MS = 120_000; // REQUEST_TIMEOUT_MS: the whole request, body included (Node default 300 s)
export const KEEP_ALIVE_TIMEOUT_MS = 5_000; // KEEP_ALIVE_TIMEOUT_MS: idle keep-alive connection (Node default 5 s)

/**
 * GitLab's offset pagination limit (plan limit `offset_pagination_limit`, default 50,000):
 * `page * per_page` above it is refused for types that also offer keyset pagination
 * (lib/api/helpers/pagination_strategies.rb).
 */
export const OFFSET_PAGINATION_LIMIT = 50_000;

/** 414 for an over-long request line, JSON like GitLab's other errors. */
export const uriTooLong = () => new ApiError(414, { message: '414 Request-URI Too Large' });
/** The 431 body the Node server writes for oversized headers (it answers before the app runs). */
export const HEADERS_TOO_LARGE_BODY = JSON.stringify({ message: '431 Request Header Fields Too Large' });

export const tooDeep = (limit = PARAM_DEPTH_LIMIT) => grapeError(`Parameters are nested too deeply (the limit is ${limit} levels)`);
/** Rack 3.1's QueryLimitError message. */
export const tooManyParams = (count: number) => grapeError(`total number of query parameters (${count}) exceeds limit (${PARAMS_LIMIT})`);

/**
 * GitLab refuses NUL bytes and malformed UTF-8 anywhere in the parameters with a 400
 * (lib/gitlab/middleware/handle_malformed_strings.rb). We answer in Grape's parameter-error shape,
 * naming the parameter: `{"error":"title contains a null byte"}`, `{"error":"q is not valid UTF-8"}`.
 * Storage would otherwise cut the text at the NUL while validation saw all of it.
 */
export const nullByte = (name: string) => grapeError(`${name} contains a null byte`);
export const malformedUtf8 = (name: string) => grapeError(`${name} is not valid UTF-8`);

/** A lone UTF-16 surrogate (e.g. JSON `"\ud800"`) has no UTF-8 encoding. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Throws the 400 for a string that contains NUL or cannot be encoded as UTF-8. */
export function checkString(s: string, name: string): void {
  if (s.includes('\u0000')) throw nullByte(printable(name));
  if (LONE_SURROGATE.test(s)) throw malformedUtf8(printable(name));
}

/** The parameter name as shown in an error: never echo the NUL or a lone surrogate back. */
const printable = (name: string) => name.replace(/\u0000/g, '\\0').replace(/[\uD800-\uDFFF]/g, '\uFFFD').slice(0, 200);

/**
 * Every key and string value of merged params, at any depth, without recursion (the depth of JSON
 * is bounded, but a walk that cannot overflow needs no such argument). Files are skipped: their
 * contents are bytes, not text.
 */
export function checkParamStrings(params: Record<string, unknown>): void {
  const stack: [unknown, string][] = [[params, '']];
  while (stack.length) {
    const [value, name] = stack.pop()!;
    if (typeof value === 'string') checkString(value, name);
    else if (Array.isArray(value)) for (const item of value) stack.push([item, `${name}[]`]);
    else if (value && typeof value === 'object' && !(value instanceof Blob)) {
      for (const [k, v] of Object.entries(value)) {
        const child = name ? `${name}[${k}]` : k;
        checkString(k, child);
        stack.push([v, child]);
      }
    }
  }
}

/** Nesting depth of JSON text, by a linear scan before `JSON.parse` does any work. */
export function jsonDepthExceeds(text: string, limit = JSON_DEPTH_LIMIT): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}
