import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/platform/config';
import type { Deps } from '../../src/platform/context';
import { openApiDocument } from '../../src/platform/openapi';
import { isRaw } from '../../src/platform/response-schemas';
import { DOMAINS } from '../../src/routes';

// The app is only inspected, never called, so its ports are never used.
const deps = { db: {}, blobs: {}, jobs: {}, rateLimiter: {}, config: loadConfig({}) } as unknown as Deps;

describe('OpenAPI document', () => {
  const { app, routes } = createApp(deps);
  const doc = openApiDocument(routes, 'http://localhost/');

  it('documents every route Hono has mounted', () => {
    const mounted = app.routes
      .filter((r) => r.method !== 'ALL' && r.method !== 'HEAD')
      // every route also answers with a `.json` suffix (spec: "A .json suffix is not needed")
      .filter((r) => !(r.path.endsWith('.json') && app.routes.some((o) => o.path === r.path.slice(0, -5))))
      .filter((r) => !r.path.startsWith('/-/'))
      // A route Hono matches by another pattern (`archive.:format` as a regex parameter) is documented by its path.
      .map((r) => `${r.method} ${(routes.find((o) => o.honoPath === r.path)?.path ?? r.path).replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(mounted.length).toBeGreaterThan(1);
    const missing = mounted.filter((m) => !documented.includes(m));
    expect(missing).toEqual([]);
  });

  it('describes parameters from the validating schemas', () => {
    const op = (doc.paths['/api/v4/users'] as any).post;
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['email', 'name', 'username']));
    expect(schema.required).not.toContain('password');
    expect(schema.properties.admin).toMatchObject({ type: 'boolean' });
    expect(schema.properties.projects_limit).toMatchObject({ type: 'integer' });
    expect(schema.properties.avatar).toMatchObject({ type: 'string', format: 'binary' });
    const token = (doc.paths['/api/v4/users/{user_id}/personal_access_tokens'] as any).post;
    expect(token.parameters).toEqual([expect.objectContaining({ name: 'user_id', in: 'path', required: true, schema: expect.objectContaining({ type: 'integer' }) })]);
  });
});

describe('OpenAPI responses', () => {
  const { routes } = createApp(deps);
  const doc = openApiDocument(routes, 'http://localhost/', DOMAINS) as any;
  const op = (r: (typeof routes)[number]) => doc.paths[r.path.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[r.method.toLowerCase()];

  it('gives every operation its declared success responses and GitLab error bodies', () => {
    const missing: string[] = [];
    for (const r of routes.filter((x) => x.responses && !x.path.startsWith('/-/'))) {
      const o = op(r);
      for (const status of Object.keys(r.responses!)) if (!o?.responses?.[status]) missing.push(`${r.method} ${r.path} ${status}`);
      for (const status of ['400', '401', '403', '404']) if (!o?.responses?.[status]?.$ref) missing.push(`${r.method} ${r.path} ${status}`);
    }
    expect(missing).toEqual([]);
    expect(Object.keys(doc.components.responses)).toEqual(['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound']);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['MessageError', 'ParameterError', 'OAuthError', 'UserBasic', 'Issue']));
  });

  it('describes JSON bodies with the schemas that check them, and examples those schemas accept', () => {
    const wrong: string[] = [];
    for (const r of routes.filter((x) => x.responses && !x.path.startsWith('/-/'))) {
      for (const [status, spec] of Object.entries(r.responses!)) {
        if (!spec || isRaw(spec)) continue;
        const media = op(r).responses[status].content?.['application/json'];
        if (!media?.schema || (!media.schema.$ref && !media.schema.type && !media.schema.anyOf)) wrong.push(`${r.method} ${r.path} ${status}: no schema`);
        const parsed = spec.safeParse(media?.example);
        if (!parsed.success) wrong.push(`${r.method} ${r.path} ${status}: example ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has security schemes for every way of authenticating, and tags grouped by domain', () => {
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['privateToken', 'privateTokenQuery', 'bearer', 'oauth2', 'session', 'jobToken', 'basicPat']);
    const opened = op(routes.find((r) => r.method === 'POST' && r.path === '/oauth/token')!);
    expect(opened.security).toEqual([]);
    const signedIn = op(routes.find((r) => r.method === 'GET' && r.path === '/api/v4/user')!);
    expect(signedIn.security).not.toContainEqual({});
    const tagged = new Set(doc['x-tagGroups'].flatMap((g: { tags: string[] }) => g.tags));
    for (const t of doc.tags) expect(tagged.has(t.name)).toBe(true);
    expect(doc['x-tagGroups'].map((g: { name: string }) => g.name)).toEqual(expect.arrayContaining(['users', 'issues', 'merge-requests', 'approvals']));
  });
});
