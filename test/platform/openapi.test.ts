import { describe, expect, it } from 'vitest';
import { api } from '../support';

describe('GET /-/openapi.json and /-/api-docs', () => {
  it('serves an OpenAPI 3.1 document without authentication', async () => {
    const res = await api('/-/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v4/user'].get.summary).toBe('Get the current user');
  });
  it('serves a browsable reference page that lists the endpoints', async () => {
    const res = await api('/-/api-docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('/api/v4/users');
    expect(res.text).toContain('/-/openapi.json');
  });
});
