/**
 * Servers configured differently from the shared harness: RATE_LIMITS thresholds set by the
 * operator, and a free-plan instance whose settings carry no paid attributes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { Env } from '../../src/platform/env';
import { createNodeApp } from '../../src/node-app';

async function server(env: Env) {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-rl-'));
  const { app } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', ...env } });
  const call = async (path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.token) headers['PRIVATE-TOKEN'] = init.token;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await app.fetch(new Request(`http://localhost/api/v4${path}`, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }));
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  const user = await call('/users', { token: DEV_ROOT_TOKEN, body: { email: 'rl@example.com', name: 'RL', username: 'rluser', password: 'Rl-password-12345', skip_confirmation: true } });
  expect(user.status).toBe(201);
  const token = await call(`/users/${user.body.id}/personal_access_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 't', scopes: ['api'] } });
  expect(token.status).toBe(201);
  return { call, userId: user.body.id as number, token: token.body.token as string };
}

const TOO_MANY = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };

describe('RATE_LIMITS', () => {
  it('sets the threshold of an application limit until an administrator stores one', async () => {
    const { call, userId, token } = await server({ RATE_LIMITS: JSON.stringify({ user_followers: 1, user_status: 2 }) });
    const left = 60000 - (Date.now() % 60000);
    if (left < 4000) await new Promise((r) => setTimeout(r, left + 50));
    expect((await call(`/users/${userId}/followers`, { token })).status).toBe(200);
    const limited = await call(`/users/${userId}/followers`, { token });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(TOO_MANY);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect((await call(`/users/${userId}/status`, { token })).status).toBe(200);
    expect((await call(`/users/${userId}/status`, { token })).status).toBe(200);
    expect((await call(`/users/${userId}/status`, { token })).status).toBe(429);
    // A stored setting wins over the operator's default.
    const put = await call('/application/settings', { method: 'PUT', token: DEV_ROOT_TOKEN, body: { users_api_limit_followers: 0 } });
    expect(put.status).toBe(200);
    expect(put.body.users_api_limit_followers).toBe(0);
    expect((await call(`/users/${userId}/followers`, { token })).status).toBe(200);
  });
});

describe('application settings on the free plan', () => {
  it('omits paid attributes and ignores them on PUT', async () => {
    const { call } = await server({ INSTANCE_PLAN: 'free' });
    const get = await call('/application/settings', { token: DEV_ROOT_TOKEN });
    expect(get.status).toBe(200);
    for (const k of ['file_template_project_id', 'delayed_project_deletion', 'deletion_adjourned_period', 'geo_node_allowed_ips', 'geo_status_timeout', 'searchsvc_indexing', 'maintenance_mode', 'max_personal_access_token_lifetime', 'help_text']) {
      expect(get.body).not.toHaveProperty(k);
    }
    expect(get.body.default_projects_limit).toBe(100000);
    const put = await call('/application/settings', { method: 'PUT', token: DEV_ROOT_TOKEN, body: { help_text: 'paid', after_sign_up_text: 'free' } });
    expect(put.status).toBe(200);
    expect(put.body).not.toHaveProperty('help_text');
    expect(put.body.after_sign_up_text).toBe('free');
  });

  it('shows them on premium, without the ultimate ones', async () => {
    const { call } = await server({ INSTANCE_PLAN: 'premium' });
    const get = await call('/application/settings', { token: DEV_ROOT_TOKEN });
    expect(get.body).toMatchObject({ file_template_project_id: null, delayed_project_deletion: false, deletion_adjourned_period: 7, geo_status_timeout: 10 });
    expect(get.body).not.toHaveProperty('max_personal_access_token_lifetime');
    const put = await call('/application/settings', { method: 'PUT', token: DEV_ROOT_TOKEN, body: { deletion_adjourned_period: 91 } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ message: { deletion_adjourned_period: ['must be less than or equal to 90'] } });
  });
});
