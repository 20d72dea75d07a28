/** The OpenAPI document and its reference page, outside /api/v4 (GitLab keeps non-API pages under /-/). */
import { openApiDocument, referencePage } from './openapi';
import { baseUrl } from './pagination';
import type { Router } from './router';

export function mountOpenapi(web: Router, api: Router) {
  // Built on first use: every module has mounted its routes by then.
  let doc: ReturnType<typeof openApiDocument> | undefined;
  const build = (server: string) => (doc ??= openApiDocument([...api.records, ...web.records.filter((r) => !r.path.startsWith('/-/'))], server));

  web.route({ method: 'GET', path: '/-/openapi.json', summary: 'OpenAPI 3.1 document of this server', tags: ['meta'] }, ({ c }) =>
    c.json(build(`${baseUrl(c)}/`)),
  );
  web.route({ method: 'GET', path: '/-/api-docs', summary: 'Browsable API reference', tags: ['meta'] }, ({ c }) => c.html(referencePage(build(`${baseUrl(c)}/`))));
}
