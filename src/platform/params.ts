/**
 * Request parameters the way Grape sees them: query string, body (JSON, form or multipart) and
 * path parameters merged into one hash, with Rack's nested-key encoding (`a[]=1`, `h[k]=v`,
 * `a[0][k]=v`) expanded in the query string and in form bodies alike.
 */
import type { Context } from 'hono';
import { grapeError } from './errors';

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
  for (const part of qs.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawVal = eq < 0 ? '' : part.slice(eq + 1);
    const key = safeDecode(rawKey);
    const val = safeDecode(rawVal);
    if (key == null || val == null) throw grapeError('Invalid query string');
    if (!key) continue;
    setNested(out, key, val);
  }
  return indexHashesToArrays(out) as Params;
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** The body as UTF-8 text, decoded from bytes (workerd warns when `.text()` reads a form body). */
async function bodyText(c: Context): Promise<string> {
  return new TextDecoder().decode(await c.req.arrayBuffer());
}

async function parseBody(c: Context): Promise<Params> {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') return {};
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (type.includes('application/json')) {
    const text = await bodyText(c);
    if (!text.trim()) return {};
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
    return parseQueryString(await bodyText(c));
  }
  if (type.includes('multipart/form-data')) {
    let form: FormData;
    try {
      form = await c.req.raw.clone().formData();
    } catch {
      throw grapeError('Invalid multipart body');
    }
    const out: Params = {};
    for (const [key, value] of form.entries()) setNested(out, key, value);
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
  const query = q < 0 ? {} : parseQueryString(url.slice(q + 1));
  const body = await parseBody(c);
  const merged: Params = { ...query, ...body, ...c.req.param() };
  c.set('rawParams' as never, merged as never);
  return merged;
}
