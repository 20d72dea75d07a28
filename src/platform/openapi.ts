/**
 * The OpenAPI 3.1 document, generated from the route table: the zod parameter specs that validate
 * requests and the response schemas that presenters are typed by (platform/response-schemas.ts)
 * describe the operations, so the document cannot drift from what the server accepts and answers.
 * Response schemas become JSON Schema through zod's own generator (`z.toJSONSchema`); named
 * entities (`.meta({ id })`) become components. Tags are GitLab's resources, grouped by domain.
 */
import { z } from 'zod';
import type { RouteAuth } from './guards';
import { isRaw, MessageError, OAuthError, ParameterError, type ResponseSpec } from './response-schemas';
import { exampleOf } from './openapi-examples';
import type { RouteRecord } from './router';

interface ParamDoc {
  required: boolean;
  schema: Record<string, unknown>;
}

type AnySchema = z.ZodType & { def?: Record<string, unknown>; meta?: () => Record<string, unknown> | undefined };

/** Walks optional/default/pipe wrappers down to the `g.*` type carrying our metadata. */
export function describeParam(schema: AnySchema): ParamDoc {
  let required = true;
  let defaultValue: unknown;
  let node: AnySchema | undefined = schema;
  for (let depth = 0; node && depth < 10; depth++) {
    const meta = node.meta?.();
    if (meta?.jsonType) {
      const out: Record<string, unknown> = { type: meta.jsonType };
      if (meta.format) out.format = meta.format;
      if (meta.enum) out.enum = meta.enum;
      if (meta.jsonType === 'array') out.items = { type: 'string' };
      if (meta.grapeType) out['x-grape-type'] = meta.grapeType;
      if (defaultValue !== undefined) out.default = defaultValue;
      return { required, schema: out };
    }
    const def = node.def as { type?: string; innerType?: AnySchema; in?: AnySchema; out?: AnySchema; defaultValue?: unknown } | undefined;
    if (!def) break;
    if (def.type === 'optional' || def.type === 'nullable') {
      required = false;
      node = def.innerType;
    } else if (def.type === 'default') {
      required = false;
      defaultValue = typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
      node = def.innerType;
    } else if (def.type === 'pipe') {
      node = (def.out?.meta?.()?.jsonType ? def.out : def.in) as AnySchema;
    } else {
      break;
    }
  }
  return { required, schema: { type: 'string' } };
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** A domain of src/ (src/routes.ts): the OpenAPI document groups the tags of its routes under it. */
export interface DomainDoc {
  name: string;
  description: string;
}

type Json = Record<string, unknown>;

const operationId = (method: string, path: string) =>
  `${method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ? ch.toUpperCase() : ''))}`;

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 302: 'Found', 304: 'Not Modified' };

/** Error responses every operation may give (GitLab's bodies, platform/errors.ts). */
const ERROR_RESPONSES: Record<string, { name: string; description: string; example: Json }> = {
  '400': { name: 'BadRequest', description: 'Invalid parameters (`{"error": "..."}`) or a validation failure (`{"message": {...}}`)', example: { error: 'title is missing' } },
  '401': { name: 'Unauthorized', description: 'No or invalid credentials', example: { message: '401 Unauthorized' } },
  '403': { name: 'Forbidden', description: 'Not allowed, or a token without the needed scope (OAuth shape)', example: { message: '403 Forbidden' } },
  '404': { name: 'NotFound', description: 'Missing, or hidden from the caller', example: { message: '404 Project Not Found' } },
};

/** Security schemes: the ways a caller proves who they are (auth/authenticate.ts). */
const SECURITY_SCHEMES = {
  privateToken: {
    type: 'apiKey',
    in: 'header',
    name: 'PRIVATE-TOKEN',
    description: 'A personal access token (`glpat-...`), an impersonation token or an OAuth access token',
  },
  privateTokenQuery: { type: 'apiKey', in: 'query', name: 'private_token', description: 'The same tokens as a query parameter' },
  bearer: { type: 'http', scheme: 'bearer', description: 'An OAuth 2.0 access token (or a personal access token) as `Authorization: Bearer`' },
  oauth2: {
    type: 'oauth2',
    description: 'OAuth 2.0 password and refresh-token grants at `/oauth/token`',
    flows: { password: { tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: { api: 'Full API access', read_api: 'Read-only API access', read_user: 'Read the user', sudo: 'Act as another user (administrators)', admin_mode: 'Administrator actions when admin mode is on' } } },
  },
  session: { type: 'apiKey', in: 'cookie', name: '_service_session', description: 'The web sign-in session of `POST /users/sign_in` (writes also need its CSRF token)' },
  jobToken: { type: 'apiKey', in: 'header', name: 'JOB-TOKEN', description: 'A CI job token, on the routes that accept one' },
  basicPat: { type: 'http', scheme: 'basic', description: 'A personal access token as the HTTP Basic password, on the routes that accept it' },
};

