import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/platform/config';
import type { Deps } from '../../src/platform/context';
import { openApiDocument } from '../../src/platform/openapi';

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
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
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
