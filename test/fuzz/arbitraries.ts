/**
 * Requests derived from a route's declared parameters (the zod specs of `g.*` types, read through
 * the same `describeParam` the OpenAPI document uses), then mutated: wrong types, boundary and
 * overflowing integers, empty, 10k-character, control-character and non-UTF-8 strings, arrays where
 * scalars belong and hashes where arrays do, unknown and duplicated parameters, malformed bodies and
 * hostile path segments (`..%2F`, `%00`, huge numbers).
 *
 * A request is plain data (`FuzzRequest`) so fast-check can print and shrink it; `toRequest` turns it
 * into a fetch Request for a caller.
 */
import { fc } from '@fast-check/vitest';
import { describeParam } from '../../src/platform/openapi';
import type { RouteRecord } from '../../src/platform/router';
import { hintFor, undeclaredParams } from './hints';
import { segmentKind, type World } from './world';

export type Caller = 'admin' | 'user' | 'anonymous';

/** Percent-encoded bytes sent as they are: `%FF` is not UTF-8, whatever decodes it. */
export class RawPct {
  constructor(readonly pct: string) {}
  toJSON() {
    return `RawPct(${this.pct})`;
  }
}
/** An uploaded file, for `File` parameters (and where none belongs). */
export class Upload {
  constructor(readonly name: string, readonly type: string, readonly size: number) {}
}

export type Encoding = 'query' | 'json' | 'form' | 'multipart';
export interface RawBody {
  contentType: string | null;
  /** Text, or bytes given as numbers (non-UTF-8 bodies). */
  body: string | number[];
}

export interface FuzzRequest {
  path: Record<string, string>;
  params: [string, unknown][];
  encoding: Encoding;
  /** When set, sent instead of the encoded params (params still go in the query string). */
  raw: RawBody | null;
  auth: 'header' | 'bearer' | 'query' | 'garbage';
  sudo: string | null;
  /** GitLab's optional `.json` suffix; HEAD instead of GET. */
  variant: 'plain' | 'json-suffix' | 'head';
}

const TEN_K = 'x'.repeat(10_000);

/** Path segments no route should choke on; each is already what goes between two slashes. */
const HOSTILE_SEGMENTS = [
  '..%2F',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2E%2E%2F',
  '%00',
  'a%00b',
  '%0A',
  '%FF',
  '%C3%28',
  '%E0%80%AF',
  '%25',
  '%252F',
  '%2F',
  'a%2Fb%2Fc',
  '0',
  '-1',
  '-0',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '99999999999999999999999999999',
  '1e3',
  '0x10',
  '1.5',
  '+7',
  '%20',
  'NaN',
  'null',
  'undefined',
  '%5B%5D',
  '%7B%7D',
  'constructor',
  '__proto__',
  'toString',
  encodeURIComponent('ü✓😀'),
  encodeURIComponent('<script>'),
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('%_*'),
  'self',
  'all',
  'x'.repeat(10_000),
  '1'.repeat(400),
];

/** Strings that break naive code: empties, blanks, NUL and other controls, bidi marks, lone surrogates, wildcards, quotes. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u001b[31m\u007f',
  '\r\nX-Injected: 1',
  '\u202e\u2066',
  '\ufeff',
  '\ud800',
  'a\udfffb',
  '😀👨‍👩‍👧',
  'ü',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '<script>alert(1)</script>',
  '%',
  '%_',
  '*',
  '\\',
  '../../etc/passwd',
  'null',
  'true',
  'NaN',
  '-0',
  '1e309',
  '0x1F',
  ' 42 ',
  '+1',
  '2147483648',
  '9007199254740991',
  '-9007199254740991',
  '9007199254740993',
  '9223372036854775807',
  '-9223372036854775809',
  '99999999999999999999999999999999',
  '2024-02-30',
  '0000-00-00T00:00:00Z',
  '9999-12-31T23:59:59.999+14:00',
  '1h 3z',
  '-5m',
  '#',
  '@',
  '~',
  'glpat-',
  TEN_K,
  'é'.repeat(5_000),
];

const HOSTILE_NUMBERS = [0, -1, -0, 1.5, 2147483647, 2147483648, -2147483649, 2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, Number.MIN_VALUE];

/** Bytes that are not UTF-8, percent-encoded. */
const RAW_BYTES = ['%FF', '%FE%FF', '%C3%28', '%E0%80%AF', '%ED%A0%80', '%F8%88%80%80%80', '%C0%AF', 'a%00b', '%%', '%E2%82'].map((p) => new RawPct(p));

const controlString = fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u0008', '\u000b', '\u001f', '\u007f', '\u0085', '\u2028', 'a', ' '), maxLength: 12 });

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 5 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 2 },
  { arbitrary: fc.constantFrom(...RAW_BYTES), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  { arbitrary: controlString, weight: 1 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.constant(new Upload('x.png', 'image/png', 10)), weight: 1 },
);

