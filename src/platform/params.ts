/**
 * Request parameters the way Grape sees them: query string, body (JSON, form or multipart) and
 * path parameters merged into one hash, with Rack's nested-key encoding (`a[]=1`, `h[k]=v`,
 * `a[0][k]=v`) expanded in the query string and in form bodies alike.
 */
import type { Context } from 'hono';
import { badRequest, grapeError, tooLarge } from './errors';
import { FILE_SINK, type FileSink, streamedMultipart } from './multipart-params';
import { DEFAULT_BODY_LIMIT, PARAM_DEPTH_LIMIT, PARAMS_LIMIT, checkParamStrings, checkString, JSON_DEPTH_LIMIT, jsonDepthExceeds, malformedUtf8, tooDeep, tooManyParams } from './limits';

export type Params = Record<string, unknown>;

/** Splits `a[b][]` into `['a', 'b', '']`. Keys without brackets give a single segment. */
function keySegments(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0) return [key];
  const segments = [key.slice(0, open)];
  const re = /\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  let last = open;
  while ((m = re.exec(key)) && m.index === last) {
    segments.push(m[1]);
    // Rack's param_depth_limit: refuse before building (and recursing into) the nested hashes.
    if (segments.length > PARAM_DEPTH_LIMIT) throw tooDeep();
    last = re.lastIndex;
  }
  // Trailing garbage after the last bracket: Rack keeps the whole key as a plain name.
  if (last !== key.length) return [key];
  return segments;
}

/**
 * Own keys only: `__proto__`, `constructor` and the like are ordinary parameter names to Rack, and
 * reading or assigning them through `node[seg]` would reach Object.prototype (one request naming
 * `__proto__[x]` would change every object of the process).
 */
const own = (node: any, key: string): any => (Object.hasOwn(node, key) ? node[key] : undefined);
const put = (node: any, key: string, value: unknown) => Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });

/** Rack::Utils.normalize_params, simplified: arrays for `[]`, hashes for `[k]`, `[0]` as a hash key (Grape turns index hashes into arrays). */
export function setNested(target: Params, key: string, value: unknown): void {
  const segments = keySegments(key);
  let node: any = target;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const lastSeg = i === segments.length - 1;
    if (seg === '') {
      // `a[]`: append to the array held by the parent (created by the previous step).
      continue;
    }
    const next = segments[i + 1];
    if (lastSeg) {
      if (Array.isArray(node)) node.push({ [seg]: value });
      else put(node, seg, value);
      return;
    }
    if (next === '') {
      // `seg[]` (possibly `seg[][k]`, treated like Rack: push scalars, merge hashes into the last element)
      if (!Array.isArray(own(node, seg))) put(node, seg, []);
      const arr: unknown[] = own(node, seg);
      if (i + 1 === segments.length - 1) {
        arr.push(value);
        return;
      }
      const rest = segments.slice(i + 2);
      const lastEl = arr[arr.length - 1] as Params | undefined;
      const childKey = rest[0];
      if (lastEl && typeof lastEl === 'object' && !Object.hasOwn(lastEl, childKey)) {
        setNested(lastEl, rebuild(rest), value);
      } else {
        const el: Params = {};
        arr.push(el);
        setNested(el, rebuild(rest), value);
      }
      return;
    }
    const child = own(node, seg);
    if (child == null || typeof child !== 'object' || Array.isArray(child)) put(node, seg, {});
    node = own(node, seg);
  }
}

const rebuild = (segments: string[]) => segments[0] + segments.slice(1).map((s) => `[${s}]`).join('');

/** Hashes whose keys are all indices (`a[0][k]=v&a[1][k]=w`) become arrays, as Grape does for `Array[JSON]`. */
function indexHashesToArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(indexHashesToArrays);
  if (value && typeof value === 'object' && !(value instanceof Blob)) {
    const entries = Object.entries(value as Params);
    if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => indexHashesToArrays(v));
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, indexHashesToArrays(v)]));
  }
  return value;
}

/** Decodes `application/x-www-form-urlencoded` text (also the query string) into nested params. */
export function parseQueryString(qs: string): Params {
  const out: Params = {};
  if (!qs) return out;
  const parts = qs.split('&').filter(Boolean);
  if (parts.length > PARAMS_LIMIT) throw tooManyParams(parts.length);
  for (const part of parts) {
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawVal = eq < 0 ? '' : part.slice(eq + 1);
    const key = safeDecode(rawKey);
    // `%FF`, `%C0%AF`: percent-escapes that decode to no UTF-8 text (decodeURIComponent throws).
    if (key == null) throw malformedUtf8(rawKey.slice(0, 200));
    const val = safeDecode(rawVal);
    if (val == null) throw malformedUtf8(key);
    if (!key) continue;
    setNested(out, key, val);
  }
  return indexHashesToArrays(out) as Params;
}

