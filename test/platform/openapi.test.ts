import { describe, expect, it } from 'vitest';
import { api, fetchApi } from '../support';

/** Every src/href of the page's tags (the rendering itself is checked in a browser: test/platform/api-docs-browser.node.test.ts). */
const references = (html: string) => [...html.matchAll(/\s(?:src|href)\s*=\s*["']([^"']*)["']/gi)].map((m) => m[1]);

describe('GET /-/openapi.json and /-/api-docs', () => {
  it('serves an OpenAPI 3.1 document without authentication', async () => {
    const res = await api('/-/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v4/user'].get.summary).toBe('Get the current user');
  });

  it('serves a reference page that renders /-/openapi.json with same-origin assets only', async () => {
    const res = await api('/-/api-docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('<title>workflow-api: GitLab REST API v4 (workflow resources)</title>');
    expect(res.text).toContain('/-/openapi.json');
    const refs = references(res.text);
    expect(refs.length).toBeGreaterThan(0);
    // Root-relative paths only: no scheme, no protocol-relative `//host`.
    for (const ref of refs) expect(ref).toMatch(/^\/(?!\/)/);
    expect(res.text).not.toMatch(/https?:\/\/|cdn\./i);
  });

  it('sends a strict Content-Security-Policy: scripts by nonce only, requests to this origin only', async () => {
    const res = await api('/-/api-docs');
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|\*)/);
    // Every script tag (the bundle and Scalar's init call) carries this response's nonce.
    const scripts = [...res.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    // A fresh nonce per response.
    const again = await api('/-/api-docs');
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('serves the referenced scripts from this server as long-cached JavaScript', async () => {
    const page = await api('/-/api-docs');
    const scripts = [...page.text.matchAll(/<script\b[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const res = await fetchApi(src);
      expect(res.status, src).toBe(200);
      expect(res.headers.get('content-type'), src).toMatch(/^(text|application)\/javascript\b/);
      expect(res.headers.get('cache-control'), src).toMatch(/max-age=31536000/);
      const body = await res.text();
      // Scalar's standalone bundle, which defines the global the page's init script calls.
      expect(body.length, src).toBeGreaterThan(1_000_000);
      expect(body).toContain('createApiReference');
    }
  });
});