/** A wrongly shaped value: a scalar, an array (where a scalar belongs), a hash, arrays of hashes, nesting. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileScalar, weight: 6 },
  { arbitrary: fc.array(hostileScalar, { maxLength: 3 }), weight: 2 },
  { arbitrary: fc.dictionary(fc.constantFrom('a', '0', '1', 'key', 'value', '__proto__', ''), hostileScalar, { maxKeys: 3 }), weight: 2 },
  { arbitrary: fc.array(fc.dictionary(fc.constantFrom('key', 'value', 'id', 'name'), hostileScalar, { maxKeys: 2 }), { maxLength: 2 }), weight: 1 },
  { arbitrary: fc.array(fc.array(hostileScalar, { maxLength: 2 }), { maxLength: 2 }), weight: 1 },
  // Long lists (`iids[]`, `labels`, `user_ids`): D1 allows 100 bound parameters per statement.
  { arbitrary: fc.array(fc.oneof(fc.nat(), fc.string({ maxLength: 4 })), { minLength: 101, maxLength: 400 }), weight: 1 },
);

const isoDate = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true });

/** A value of the declared type, often one that names a real record. */
function validValue(schema: Record<string, unknown>, world: () => World): fc.Arbitrary<unknown> {
  const pickWord = fc.nat({ max: 999 }).map((i) => world().words[i % world().words.length]);
  const pickInt = fc.nat({ max: 999 }).map((i) => world().ints[i % world().ints.length]);
  const e = schema.enum as unknown[] | undefined;
  if (e?.length) return fc.constantFrom(...e);
  switch (schema.type) {
    case 'integer':
      return fc.oneof(pickInt, fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }).map(String));
    case 'boolean':
      return fc.constantFrom(true, false, 'true', 'false', '1', '0', 'yes', 'no');
    case 'array':
      return fc.oneof(fc.array(fc.oneof(pickWord, pickInt), { maxLength: 3 }), pickWord.map((w) => `${w},${w}`));
    case 'object':
      return fc.dictionary(fc.constantFrom('key', 'labels', 'milestone_title', 'author_id', 'state'), fc.oneof(pickWord, pickInt), { maxKeys: 2 });
    default:
      if (schema.format === 'binary') return fc.constantFrom(new Upload('graph.png', 'image/png', 68), new Upload('doc.txt', 'text/plain', 5));
      if (schema.format === 'date-time') return isoDate.map((d) => d.toISOString());
      if (schema.format === 'date') return isoDate.map((d) => d.toISOString().slice(0, 10));
      return fc.oneof(pickWord, fc.string({ maxLength: 20 }), fc.constantFrom('1h30m', '3d', '#ff0000', 'ssh-ed25519 AAAA x', 'api', 'opened', 'closed'));
  }
}

/** Names nothing declares, names that look like Ruby internals, Rack bracket edge cases. */
const unknownName = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'sudo', 'page', 'per_page', 'x[y][z]', 'a[][b]', 'a[', 'a]', '[]', '[a]', 'a[]b', '', ' ', 'a b', 'ä'),
  fc.string({ minLength: 1, maxLength: 12 }),
);

const MALFORMED_BODIES: RawBody[] = [
  { contentType: 'application/json', body: '{' },
  { contentType: 'application/json', body: '{"title": "x",}' },
  { contentType: 'application/json', body: '[1, 2]' },
  { contentType: 'application/json', body: '"a string"' },
  { contentType: 'application/json', body: 'null' },
  { contentType: 'application/json', body: '12' },
  { contentType: 'application/json', body: '{"a": {"a": {"a": {"a": [[[[{}]]]]}}}}' },
  { contentType: 'application/json', body: '{"id": 1, "id": "x", "title": null}' },
  { contentType: 'application/json', body: '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}' },
  { contentType: 'application/json', body: [0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d] },
  { contentType: 'application/json; charset=utf-16', body: [0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00] },
  { contentType: 'application/json', body: '\u0000' },
  { contentType: 'application/x-www-form-urlencoded', body: '%%%&=&a[=1&a]]=2&b[][c]=1&b[]=2' },
  { contentType: 'application/x-www-form-urlencoded', body: 'title=%FF%FE&description=%C3%28' },
  { contentType: 'application/x-www-form-urlencoded', body: [0x74, 0x69, 0x74, 0x6c, 0x65, 0x3d, 0xff, 0xc3, 0x28] },
  { contentType: 'application/x-www-form-urlencoded', body: 'a[b]=1&a[]=2&a=3&a[b][c]=4' },
  { contentType: 'multipart/form-data; boundary=xyz', body: '--xyz\r\ngarbage' },
  { contentType: 'multipart/form-data', body: 'no boundary at all' },
  { contentType: 'multipart/form-data; boundary=b', body: '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\n\u0000\u00ff\r\n--b--\r\n' },
  { contentType: 'text/plain', body: 'title=plain' },
  { contentType: 'application/xml', body: '<title>x</title>' },
  { contentType: null, body: '{"title": "no type"}' },
  { contentType: 'application/json', body: '' },
];