const TOKENS = [{ privateToken: [] }, { privateTokenQuery: [] }, { bearer: [] }, { oauth2: [] }, { session: [] }];

/** Who may call: anonymous callers too unless the route signs in (GitLab's `authenticate!`, `authenticate_non_get!`). */
function security(auth: RouteAuth, method: string): Json[] {
  if (auth.noAuth) return [];
  const out: Json[] = [...TOKENS];
  if (auth.jobToken) out.push({ jobToken: [] });
  if (auth.basicAuthPat) out.push({ basicPat: [] });
  const signedIn = auth.admin || auth.signedIn === true || (auth.signedIn === 'nonGet' && method !== 'GET');
  if (!signedIn) out.push({});
  return out;
}

/** Every schema a response schema reaches, by walking zod's definition tree. */
function* reachable(schema: z.ZodType, seen = new Set<z.ZodType>()): Generator<z.ZodType> {
  if (seen.has(schema)) return;
  seen.add(schema);
  yield schema;
  const def = (schema as unknown as { _zod: { def: Json } })._zod.def;
  const children: unknown[] = [];
  for (const key of ['innerType', 'element', 'in', 'out', 'valueType', 'keyType', 'left', 'right', 'rest']) if (def[key]) children.push(def[key]);
  if (def.type === 'object') children.push(...Object.values((schema as z.ZodObject).shape));
  if (Array.isArray(def.options)) children.push(...def.options);
  if (Array.isArray(def.items)) children.push(...def.items);
  if (def.type === 'lazy') children.push((def.getter as () => unknown)());
  for (const child of children) if (child && typeof child === 'object' && '_zod' in child) yield* reachable(child as z.ZodType, seen);
}

const SAFE_MAX = Number.MAX_SAFE_INTEGER;

