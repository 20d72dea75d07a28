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

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A self-contained reference page (no CDN: it must work offline and under a strict CSP). */
export function referencePage(doc: ReturnType<typeof openApiDocument>): string {
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops) as [string, any][]) {
      const params = [...(op.parameters ?? []).map((p: any) => ({ name: p.name, where: p.in, required: p.required, schema: p.schema })),
        ...Object.entries(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}).map(([name, schema]) => ({
          name, where: 'body', required: (op.requestBody.content['application/json'].schema.required ?? []).includes(name), schema: schema as any,
        }))];
      const rows = params.map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.where)}</td><td>${esc(p.schema['x-grape-type'] ?? p.schema.type)}${p.schema.enum ? ` (${esc(p.schema.enum.join(', '))})` : ''}</td><td>${p.required ? 'yes' : ''}</td></tr>`).join('');
      const html = `<section><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3><p>${esc(op.summary)}</p>${rows ? `<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th></tr>${rows}</table>` : ''}</section>`;
      for (const tag of op.tags ?? ['other']) byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const sections = [...byTag.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([tag, items]) => `<h2 id="${esc(tag)}">${esc(tag)}</h2>${items.join('')}`).join('');
  const toc = [...byTag.keys()].sort().map((t) => `<a href="#${esc(t)}">${esc(t)}</a>`).join(' · ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title><style>
body{font:14px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}code{font-size:13px}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}
.m{display:inline-block;min-width:4.5em;font-size:12px;color:#fff;border-radius:3px;text-align:center;background:#555}
.get{background:#1f75cb}.post{background:#108548}.put,.patch{background:#c17d10}.delete{background:#dd2b0e}section{border-top:1px solid #eee}
</style></head><body><h1>${esc(doc.info.title)}</h1><p>${esc(doc.info.description)} Machine-readable: <a href="/-/openapi.json">/-/openapi.json</a>.</p><nav>${toc}</nav>${sections}</body></html>`;
}
