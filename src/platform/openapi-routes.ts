/** The OpenAPI document and its reference page, outside /api/v4 (GitLab keeps non-API pages under /-/). */
import { apiDocsPage, BUNDLE_CACHE_CONTROL, SCALAR_BUNDLE } from './api-docs';
import { openApiDocument } from './openapi';
import { baseUrl } from './pagination';
import type { Router } from './router';

export function mountOpenapi(web: Router, api: Router) {
  // Built on first use: every module has mounted its routes by then.
  let doc: ReturnType<typeof openApiDocument> | undefined;
  const build = (server: string) => (doc ??= openApiDocument([...api.records, ...web.records.filter((r) => !r.path.startsWith('/-/'))], server));

  web.route({ method: 'GET', path: '/-/openapi.json', summary: 'OpenAPI 3.1 document of this server', tags: ['meta'] }, ({ c }) =>
    c.json(build(`${baseUrl(c)}/`)),
  );
  web.route({ method: 'GET', path: '/-/api-docs', summary: 'Browsable API reference', tags: ['meta'] }, ({ c }) =>
    apiDocsPage(c, build(`${baseUrl(c)}/`).info.title),
  );
  // The page's script: Workers static assets or the npm package's file on Node (Deps.assets).
  web.route({ method: 'GET', path: SCALAR_BUNDLE.urlPath, summary: 'Browser bundle of the API reference', tags: ['meta'] }, async ({ c }) => {
    const assets = c.get('assets');
    const res = assets ? await assets(c.req.raw) : new Response('Not found', { status: 404 });
    if (res.status !== 200) return res;
    // The same headers on both runtimes; the URL carries the bundle's version (platform/api-docs.ts).
    const out = new Response(res.body, res);
    out.headers.set('Content-Type', 'text/javascript; charset=utf-8');
    out.headers.set('Cache-Control', BUNDLE_CACHE_CONTROL);
    return out;
  });
}
