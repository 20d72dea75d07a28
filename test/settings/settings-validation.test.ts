/**
 * PUT /application/settings: the default branch name follows git's ref rules (a blank one means
 * none), and every text setting is capped. Only `default_branch_name` is ever changed here (no
 * other area reads it), and it is put back afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';

let original: Record<string, any>;

const put = (body: Record<string, unknown>) => api('/application/settings', { method: 'PUT', token: rootToken, body });
const current = async () => (await api('/application/settings', { token: rootToken })).body;

beforeAll(async () => {
  original = await current();
});

afterAll(async () => {
  expect((await put({ default_branch_name: original.default_branch_name })).status).toBe(200);
});

describe('default_branch_name', () => {
  it('refuses a name with a NUL before validation (every parameter: platform/limits.ts), storing nothing', async () => {
    const res = await put({ default_branch_name: 'ma\u0000in' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'default_branch_name contains a null byte' });
    expect((await current()).default_branch_name).toBe(original.default_branch_name);
  });

  it.each([['x y..z~^:'], ['-lead'], ['a.lock'], ['@'], ['a//b'], ['tail/']])('refuses %j as git check-ref-format does, storing nothing', async (name) => {
    const res = await put({ default_branch_name: name });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { default_branch_name: ['is invalid'] } });
    expect((await current()).default_branch_name).toBe(original.default_branch_name);
  });

  it('takes a valid name and stores a blank one as none', async () => {
    const ok = await put({ default_branch_name: 'release/v1.0' });
    expect(ok.status).toBe(200);
    expect(ok.body.default_branch_name).toBe('release/v1.0');
    const blank = await put({ default_branch_name: '  ' });
    expect(blank.status).toBe(200);
    expect(blank.body.default_branch_name).toBeNull();
  });

  it('refuses a name over 255 characters', async () => {
    const res = await put({ default_branch_name: 'b'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { default_branch_name: ['is too long (maximum is 255 characters)'] } });
  });
});

describe('text settings', () => {
  it('refuses a sign-in text over 1,000,000 characters and keeps the old one', async () => {
    const res = await put({ sign_in_text: 's'.repeat(1_000_001) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { sign_in_text: ['is too long (maximum is 1000000 characters)'] } });
    expect((await current()).sign_in_text).toBe(original.sign_in_text);
  });

  it('refuses a URL over 255 characters', async () => {
    const res = await put({ home_page_url: `https://example.com/${'p'.repeat(240)}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { home_page_url: ['is too long (maximum is 255 characters)'] } });
    expect((await current()).home_page_url).toBe(original.home_page_url);
  });

  it('reports one length message where the model validation already gives one', async () => {
    const res = await put({ rate_limiting_response_text: 'r'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { rate_limiting_response_text: ['is too long (maximum is 255 characters)'] } });
  });

  it('lets the entry-count validations of lists speak above 100 entries', async () => {
    const res = await put({ protected_paths: Array.from({ length: 101 }, (_, i) => `/p${i}`) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { protected_paths: ['is too long (maximum is 100 entries)'] } });
  });
});
