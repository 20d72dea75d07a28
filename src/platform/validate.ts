/**
 * Grape-style parameter validation on top of zod. Each `g.*` type coerces the way Grape does
 * (strings from query and form bodies, native JSON values) and reports Grape's wording:
 * `is missing`, `is invalid`, `does not have a valid value`. Cross-parameter rules
 * (`mutually_exclusive`, `at_least_one_of`, ...) are declared next to the schema.
 *
 * The same zod schemas feed the OpenAPI document (lib/openapi.ts), so what we validate is what we publish.
 */
import { z } from 'zod';
import { grapeError } from './errors';
import type { Params } from './params';

const INVALID = 'is invalid';
const NOT_VALID_VALUE = 'does not have a valid value';

// Dry-types Params coercion, as Grape uses it for Boolean params (GitLab reference B §0.1).
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function toBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : undefined;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (TRUE_WORDS.has(s)) return true;
    if (FALSE_WORDS.has(s)) return false;
  }
  return undefined;
}

function toInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) {
    const n = Number(v.trim());
    if (Number.isSafeInteger(n)) return n;
  }
  return undefined;
}

/** `YYYY-MM-DD` names a real day (Ruby's Date.parse raises on 2024-02-30; JS rolls it over to March). */
function realDay(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** Ruby's String#to_i: leading blanks, a sign and digits; anything else stops the number (`abc` is 0). */
function rubyToI(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  const n = m ? Number(m[1]) : 0;
  // A bignum names no record (Rails turns an out-of-range id into an empty match).
  return Number.isSafeInteger(n) ? n : 0;
}

/** API::Validations::Types::CommaSeparatedToArray: a String is split, an Array's items split after `to_s`, anything else is `[]`. */
function commaSeparated(v: unknown): unknown[] {
  const split = (s: string) => s.split(',').map((x) => x.trim());
  if (typeof v === 'string') return split(v);
  if (!Array.isArray(v)) return [];
  return v.flatMap((x) => (typeof x === 'string' ? split(x) : typeof x === 'number' || typeof x === 'boolean' ? split(String(x)) : x == null ? [] : [x]));
}

/**
 * Items a list parameter may carry unless its declaration says otherwise: GitLab bounds some lists
 * (200 assignees or reviewers, `limit:` validators) and leaves most unbounded, where one request
 * could name thousands of labels. A list over its cap is refused with the `limit:` validator's
 * words (lib/api/validations/validators/limit.rb): `labels must contain at most 100 items`.
 */
export const LIST_MAX = 100;
/**
 * For lists that name existing things rather than create them: the label filters of the list
 * endpoints, approval rule members, protected branch access entries. Long lists there are
 * legitimate, are read in chunks, and still stop well short of an unbounded request.
 */
export const LONG_LIST_MAX = 1000;
/** Gitlab::Search::Params::SEARCH_CHAR_LIMIT. */
export const SEARCH_CHAR_LIMIT = 4096;

export interface ListCap {
  /** Most items accepted (default LIST_MAX). */
  max?: number;
}

function capped<T extends z.ZodType<unknown[] | undefined>>(schema: T, max: number) {
  return schema.superRefine((list, ctx) => {
    if (Array.isArray(list) && list.length > max) ctx.addIssue({ code: 'custom', message: `must contain at most ${max} items`, input: list });
  });
}

/** Marker so the error mapper can tell a coercion failure from a missing value. */
const coerce = <T>(name: string, fn: (v: unknown) => T | undefined, message = INVALID) =>
  z.unknown().transform((v, ctx): T => {
    const out = fn(v);
    if (out === undefined) {
      ctx.addIssue({ code: 'custom', message, input: v });
      return z.NEVER;
    }
    return out;
  }).meta({ grapeType: name });


export const g = {
  string: () => z.unknown().transform((v, ctx): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    ctx.addIssue({ code: 'custom', message: INVALID, input: v });
    return z.NEVER;
  }).meta({ grapeType: 'String', jsonType: 'string' }),
  int: () => coerce('Integer', toInt).meta({ grapeType: 'Integer', jsonType: 'integer' }),
  /**
   * An Integer bound for a PostgreSQL `integer` column (GitLab's `issues.iid`): GitLab answers 500
   * above it; we answer `is invalid` so a stored value never nears the end of JS's safe range.
   */
  int32: () =>
    coerce('Integer', (v) => {
      const n = toInt(v);
      return n !== undefined && n >= -2147483648 && n <= 2147483647 ? n : undefined;
    }).meta({ grapeType: 'Integer', jsonType: 'integer' }),
  bool: () => coerce('Boolean', toBool).meta({ grapeType: 'Boolean', jsonType: 'boolean' }),
  /** A value out of `values`: `<param> does not have a valid value`. */
  enum: <const V extends readonly string[]>(values: V) =>
    z.unknown().transform((v, ctx): V[number] => {
      if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as V[number];
      ctx.addIssue({ code: 'custom', message: NOT_VALID_VALUE, input: v });
      return z.NEVER;
    }).meta({ grapeType: 'String', jsonType: 'string', enum: [...values] }),
  /** Integer restricted to a set (`values: [10, 20]`). */
  intEnum: (values: readonly number[]) =>
    z.unknown().transform((v, ctx): number => {
      const n = toInt(v);
      if (n === undefined) {
        ctx.addIssue({ code: 'custom', message: INVALID, input: v });
        return z.NEVER;
      }
      if (!values.includes(n)) {
        ctx.addIssue({ code: 'custom', message: NOT_VALID_VALUE, input: v });
        return z.NEVER;
      }
      return n;
    }).meta({ grapeType: 'Integer', jsonType: 'integer', enum: [...values] }),
  /** ISO 8601 datetime → epoch milliseconds. `+` must arrive as `%2B` (spec Errors 6). */
  datetime: () => coerce('DateTime', (v) => {
    if (typeof v !== 'string') return undefined;
    if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?$/i.test(v.trim())) return undefined;
    const ms = Date.parse(v.trim().replace(' ', 'T').replace(/UTC$/i, 'Z'));
    return Number.isNaN(ms) || !realDay(v.trim()) ? undefined : ms;
  }).meta({ grapeType: 'DateTime', jsonType: 'string', format: 'date-time' }),
  /** `YYYY-MM-DD`. */
  date: () => coerce('Date', (v) => {
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v.trim())) return undefined;
    return Number.isNaN(Date.parse(v.trim())) || !realDay(v.trim()) ? undefined : v.trim();
  }).meta({ grapeType: 'Date', jsonType: 'string', format: 'date' }),
  /** `Array[T]`: repeated `x[]=` values, a JSON array, or a single scalar (Grape wraps it). At most `max` items. */
  array: <T extends z.ZodType>(item: T, { max = LIST_MAX }: ListCap = {}) =>
    capped(z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item)), max).meta({ grapeType: 'Array', jsonType: 'array' }),
  /** `CommaSeparatedToArray`: `a,b,c` or repeated `x[]=a`. At most `max` items. */
  csv: ({ max = LIST_MAX }: ListCap = {}) =>
    capped(z.preprocess((v) => (v === undefined ? undefined : commaSeparated(v).filter((s) => s !== '')), z.array(z.string({ error: INVALID }))), max).meta({
      grapeType: 'Array[String]',
      jsonType: 'array',
    }),
  /** `Array[Integer]` with CommaSeparatedToIntegerArray: `1,2`, `[1, "2"]`; items go through Ruby's `to_i` (`abc` is 0). At most `max` items. */
  intCsv: ({ max = LIST_MAX }: ListCap = {}) =>
    capped(
      z.preprocess(
        (v) => (v === undefined ? undefined : commaSeparated(v).map((x) => (typeof x === 'string' ? rubyToI(x) : x))),
        z.array(z.number({ error: INVALID }).int({ error: INVALID })),
      ),
      max,
    ).meta({ grapeType: 'Array[Integer]', jsonType: 'array' }),
  /**
   * A `search` term. Gitlab::Search::Params caps a query at SEARCH_CHAR_LIMIT characters; answered
   * with GitLab's `limit:` validator words (lib/api/validations/validators/limit.rb), so a long term
   * never reaches a LIKE pattern.
   */
  search: () =>
    g.string().superRefine((s, ctx) => {
      if ([...s].length > SEARCH_CHAR_LIMIT) ctx.addIssue({ code: 'custom', message: `must be less than ${SEARCH_CHAR_LIMIT} characters`, input: s });
    }).meta({ grapeType: 'String', jsonType: 'string' }),
  /** `Hash`: `h[k]=v` or a JSON object. */
  hash: () => z.record(z.string(), z.unknown(), { error: INVALID }).meta({ grapeType: 'Hash', jsonType: 'object' }),
  /** An uploaded file (multipart). */
  file: () => z.instanceof(Blob, { message: INVALID }).meta({ grapeType: 'File', jsonType: 'string', format: 'binary' }),
};

