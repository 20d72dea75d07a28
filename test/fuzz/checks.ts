/**
 * What every fuzzed response must satisfy, checked independently of the app's own zod check: no
 * 5xx, a status the route declares, a body valid against the operation's schema in the generated
 * OpenAPI document (ajv, JSON Schema 2020-12), GitLab's error shapes for every 4xx, a JSON content
 * type wherever a JSON body is declared, and an answer within the time budget.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isRaw } from '../../src/platform/response-schemas';
import type { RouteRecord } from '../../src/platform/router';
import type { Sent } from './app';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as typeof addFormatsModule;

export const SLOW_MS = 2_000;

type Json = Record<string, any>;

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** Against the route's declared responses, for the few routes the OpenAPI document leaves out. */
function checkDeclared(route: RouteRecord, sent: Sent): string[] {
  const spec = route.responses[sent.status];
  if (spec === undefined) return [`status ${sent.status} is not declared by the route`];
  const type = sent.headers.get('content-type') ?? '';
  if (spec === null) return sent.text === '' ? [] : ['a body where none is declared'];
  if (isRaw(spec)) return type.startsWith(spec.contentType) ? [] : [`Content-Type ${type} is not the declared ${spec.contentType}`];
  if (!type.startsWith('application/json')) return [`Content-Type ${type} where JSON is declared`];
  const parsed = spec.safeParse(JSON.parse(sent.text));
  return parsed.success ? [] : [`body does not match its schema: ${parsed.error.message.slice(0, 300)}`];
}

export function responseChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  const cache = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let v = cache.get(ref);
    if (!v) {
      v = ajv.compile({ $ref: `openapi#/${ref}` });
      cache.set(ref, v);
    }
    return v;
  };
  const errorRef = pointer('components', 'responses', 'BadRequest', 'content', 'application/json', 'schema');

  function validateJson(ref: string, sent: Sent): string | null {
    const type = sent.headers.get('content-type') ?? '';
    if (!type.startsWith('application/json')) return `Content-Type ${type || '(none)'} where JSON is declared`;
    let body: unknown;
    try {
      body = JSON.parse(sent.text);
    } catch {
      return 'the body is not JSON';
    }
    const v = validator(ref);
    if (v(body)) return null;
    return `body does not match its schema: ${ajv.errorsText(v.errors?.slice(0, 3), { dataVar: 'body' })}`;
  }

  /** Problems with one response to a request on `route`; empty when it is fine. */
  return function check(route: RouteRecord, sent: Sent, method: string = route.method): string[] {
    const problems: string[] = [];
    if (sent.status >= 500) problems.push(`status ${sent.status}`);
    if (sent.ms > SLOW_MS) problems.push(`took ${Math.round(sent.ms)} ms`);
    if (sent.violation) problems.push(`the app's own response check: ${sent.violation}`);
    if (method === 'HEAD' && sent.text !== '') problems.push('a body in the answer to HEAD');
    if (sent.status >= 500 || sent.status === 304 || method === 'HEAD') return problems;
    const type = sent.headers.get('content-type') ?? '';
    if (sent.status >= 400) {
      // Plain text only where GitLab's Rack layer answers before the API: throttles (429), an
      // over-long request line (414) and HandleNullBytes (400), as platform/response-check.ts allows.
      if ([400, 414, 429].includes(sent.status) && type.startsWith('text/plain')) return problems;
      const p = validateJson(errorRef, sent);
      if (p) problems.push(`error body: ${p}`);
      return problems;
    }
    const op = doc.paths?.[openApiPath(route.path)]?.[route.method.toLowerCase()];
    // The document and its reference page (/-/…) are not in the document: their route's own declaration is the reference.
    if (!op) return [...problems, ...checkDeclared(route, sent)];
    const declared = op.responses?.[String(sent.status)];
    if (!declared) {
      problems.push(`status ${sent.status} is not declared in the OpenAPI document`);
      return problems;
    }
    const content = declared.content as Json | undefined;
    if (!content) {
      if (sent.text !== '') problems.push(`status ${sent.status} is declared without a body, but one was sent`);
      return problems;
    }
    if (content['application/json']) {
      const p = validateJson(pointer('paths', openApiPath(route.path), route.method.toLowerCase(), 'responses', String(sent.status), 'content', 'application/json', 'schema'), sent);
      if (p) problems.push(p);
      return problems;
    }
    const declaredType = Object.keys(content)[0];
    if (!type.startsWith(declaredType.replace(/\*$/, ''))) problems.push(`Content-Type ${type || '(none)'} is not the declared ${declaredType}`);
    return problems;
  };
}
