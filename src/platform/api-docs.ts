/**
 * The browsable API reference at /-/api-docs: Scalar's renderer (@scalar/api-reference) reading
 * /-/openapi.json. Its browser bundle is served by this server, never a CDN, so the page works
 * offline and under a strict Content-Security-Policy.
 */
import { Scalar } from '@scalar/hono-api-reference';
import type { Context } from 'hono';
import pkg from '../../package.json';

/** The standalone (UMD) bundle: one file that injects its own CSS, so the page needs nothing else. */
export const SCALAR_BUNDLE = {
  package: '@scalar/api-reference',
  file: 'dist/browser/standalone.js',
  /** Also its path under dist/assets, the Workers assets directory (scripts/api-docs-assets.mjs). */
  urlPath: '/-/api-docs/scalar.js',
} as const;

/**
 * The bundle's URL carries the package version (pinned exactly in package.json) so a new bundle
 * gets a new URL and the old one can be cached for a year.
 */
const bundleUrl = `${SCALAR_BUNDLE.urlPath}?v=${pkg.dependencies[SCALAR_BUNDLE.package]}`;
export const BUNDLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * Scripts run only with this response's nonce (the bundle's <script src> and Scalar's inline init
 * call), requests stay on this origin. Styles need 'unsafe-inline': Scalar renders style="..."
 * attributes, which a nonce cannot allow.
 */
const csp = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

export async function apiDocsPage(c: Context, title: string): Promise<Response> {
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  c.header('Content-Security-Policy', csp(nonce));
  const render = Scalar({
    url: '/-/openapi.json',
    cdn: bundleUrl,
    nonce,
    pageTitle: title,
    // Everything that would reach Scalar's hosts is off: its web fonts, telemetry, the AI agent and
    // the developer toolbar (both shown on localhost by default).
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
  });
  return (await render(c, async () => {})) as Response;
}