/** A path segment: a real record of the kind the parameter names, or a hostile one. */
function segment(route: RouteRecord, param: string, world: () => World, hostileToo: boolean): fc.Arbitrary<string> {
  const kind = segmentKind(route.path, param, route.method);
  const real = fc.nat({ max: 999 }).map((i) => {
    const pool = world().segments[kind];
    return pool[i % pool.length];
  });
  const hostile = fc.oneof(
    { arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS), weight: 4 },
    // Outside 1..2^31-1, so no hostile value lands on a real id (root is 1).
    { arbitrary: fc.oneof(fc.integer({ max: 0 }), fc.nat().map((n) => 2 ** 31 + n), fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n })).map(String), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(encodeSegment), weight: 1 },
  );
  return hostileToo ? fc.oneof({ arbitrary: real, weight: 3 }, { arbitrary: hostile, weight: 2 }) : real;
}

/** encodeURIComponent that survives lone surrogates (sent as U+FFFD, as a browser would). */
export function encodeSegment(s: string): string {
  return encodeURIComponent(wellFormed(s));
}

/** String#toWellFormed (ES2024): lone surrogates become U+FFFD. */
export const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const bodyMethod = (m: string) => m === 'POST' || m === 'PUT' || m === 'PATCH';

/**
 * About two requests in five are well formed (declared parameters of the declared types, real
 * records in the path), so that the fuzz reaches what lies behind validation; the rest are mutated.
 */
export function requestArb(route: RouteRecord, world: () => World): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ arbitrary: build(route, world, false), weight: 2 }, { arbitrary: build(route, world, true), weight: 3 });
}

function build(route: RouteRecord, world: () => World, hostile: boolean): fc.Arbitrary<FuzzRequest> {
  const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  const shape = route.params?.shape ?? {};
  const declared = Object.entries(shape).filter(([name]) => !pathParams.includes(name));
  const optionals = declared.filter(([, schema]) => !describeParam(schema as never).required).length;
  const perParam = declared.map(([name, schema]) => {
    const doc = describeParam(schema as never);
    const hint = hintFor(route, name, world);
    const valid = hint ? fc.oneof({ arbitrary: hint, weight: 3 }, { arbitrary: validValue(doc.schema, world), weight: 1 }) : validValue(doc.schema, world);
    const value = (hostile ? fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: hostileValue, weight: 2 }) : valid).map((v) => [name, v] as [string, unknown]);
    // Required parameters are usually sent; of the optional ones about two per request, so that
    // lists with forty filters still see requests whose filters agree with each other.
    const absent = doc.required ? 1 : Math.max(optionals - 2, 1);
    const present = doc.required ? 7 : 2;
    return fc.oneof({ arbitrary: fc.constant(undefined), weight: absent }, { arbitrary: value, weight: present });
  });
  for (const [name, arb] of undeclaredParams(route)) {
    const value = (hostile ? fc.oneof({ arbitrary: arb, weight: 3 }, { arbitrary: hostileValue, weight: 2 }) : arb).map((v) => [name, v] as [string, unknown]);
    perParam.push(fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: value, weight: 4 }));
  }
  const known = fc.tuple(...perParam).map((xs) => xs.filter((x): x is [string, unknown] => x !== undefined));
  const unknown = hostile ? fc.array(fc.tuple(unknownName, hostileValue), { maxLength: 2 }) : fc.constant([]);
  const dupe = hostile ? fc.option(fc.tuple(fc.nat(), hostileValue), { freq: 4, nil: undefined }) : fc.constant(undefined);
  const params = fc.tuple(known, unknown, dupe).map(([k, u, dup]) => {
    const out = [...k, ...u];
    // A declared parameter sent twice (`a=1&a=2`, or two keys in one JSON text).
    if (dup && k.length) out.push([k[dup[0] % k.length][0], dup[1]]);
    return out;
  });
  const encoding: fc.Arbitrary<Encoding> = bodyMethod(route.method)
    ? fc.constantFrom('json', 'json', 'form', 'multipart', 'query')
    : route.method === 'DELETE'
      ? fc.constantFrom('query', 'query', 'query', 'json', 'form')
      : fc.constant('query');
  const raw = hostile && (bodyMethod(route.method) || route.method === 'DELETE') ? fc.option(fc.constantFrom(...MALFORMED_BODIES), { freq: 6, nil: null }) : fc.constant(null);
  const path = fc.record(Object.fromEntries(pathParams.map((p) => [p, segment(route, p, world, hostile)])));
  const auth = hostile ? fc.constantFrom('header', 'header', 'header', 'bearer', 'query', 'garbage') : fc.constantFrom('header', 'header', 'bearer', 'query');
  const sudo = hostile ? fc.option(fc.oneof(fc.nat({ max: 999 }).map((i) => world().words[i % 3]), fc.constantFrom('0', '-1', '%00', 'nobody', '99999999999999999999')), { freq: 12, nil: null }) : fc.constant(null);
  const variant = hostile ? fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'json-suffix', route.method === 'GET' ? 'head' : 'plain') : fc.constant('plain');
  return fc.record({ path, params, encoding, raw, auth, sudo, variant }) as fc.Arbitrary<FuzzRequest>;
}

