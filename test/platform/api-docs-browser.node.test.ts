/**
 * /-/api-docs in a real browser: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven
 * by playwright-core against the Node server on a free port. Where that browser is missing or does
 * not start, every test here is skipped with a warning: nothing else is tried.
 */
import { serve, type ServerType } from '@hono/node-server';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeApp } from '../../src/node-app';

const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium itself calls Google hosts, which fail noisily here.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const dir = mkdtempSync(join(tmpdir(), 'wfapi-browser-'));
let browser: BrowserContext | undefined;
let skipReason = '';
let server: ServerType | undefined;
let origin = '';
let doc: any;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) skipReason = `${CHROMIUM} is missing (apt-get install chromium)`;
  else {
    try {
      // A persistent context on a fresh directory: a clean profile for every run.
      browser = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    } catch (err) {
      skipReason = `${CHROMIUM} did not start: ${String(err).split('\n')[0]}`;
    }
  }
  if (!browser) {
    console.warn(`SKIPPED: /-/api-docs browser tests: ${skipReason}`);
    return;
  }
  const { app } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'test.db')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: join(import.meta.dirname, '../../drizzle'),
    env: { PASSWORD_HASH_ITERATIONS: '1000' },
  });
  const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => listening.once('listening', resolve).once('error', reject));
  server = listening;
  origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  doc = await (await fetch(`${origin}/-/openapi.json`)).json();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  rmSync(dir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  requests: string[];
  /** Requests that failed or answered an error status. */
  failed: string[];
  /** Console errors and uncaught exceptions (a CSP violation is reported as a console error). */
  errors: string[];
}

/** Opens the reference page and waits until Scalar has rendered the document's title. */
async function openDocs(hash = ''): Promise<Opened> {
  const page = await browser!.newPage();
  const opened: Opened = { page, requests: [], failed: [], errors: [] };
  page.on('request', (r) => opened.requests.push(r.url()));
  page.on('requestfailed', (r) => opened.failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => r.status() >= 400 && opened.failed.push(`${r.url()}: ${r.status()}`));
  page.on('console', (m) => {
    // Error statuses are caught above, except the browser's own /favicon.ico probe (this server has no icon, 404).
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of')) opened.errors.push(m.text());
  });
  page.on('pageerror', (e) => opened.errors.push(e.message));
  await page.goto(`${origin}/-/api-docs${hash}`);
  await page.getByRole('heading', { level: 1, name: doc.info.title }).waitFor({ timeout: 30_000 });
  return opened;
}

describe('GET /-/api-docs in Chromium', () => {
  it('renders the document from this server alone, under its Content-Security-Policy', async ({ skip }) => {
    if (!browser) skip(skipReason);
    const { page, requests, failed, errors } = await openDocs();
    // Until no new request for a second, so lazy loads (fonts, telemetry, chunks) are seen too.
    // (Not waitForLoadState('networkidle'): called after the page went idle, it waits forever.)
    for (let seen = -1; seen !== requests.length; ) {
      seen = requests.length;
      await page.waitForTimeout(1000);
    }
    expect(requests).toContain(`${origin}/-/openapi.json`);
    // Every request, including anything the bundle fetches lazily (fonts, telemetry), stays on localhost.
    const elsewhere = requests.filter((url) => {
      const u = new URL(url);
      return !(u.protocol === 'data:' || u.protocol === 'blob:' || ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname));
    });
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lists every tag of the OpenAPI document, grouped by domain', async ({ skip }) => {
    if (!browser) skip(skipReason);
    const tags = new Set<string>((doc.tags ?? []).map((t: { name: string }) => t.name));
    for (const ops of Object.values(doc.paths) as Record<string, { tags?: string[] }>[]) for (const op of Object.values(ops)) for (const t of op.tags ?? []) tags.add(t);
    expect(tags.size).toBeGreaterThan(5);
    const groups: { name: string; tags: string[] }[] = doc['x-tagGroups'];
    // Every tag belongs to a domain's group.
    expect(groups.flatMap((g) => g.tags).sort()).toEqual([...tags].sort());
    const { page } = await openDocs();
    // Each domain is a group of the sidebar; opened, it lists its tags by their names as written in the document.
    const missing: string[] = [];
    for (const group of groups) {
      const open = page.getByRole('button', { name: `Open Group - ${group.name}`, exact: true });
      if ((await open.count()) === 0) {
        missing.push(`group ${group.name}`);
        continue;
      }
      if (await open.first().isVisible()) await open.first().click();
    }
    for (const tag of tags) if ((await page.getByRole('link', { name: tag, exact: true }).count()) === 0) missing.push(tag);
    expect(missing).toEqual([]);
    await page.close();
  });

  // Needs `responses` with JSON schemas in /-/openapi.json: fails until the issue entity's schema is there.
  it('shows the response schema of GET /projects/:id/issues', async ({ skip }) => {
    if (!browser) skip(skipReason);
    const op = doc.paths['/api/v4/projects/{id}/issues'].get;
    // Scalar's anchor for an operation: #tag/<slug of its first tag>/<METHOD><path>.
    const tagSlug = String(op.tags[0]).toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const { page } = await openDocs(`#tag/${tagSlug}/GET/api/v4/projects/{id}/issues`);
    const ok = page.locator('[id$="/GET/api/v4/projects/{id}/issues.responses.200"]');
    await ok.waitFor({ timeout: 30_000 });
    // A response with a schema is a disclosure button: open it, then any "show more" of its properties.
    if ((await ok.getAttribute('aria-expanded')) === 'false') await ok.click();
    const response = page.locator('li', { has: ok });
    for (let i = 0; i < 5; i++) {
      const more = response.getByRole('button', { name: /show (all|more)/i });
      if ((await more.count()) === 0) break;
      await more.first().click();
    }
    const text = await response.innerText();
    for (const field of ['iid', 'title', 'time_stats']) {
      expect(text, `the 200 response of GET /projects/:id/issues lists the issue's \`${field}\``).toMatch(new RegExp(`(^|\\s)${field}(\\s|$)`, 'm'));
    }
    await page.close();
  });
});