/** JSON Schema for OpenAPI: zod's output without the bounds every integer and timestamp carries. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema' || k === '$id') continue;
    if ((k === 'minimum' && v === -SAFE_MAX) || (k === 'maximum' && v === SAFE_MAX)) continue;
    if (k === 'pattern' && ((node as Json).format === 'date-time' || (node as Json).format === 'date')) continue;
    out[k] = tidy(v);
  }
  return out;
}

export function openApiDocument(routes: RouteRecord[], serverUrl: string, domains: DomainDoc[] = []) {
  const paths: Record<string, Record<string, unknown>> = {};
  // Every response schema and every named entity it reaches go in one registry, converted at once:
  // named entities become components, each operation's own schema is inlined into it afterwards.
  const registry = z.registry<{ id: string }>();
  const named = new Set<string>();
  const inline: { op: Json; status: string; id: string }[] = [];
  const own = new Map<z.ZodType, string>();
  const addNamed = (schema: z.ZodType) => {
    for (const s of reachable(schema)) {
      const id = z.globalRegistry.get(s)?.id;
      if (typeof id === 'string' && !named.has(id)) {
        named.add(id);
        registry.add(s, { id });
      }
    }
  };
  for (const e of [MessageError, ParameterError, OAuthError]) addNamed(e);

  for (const r of routes) {
    const path = toOpenApiPath(r.path);
    const pathParams = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const shape = (r.params?.shape ?? {}) as Record<string, AnySchema>;
    const parameters: Record<string, unknown>[] = pathParams.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: shape[name] ? describeParam(shape[name]).schema : { type: 'string' },
    }));
    const bodyProps: Record<string, unknown> = {};
    const bodyRequired: string[] = [];
    for (const [name, schema] of Object.entries(shape)) {
      if (pathParams.includes(name)) continue;
      const d = describeParam(schema);
      if (r.method === 'GET' || r.method === 'DELETE') parameters.push({ name, in: 'query', required: d.required, schema: d.schema });
      else {
        bodyProps[name] = d.schema;
        if (d.required) bodyRequired.push(name);
      }
    }
    const opId = operationId(r.method, path);
    const responses: Json = {};
    const declared = Object.entries(r.responses ?? {}) as [string, ResponseSpec | undefined][];
    const op: Json = { operationId: opId, summary: r.summary, tags: r.tags, parameters, responses };
    for (const [status, spec] of declared) {
      const description = STATUS_TEXT[Number(status)] ?? 'Success';
      if (spec === undefined || spec === null) responses[status] = { description };
      else if (isRaw(spec)) responses[status] = { description: spec.description ?? description, content: { [spec.contentType]: { schema: { type: 'string' } } } };
      else {
        // A schema shared by several routes is converted once, under the first route's id.
        let id = z.globalRegistry.get(spec)?.id ?? own.get(spec);
        if (!id) {
          id = `${opId}.${status}`;
          own.set(spec, id);
          registry.add(spec, { id });
        }
        addNamed(spec);
        responses[status] = { description, content: { 'application/json': { schema: {} } } };
        inline.push({ op, status, id });
      }
    }
    for (const [status, e] of Object.entries(ERROR_RESPONSES)) responses[status] = { $ref: `#/components/responses/${e.name}` };
    op.security = security(r.auth, r.method);
    if (r.scopes?.length) op['x-token-scopes'] = [...r.scopes, 'api', 'read_api'];
    if (Object.keys(bodyProps).length) {
      const schema = { type: 'object', properties: bodyProps, ...(bodyRequired.length ? { required: bodyRequired } : {}) };
      op.requestBody = {
        required: bodyRequired.length > 0,
        content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema }, 'multipart/form-data': { schema } },
      };
    }
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }

  const converted = tidy(z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any', io: 'output' }).schemas) as Record<string, Json>;
  for (const { op, status, id } of inline) {
    const content = ((op.responses as Json)[status] as { content: Record<string, { schema: unknown; example?: unknown }> }).content['application/json'];
    content.schema = named.has(id) ? { $ref: `#/components/schemas/${id}` } : converted[id];
    content.example = exampleOf(content.schema, converted);
  }
  const schemas: Record<string, Json> = {};
  for (const id of [...named].sort()) schemas[id] = converted[id];
  if (converted.__shared) schemas.__shared = converted.__shared;
  const errorSchema = { oneOf: [MessageError, ParameterError, OAuthError].map((e) => ({ $ref: `#/components/schemas/${z.globalRegistry.get(e)!.id}` })) };

  // Tags: GitLab's resources, grouped by the domain whose routes use them (Scalar and Redoc show `x-tagGroups`).
  const tagDomain = new Map<string, string>();
  for (const r of routes) for (const t of r.tags) if (!tagDomain.has(t)) tagDomain.set(t, r.domain ?? 'platform');
  const order = domains.map((d) => d.name);
  const rank = (d: string) => (order.includes(d) ? order.indexOf(d) : order.length);
  const groups = [...new Set([...tagDomain.values()])].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const describe = (d: string) => domains.find((x) => x.name === d)?.description ?? '';

  return {
    openapi: '3.1.0',
    info: {
      title: 'workflow-api: GitLab REST API v4 (workflow resources)',
      version: '4',
      description: 'Parameters may be sent in the query string or as JSON, form or multipart bodies; arrays as `a[]=`, hashes as `h[k]=`.',
    },
    servers: [{ url: serverUrl }],
    tags: [...tagDomain.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, domain]) => ({ name, description: `${domain}: ${describe(domain)}`, 'x-domain': domain })),
    'x-tagGroups': groups.map((d) => ({ name: d, description: describe(d), tags: [...tagDomain.entries()].filter(([, x]) => x === d).map(([t]) => t).sort() })),
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.values(ERROR_RESPONSES).map((e) => [e.name, { description: e.description, content: { 'application/json': { schema: errorSchema, example: e.example } } }]),
      ),
      securitySchemes: SECURITY_SCHEMES,
    },
    security: TOKENS,
    paths,
  };
}
