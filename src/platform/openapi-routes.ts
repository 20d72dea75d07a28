/** The OpenAPI document and its reference page, outside /api/v4 (GitLab keeps non-API pages under /-/). */
import { z } from 'zod';
import { apiDocsPage, BUNDLE_CACHE_CONTROL, SCALAR_BUNDLE } from './api-docs';
import { type DomainDoc, openApiDocument } from './openapi';
import { grapeError } from './errors';
import { baseUrl } from './pagination';
import { obj, raw } from './response-schemas';
import type { Router } from './router';

const record = z.record(z.string(), z.unknown());
/** The document's outline (its parts are described by the OpenAPI 3.1 specification itself). */
const OpenApiDocumentSchema = obj({
  openapi: z.literal('3.1.0'),
  info: record,
  servers: z.array(record),
  tags: z.array(record),
  'x-tagGroups': z.array(record),
  components: record,
  security: z.array(record),
  paths: record,
});

export function mountOpenapi(web: Router, api: Router, domains: DomainDoc[]) {
  // Built on first use: every module has mounted its routes by then.
  let doc: ReturnType<typeof openApiDocument> | undefined;
  const build = (server: string) => (doc ??= openApiDocument([...api.records, ...web.records.filter((r) => !r.path.startsWith('/-/'))], server, domains));

  web.route({ method: 'GET', path: '/-/openapi.json', summary: 'OpenAPI 3.1 document of this server', tags: ['meta'], responses: { 200: OpenApiDocumentSchema } }, ({ c }) =>
    c.json(build(`${baseUrl(c)}/`)),
  );
  web.route({ method: 'GET', path: '/-/api-docs', summary: 'Browsable API reference', tags: ['meta'], responses: { 200: raw('text/html') } }, ({ c }) =>
    apiDocsPage(c, build(`${baseUrl(c)}/`).info.title),
  );
  // The page's script: Workers static assets or the npm package's file on Node (Deps.assets).
  web.route({ method: 'GET', path: SCALAR_BUNDLE.urlPath, summary: 'Browser bundle of the API reference', tags: ['meta'], responses: { 200: raw('text/javascript') } }, async ({ c }) => {
    const assets = c.get('assets');
    const res = assets ? await assets(c.req.raw) : null;
    // The assets' own 404 is text/plain (`/-/api-docs/scalar.js.json` asks them for a file they lack): answer the catch-all's JSON instead.
    if (!res || res.status === 404) throw grapeError('404 Not Found', 404);
    if (res.status !== 200) return res;
    // The same headers on both runtimes; the URL carries the bundle's version (platform/api-docs.ts).
    const out = new Response(res.body, res);
    out.headers.set('Content-Type', 'text/javascript; charset=utf-8');
    out.headers.set('Cache-Control', BUNDLE_CACHE_CONTROL);
    return out;
  });
}