/** Rack's nested keys for a value: `a[]=1`, `a[k]=v`, `a[][k]=v`. */
export function rackPairs(key: string, value: unknown): [string, unknown][] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [[`${key}[]`, '']];
    return value.flatMap((v) => (v !== null && typeof v === 'object' && !(v instanceof RawPct) && !(v instanceof Upload) ? rackPairs(`${key}[]`, v) : [[`${key}[]`, v] as [string, unknown]]));
  }
  if (value !== null && typeof value === 'object' && !(value instanceof RawPct) && !(value instanceof Upload)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [[key, '']];
    return entries.flatMap(([k, v]) => rackPairs(`${key}[${k}]`, v));
  }
  return [[key, value]];
}

const pct = (v: unknown): string => (v instanceof RawPct ? v.pct : v instanceof Upload ? encodeSegment(v.name) : v === null ? '' : encodeSegment(String(v)));

/** `application/x-www-form-urlencoded` text (also the query string). */
export function formText(params: [string, unknown][]): string {
  return params.flatMap(([k, v]) => rackPairs(k, v)).map(([k, v]) => (v === null ? encodeSegment(k) : `${encodeSegment(k)}=${pct(v)}`)).join('&');
}

/** JSON text with a key possibly repeated (the last one wins in JSON.parse, as in Ruby's parser). */
function jsonText(params: [string, unknown][]): string {
  const toJson = (v: unknown): unknown => (v instanceof RawPct ? decodeLatin1(v.pct) : v instanceof Upload ? v.name : Array.isArray(v) ? v.map(toJson) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)])) : v);
  // Numbers JSON cannot write (1e309 never arrives as a number; -0 becomes 0) go through JSON.stringify as they are.
  return `{${params.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(toJson(v)) ?? 'null'}`).join(',')}}`;
}

const decodeLatin1 = (p: string) => p.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

function multipart(params: [string, unknown][]): FormData {
  const form = new FormData();
  for (const [k, v] of params.flatMap(([k, v]) => rackPairs(k, v))) {
    if (v instanceof Upload) form.append(k, new File([new Uint8Array(v.size)], v.name, { type: v.type }));
    else form.append(k, v instanceof RawPct ? decodeLatin1(v.pct) : v === null ? '' : wellFormed(String(v)));
  }
  return form;
}

export interface Built {
  url: string;
  init: RequestInit;
}

/** The fetch request for a fuzzed request, sent by `caller` with `token` (null for anonymous). */
export function toRequest(route: RouteRecord, req: FuzzRequest, token: string | null): Built {
  let path = route.path;
  for (const [name, seg] of Object.entries(req.path)) path = path.replace(`:${name}`, seg);
  if (req.variant === 'json-suffix') path += '.json';
  const headers: Record<string, string> = {};
  const query: [string, unknown][] = [];
  if (token && req.auth === 'header') headers['PRIVATE-TOKEN'] = token;
  if (token && req.auth === 'bearer') headers.Authorization = `Bearer ${token}`;
  if (token && req.auth === 'query') query.push(['private_token', token]);
  if (!token && req.auth === 'garbage') headers['PRIVATE-TOKEN'] = 'glpat-not-a-real-token-000000';
  if (req.sudo && token) headers.Sudo = req.sudo;
  let body: BodyInit | undefined;
  if (req.raw) {
    query.push(...req.params);
    if (req.raw.contentType) headers['Content-Type'] = req.raw.contentType;
    body = typeof req.raw.body === 'string' ? req.raw.body : new Uint8Array(req.raw.body);
  } else if (req.encoding === 'query' || !(route.method !== 'GET')) {
    query.push(...req.params);
  } else if (req.encoding === 'json') {
    headers['Content-Type'] = 'application/json';
    body = jsonText(req.params);
  } else if (req.encoding === 'form') {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = formText(req.params);
  } else {
    body = multipart(req.params);
  }
  const qs = formText(query);
  const method = req.variant === 'head' ? 'HEAD' : route.method;
  return { url: `http://localhost${path}${qs ? `?${qs}` : ''}`, init: { method, headers, body } };
}
