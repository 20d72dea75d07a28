/** The test-mode response check (platform/response-check.ts): what counts as a violation, and how it is explained. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { violation } from '../../src/platform/response-check';
import { obj, raw } from '../../src/platform/response-schemas';
import type { RouteRecord } from '../../src/platform/router';

const Thing = obj({ id: z.number().int(), name: z.string() });
const route = (responses: RouteRecord['responses']) => ({ method: 'GET', path: '/t', summary: 't', tags: [], responses, auth: {} }) as RouteRecord;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('violation', () => {
  it('accepts a body its schema accepts', async () => {
    expect(await violation(route({ 200: Thing }), 'GET', json({ id: 1, name: 'a' }))).toBeNull();
  });

  it('names an undeclared field, a missing one and a wrong type', async () => {
    expect(await violation(route({ 200: Thing }), 'GET', json({ id: 1, name: 'a', extra: true }))).toContain('Unrecognized key: "extra"');
    expect(await violation(route({ 200: Thing }), 'GET', json({ id: 1 }))).toContain('name:');
    expect(await violation(route({ 200: z.array(Thing) }), 'GET', json([{ id: 'x', name: 'a' }]))).toContain('0.id:');
  });

  it('explains a union by its closest branch', async () => {
    const either = z.union([Thing, obj({ id: z.number().int(), title: z.string(), state: z.string() })]);
    expect(await violation(route({ 200: either }), 'GET', json({ id: 1, name: 7 }))).toBe('name: Invalid input: expected string, received number');
  });

  it('refuses an undeclared status, a body where none is declared, and the wrong content type', async () => {
    expect(await violation(route({ 200: Thing }), 'POST', json({ id: 1, name: 'a' }, 201))).toContain('status 201 is not declared');
    expect(await violation(route({ 202: null }), 'POST', new Response('x', { status: 202 }))).toContain('declared without a body');
    expect(await violation(route({ 200: raw('text/plain') }), 'GET', json({}))).toContain('is not the declared text/plain');
    expect(await violation(route({ 200: raw('image/*') }), 'GET', new Response('x', { headers: { 'Content-Type': 'image/png' } }))).toBeNull();
  });

  it("checks error bodies against GitLab's three shapes on every route, and any route at all", async () => {
    expect(await violation(route({ 200: Thing }), 'GET', json({ message: '404 Project Not Found' }, 404))).toBeNull();
    expect(await violation(undefined, 'GET', json({ error: '404 Not Found' }, 404))).toBeNull();
    expect(await violation(undefined, 'GET', json({ error: 'insufficient_scope', error_description: 'x', scope: 'api' }, 403))).toBeNull();
    expect(await violation(undefined, 'GET', json({ message: 'x', detail: 'y' }, 400))).not.toBeNull();
    expect(await violation(undefined, 'GET', new Response('Retry later', { status: 429, headers: { 'Content-Type': 'text/plain' } }))).toBeNull();
    expect(await violation(undefined, 'GET', new Response('<html>', { status: 500, headers: { 'Content-Type': 'text/html' } }))).toContain('not application/json');
  });

  it('does not check HEAD and 304 answers', async () => {
    expect(await violation(route({ 200: Thing }), 'HEAD', new Response(null, { status: 200 }))).toBeNull();
    expect(await violation(route({ 200: Thing }), 'GET', new Response(null, { status: 304 }))).toBeNull();
  });
});