export type Rule =
  | { mutuallyExclusive: string[] }
  | { atLeastOneOf: string[] }
  | { exactlyOneOf: string[] }
  | { allOrNoneOf: string[] };

/** A parameter set: a zod object plus Grape's cross-parameter rules. */
export interface ParamSpec<S extends z.ZodRawShape = z.ZodRawShape> {
  shape: S;
  rules?: Rule[];
}

export const params = <S extends z.ZodRawShape>(shape: S, rules: Rule[] = []): ParamSpec<S> => ({ shape, rules });

const present = (raw: Params, key: string) => raw[key] !== undefined && raw[key] !== null;

function checkRules(raw: Params, rules: Rule[]): string[] {
  const errors: string[] = [];
  for (const rule of rules) {
    if ('mutuallyExclusive' in rule) {
      const given = rule.mutuallyExclusive.filter((k) => present(raw, k));
      if (given.length > 1) errors.push(`${given.join(', ')} are mutually exclusive`);
    } else if ('atLeastOneOf' in rule) {
      if (!rule.atLeastOneOf.some((k) => present(raw, k))) errors.push(`${rule.atLeastOneOf.join(', ')} are missing, at least one parameter must be provided`);
    } else if ('exactlyOneOf' in rule) {
      const given = rule.exactlyOneOf.filter((k) => present(raw, k));
      if (given.length === 0) errors.push(`${rule.exactlyOneOf.join(', ')} are missing, exactly one parameter must be provided`);
      else if (given.length > 1) errors.push(`${given.join(', ')} are mutually exclusive`);
    } else if ('allOrNoneOf' in rule) {
      const given = rule.allOrNoneOf.filter((k) => present(raw, k));
      if (given.length > 0 && given.length < rule.allOrNoneOf.length) errors.push(`${rule.allOrNoneOf.join(', ')} provide all or none of parameters`);
    }
  }
  return errors;
}