/** Number of `key=value` pairs in a query string or form body, counted before decoding any. */
const pairCount = (qs: string) => (qs ? qs.split('&').filter(Boolean).length : 0);

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** The route's body limit in bytes (set by router.ts before authentication; the default elsewhere). */
/** The context key of a body already read, for a handler that read it and then leaves the request to the routes. */
export const BODY_READ = 'bodyRead';

export const bodyLimitOf = (c: Context): number => (c.get('bodyLimit' as never) as number | undefined) ?? DEFAULT_BODY_LIMIT;

/**
 * Refuses a declared Content-Length above the limit without reading a byte of the body. Called by
 * the router before authentication, and again by readBody for callers that come another way.
 */
export function checkContentLength(c: Context, limit = bodyLimitOf(c)): void {
  const declared = c.req.header('content-length');
  if (declared && Number(declared) > limit) throw tooLarge();
}

/**
 * The body's bytes, at most `limit` of them: a chunked body (no Content-Length) is counted while it
 * is read, and reading stops (and the stream is cancelled) as soon as it passes the limit, so an
 * endless body costs at most `limit` bytes of memory.
 */
export async function readBody(c: Context): Promise<Uint8Array<ArrayBuffer>> {
  // A body a fast path already read (ci/runner-poll-fast.ts) before handing the request on.
  const read = c.get(BODY_READ as never) as Uint8Array<ArrayBuffer> | undefined;
  if (read) return read;
  const limit = bodyLimitOf(c);
  checkContentLength(c, limit);
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      // The client went away or the server timed the body out: a client error, not a logged 500.
      throw badRequest('request body could not be read');
    }
    const { done, value } = step;
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The body as UTF-8 text; bytes that are not UTF-8 are refused rather than replaced with U+FFFD. */
async function bodyText(c: Context): Promise<string> {
  const bytes = await readBody(c);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw malformedUtf8('body');
  }
}

async function parseBody(c: Context, queryPairs: number): Promise<Params> {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') return {};
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (type.includes('application/json')) {
    const text = await bodyText(c);
    if (!text.trim()) return {};
    if (jsonDepthExceeds(text)) throw tooDeep(JSON_DEPTH_LIMIT);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Grape's InvalidMessageBody, composed message and all (grape/locale/en.yml).
      throw grapeError(
        "\nProblem:\n  message body does not match declared format\nResolution:\n  when specifying application/json as content-type, you must pass valid application/json in the request's 'body' ",
      );
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Params;
    return {};
  }
  if (type.includes('application/x-www-form-urlencoded')) {
    const text = await bodyText(c);
    const pairs = queryPairs + pairCount(text);
    if (pairs > PARAMS_LIMIT) throw tooManyParams(pairs);
    return parseQueryString(text);
  }
  if (type.includes('multipart/form-data')) {
    // A route that stores its file parts as they arrive (router.ts `fileSink`): never buffered whole.
    const sink = c.get(FILE_SINK as never) as FileSink | undefined;
    if (sink) return indexHashesToArrays(await streamedMultipart(c, sink, queryPairs, setNested)) as Params;
    const bytes = await readBody(c);
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { 'content-type': c.req.header('content-type')! } }).formData();
    } catch {
      throw grapeError('Invalid multipart body');
    }
    const entries = [...form.entries()];
    if (queryPairs + entries.length > PARAMS_LIMIT) throw tooManyParams(queryPairs + entries.length);
    const out: Params = {};
    for (const [key, value] of entries) setNested(out, key, value);
    return indexHashesToArrays(out) as Params;
  }
  return {};
}

/** All parameters of the request, merged like Grape's `params` (body over query, path over both). Memoised per request. */
export async function requestParams(c: Context): Promise<Params> {
  const cached = c.get('rawParams' as never) as Params | undefined;
  if (cached) return cached;
  const url = c.req.url;
  const q = url.indexOf('?');
  const qs = q < 0 ? '' : url.slice(q + 1);
  const query = parseQueryString(qs);
  const body = await parseBody(c, pairCount(qs));
  const merged: Params = { ...query, ...body, ...pathParams(c) };
  // NUL and unencodable text anywhere (keys included) is refused, so validation and storage see the same value.
  checkParamStrings(merged);
  c.set('rawParams' as never, merged as never);
  return merged;
}

/**
 * Path parameters, decoded strictly: Hono leaves a malformed escape (`%FF`) undecoded, which would
 * reach a lookup as literal text; GitLab refuses such paths with a 400.
 */
function pathParams(c: Context): Record<string, string> {
  const pathname = new URL(c.req.url).pathname;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw malformedUtf8('path');
  }
  checkString(decoded, 'path');
  return c.req.param() as Record<string, string>;
}
