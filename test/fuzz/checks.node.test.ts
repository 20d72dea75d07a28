/**
 * The fuzzer's oracle must itself fail what it is meant to fail: a fuzz that passes because its
 * checks accept anything proves nothing. Real responses of the app, then the same responses altered.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { RouteRecord } from '../../src/platform/router';
import { type FuzzApp, type Sent, startFuzzApp } from './app';
import { responseChecker } from './checks';

let app: FuzzApp;
let check: ReturnType<typeof responseChecker>;
const route = (method: string, path: string): RouteRecord => app.routes.find((r) => r.method === method && r.path === path)!;
const altered = (sent: Sent, change: Partial<Sent> & { type?: string }): Sent => {
  const headers = new Headers(sent.headers);
  if (change.type) headers.set('content-type', change.type);
  return { ...sent, ...change, headers };
};

beforeAll(async () => {
  app = await startFuzzApp();
  check = responseChecker(JSON.parse((await app.send('/-/openapi.json')).text));
});

describe('the fuzzer’s response checks', () => {
  it('accept real answers: a user, a list, an error, a raw page', async () => {
    const user = await app.send('/api/v4/user', { headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN } });
    expect(check(route('GET', '/api/v4/user'), user)).toEqual([]);
    const list = await app.send('/api/v4/projects');
    expect(check(route('GET', '/api/v4/projects'), list)).toEqual([]);
    const missing = await app.send('/api/v4/projects/0');
    expect(missing.status).toBe(404);
    expect(check(route('GET', '/api/v4/projects/:id'), missing)).toEqual([]);
    const docs = await app.send('/-/api-docs');
    expect(check(route('GET', '/-/api-docs'), docs)).toEqual([]);
  });

  it('fail a 5xx, a slow answer, an undeclared status, a body off its schema, a non-JSON type and a foreign error shape', async () => {
    const r = route('GET', '/api/v4/user');
    const user = await app.send('/api/v4/user', { headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN } });
    const body = JSON.parse(user.text);
    expect(check(r, altered(user, { status: 500 }))).toEqual(['status 500']);
    expect(check(r, altered(user, { ms: 2_500 }))).toEqual(['took 2500 ms']);
    expect(check(r, altered(user, { status: 201 }))[0]).toMatch(/status 201 is not declared/);
    expect(check(r, altered(user, { text: JSON.stringify({ ...body, id: 'one' }) }))[0]).toMatch(/does not match its schema/);
    expect(check(r, altered(user, { text: JSON.stringify({ ...body, secret: 1 }) }))[0]).toMatch(/does not match its schema/);
    expect(check(r, altered(user, { type: 'text/html' }))[0]).toMatch(/Content-Type text\/html/);
    const missing = await app.send('/api/v4/projects/0');
    expect(check(route('GET', '/api/v4/projects/:id'), altered(missing, { text: '{"msg":"nope"}' }))[0]).toMatch(/^error body/);
    expect(check(route('GET', '/api/v4/projects/:id'), altered(missing, { type: 'text/html' }))[0]).toMatch(/^error body: Content-Type/);
    expect(check(r, altered(user, { violation: 'x: y' }))).toEqual(["the app's own response check: x: y"]);
  });
});
