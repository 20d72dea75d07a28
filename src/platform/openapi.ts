/**
 * OpenAPI 3.1 document built from the route registry: the same zod param specs that validate
 * requests describe them here, so the document cannot drift from what the server accepts.
 */
import type { z } from 'zod';
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

export function openApiDocument(routes: RouteRecord[], serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
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
    const op: Record<string, unknown> = {
      operationId: `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ? ch.toUpperCase() : ''))}`,
      summary: r.summary,
      tags: r.tags,
      parameters,
      responses: {
        [String(r.status ?? (r.method === 'POST' ? 201 : r.method === 'DELETE' ? 204 : 200))]: { description: 'Success' },
        '400': { description: 'Invalid parameters (`{"error": "..."}`) or validation failure (`{"message": {...}}`)' },
        '401': { description: '`{"message":"401 Unauthorized"}`' },
      },
    };
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
  return {
    openapi: '3.1.0',
    info: {
      title: 'workflow-api: GitLab REST API v4 (workflow resources)',
      version: '4',
      description: 'Parameters may be sent in the query string or as JSON, form or multipart bodies; arrays as `a[]=`, hashes as `h[k]=`.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        privateToken: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN' },
        bearer: { type: 'http', scheme: 'bearer' },
        privateTokenQuery: { type: 'apiKey', in: 'query', name: 'private_token' },
      },
    },
    security: [{ privateToken: [] }, { bearer: [] }, { privateTokenQuery: [] }],
    paths,
  };
}