type Unwrappable = { def?: { type?: string; innerType?: Unwrappable; in?: Unwrappable }; meta?: () => Record<string, unknown> | undefined };

/** `optional`/`default` wrapper, and the JSON type of the `g.*` type inside. */
function schemaInfo(schema: Unwrappable): { optional: boolean; jsonType?: unknown } {
  let optional = false;
  let node: Unwrappable | undefined = schema;
  for (let i = 0; node && i < 10; i++) {
    const meta = node.meta?.();
    if (meta?.jsonType) return { optional, jsonType: meta.jsonType };
    const t: string | undefined = node.def?.type;
    if (t === 'optional' || t === 'default' || t === 'nullable') optional = true;
    node = t === 'pipe' ? node.def?.in : node.def?.innerType;
  }
  return { optional };
}

/** Grape coerces an empty string (or null) for an optional non-string parameter to nil: the parameter counts as absent. */
function dropBlankOptionals(shape: z.ZodRawShape, raw: Params): Params {
  let out: Params | undefined;
  for (const [key, schema] of Object.entries(shape)) {
    const v = raw[key];
    if (v !== '' && v !== null) continue;
    const info = schemaInfo(schema as unknown as Unwrappable);
    if (info.optional && (info.jsonType !== 'string' || v === null)) {
      out ??= { ...raw };
      delete out[key];
    }
  }
  return out ?? raw;
}

/** A required `g.enum` / `g.intEnum` (an optional one is wrapped, and its wrapper carries no metadata). */
const hasValues = (schema: unknown) => Array.isArray((schema as Unwrappable | undefined)?.meta?.()?.enum);

/** Grape names nested params `not[labels]`, array items `ids[0]`. */
function paramName(path: PropertyKey[]): string {
  return path.map((p, i) => (i === 0 ? String(p) : `[${String(p)}]`)).join('');
}

function getAt(raw: unknown, path: PropertyKey[]): unknown {
  let node: any = raw;
  for (const p of path) {
    if (node == null || typeof node !== 'object') return undefined;
    node = node[p as any];
  }
  return node;
}

/**
 * Validates merged request params against a spec; throws 400 `{"error": "..."}` with Grape's
 * messages joined by `", "`. Unknown params are kept out of the result.
 */
/**
 * One zod object per route's parameter shape, built on its first request: building it (and zod's
 * compiled fast path) anew for every request cost about 0.2 ms of CPU (issue 13's profile).
 */
const objects = new WeakMap<z.ZodRawShape, z.ZodObject>();
function objectOf<S extends z.ZodRawShape>(shape: S): z.ZodObject<S> {
  let o = objects.get(shape);
  if (!o) objects.set(shape, (o = z.object(shape)));
  return o as z.ZodObject<S>;
}

export function validateParams<S extends z.ZodRawShape>(spec: ParamSpec<S>, raw: Params): z.output<z.ZodObject<S>> {
  const input = dropBlankOptionals(spec.shape, raw);
  const result = objectOf(spec.shape).safeParse(input);
  const errors: string[] = [];
  if (!result.success) {
    for (const issue of result.error.issues) {
      const name = paramName(issue.path);
      const value = getAt(raw, issue.path);
      let message: string;
      if (value === undefined || (issue.code === 'invalid_type' && value === null)) message = 'is missing';
      else if (issue.code === 'custom') message = issue.message;
      else if (issue.code === 'invalid_value') message = NOT_VALID_VALUE;
      else if (issue.code === 'too_small' || issue.code === 'too_big') message = NOT_VALID_VALUE;
      else message = INVALID;
      const line = `${name} ${message}`;
      if (!errors.includes(line)) errors.push(line);
      // Grape's values validator runs on a missing required parameter too (the nil is not one of the values).
      if (message === 'is missing' && issue.path.length === 1 && hasValues(spec.shape[String(issue.path[0])])) errors.push(`${name} ${NOT_VALID_VALUE}`);
    }
  }
  errors.push(...checkRules(raw, spec.rules ?? []));
  if (errors.length) throw grapeError(errors.join(', '));
  return (result as { data: z.output<z.ZodObject<S>> }).data;
}

/** Grape's `requires :x` for strings: an empty string is still "given" but some GitLab params use `allow_blank: false`. */
export const nonBlank = () => g.string().refine((s) => s.trim() !== '', { message: 'is empty' });
