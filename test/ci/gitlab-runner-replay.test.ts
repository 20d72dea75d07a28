/**
 * Issue 14: gitlab-runner's conversation, replayed byte for byte as it sends it (reference
 * gitlab-behaviour-2.md 5.4 and 8: network/client.go, network/gitlab.go): JSON bodies with the
 * runner's `info` and feature hash, `Content-Type`/`Accept: application/json`, its User-Agent, the
 * `RUNNER-TOKEN` header besides `token` in the body, an `X-Request-Id`. Checked: what the runner
 * relies on in each answer (status, JSON content type, body keys and formats, X-GitLab-Last-Update).
 */
import { describe, expect, it } from 'vitest';
import { api, fetchApi, rootToken } from '../support';

const UA = 'gitlab-runner 17.5.0 (17-5-stable; go1.22.7; linux/amd64)';
const INFO = {
  name: 'gitlab-runner',
  version: '17.5.0',
  revision: '1d3ef4c3',
  platform: 'linux',
  architecture: 'amd64',
  executor: 'docker',
  shell: 'bash',
  features: {
    variables: true, image: true, services: true, artifacts: true, cache: true, fallback_cache_keys: true, shared: true, upload_multiple_artifacts: true,
    upload_raw_artifacts: true, session: true, terminal: true, refspecs: true, masking: true, proxy: true, raw_variables: true, artifacts_exclude: true,
    multi_build_steps: true, trace_reset: true, trace_checksum: true, trace_size: true, vault_secrets: true, cancelable: true, return_exit_code: true,
    service_variables: true, service_multiple_aliases: true, image_executor_opts: true, service_executor_opts: true, cancel_gracefully: true,
  },
  config: { gpus: '' },
};
/** ISO 8601 as GitLab renders a time in JSON, and as Go's time.Time decodes it (RFC 3339). */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let requestNo = 0;
/** One request as gitlab-runner's client builds it. */
async function send(method: 'POST' | 'DELETE', path: string, body: Record<string, unknown>, runnerToken?: string) {
  const requestId = `01JRUNNER${String(++requestNo).padStart(8, '0')}`;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': UA, 'X-Request-Id': requestId };
  if (runnerToken) headers['RUNNER-TOKEN'] = runnerToken;
  const res = await fetchApi(`/api/v4/${path}`, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  expect(res.headers.get('x-request-id')).toBe(requestId);
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const jsonAnswer = (res: { headers: Headers }) => expect(res.headers.get('content-type')).toMatch(/^application\/json/);

describe('gitlab-runner replay', () => {
  it('register, verify, poll with last_update, reset, unregister: what the runner reads in every answer', async () => {
    const registration = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token as string;

    // `gitlab-runner register --registration-token … --tag-list docker,linux --locked=false`.
    const registered = await send('POST', 'runners', {
      description: 'build-box-1',
      maintenance_note: 'rack 4',
      tag_list: 'docker,linux',
      run_untagged: false,
      locked: false,
      access_level: 'not_protected',
      maximum_timeout: 3600,
      paused: false,
      token: registration,
      info: INFO,
    });
    expect(registered.status).toBe(201);
    jsonAnswer(registered);
    const reg = registered.json();
    expect(Object.keys(reg)).toEqual(['id', 'token', 'token_expires_at']);
    expect(reg.id).toBeGreaterThan(0);
    expect(reg.token).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(reg.token_expires_at).toBeNull();
    const token = reg.token as string;

    // `gitlab-runner run` starts: verify (JSON preferred), with the system id of this machine.
    const verified = await send('POST', 'runners/verify', { token, system_id: 's_0123456789ab', info: INFO }, token);
    expect(verified.status).toBe(200);
    jsonAnswer(verified);
    expect(verified.json()).toEqual({ id: reg.id, token, token_expires_at: null });

    // The first poll has no last_update; the answer carries the stamp to echo back.
    const first = await send('POST', 'jobs/request', { info: INFO, token, system_id: 's_0123456789ab', last_update: '' }, token);
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    const stamp = first.headers.get('x-gitlab-last-update');
    expect(stamp).toMatch(/^[0-9a-f]{32}$/);
    // Each further poll echoes it; a known runner's poll costs no storage round trip.
    for (let i = 0; i < 3; i++) {
      const again = await send('POST', 'jobs/request', { info: INFO, token, system_id: 's_0123456789ab', last_update: stamp, session: { url: 'https://runner.example:8093/session/abc', certificate: '', authorization: 'x' } }, token);
      expect(again.status).toBe(204);
      expect(again.text).toBe('');
      expect(again.headers.get('x-gitlab-last-update')).toBe(stamp);
      expect(again.headers.get('x-storage-round-trips')).toBe('0');
    }

    // Token rotation (gitlab-runner resets before 75 % of the lifetime): 201 with the new token.
    const reset = await send('POST', 'runners/reset_authentication_token', { token }, token);
    expect(reset.status).toBe(201);
    jsonAnswer(reset);
    const rotated = reset.json();
    expect(Object.keys(rotated)).toEqual(['token', 'token_expires_at']);
    expect(rotated.token).not.toBe(token);
    expect(rotated.token_expires_at).toBeNull();
    // The old token is "forbidden" at once: gitlab-runner reads 403 as a removed runner.
    const stale = await send('POST', 'jobs/request', { info: INFO, token, system_id: 's_0123456789ab', last_update: stamp }, token);
    expect(stale.status).toBe(403);
    jsonAnswer(stale);
    expect(stale.json()).toEqual({ message: '403 Forbidden' });
    const polled = await send('POST', 'jobs/request', { info: INFO, token: rotated.token, system_id: 's_0123456789ab', last_update: stamp }, rotated.token);
    expect(polled.status).toBe(204);
    expect(polled.headers.get('x-gitlab-last-update')).toMatch(/^[0-9a-f]{32}$/);

    // `gitlab-runner unregister`: 204, then the token is gone for every call.
    const gone = await send('DELETE', 'runners', { token: rotated.token }, rotated.token);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    for (const path of ['runners/verify', 'jobs/request']) expect((await send('POST', path, { token: rotated.token, info: INFO }, rotated.token)).status).toBe(403);
    expect((await send('DELETE', 'runners', { token: rotated.token }, rotated.token)).status).toBe(403);
  });

  it("answers 403 to an unknown registration token as JSON the runner reads as 'forbidden (check registration token)'", async () => {
    const res = await send('POST', 'runners', { description: 'x', tag_list: '', run_untagged: true, locked: true, paused: false, token: 'GR1348941unknown', info: INFO });
    expect(res.status).toBe(403);
    jsonAnswer(res);
    expect(res.json()).toEqual({ message: '403 Forbidden' });
  });

  it('gives token_expires_at as an ISO 8601 time when tokens expire, the same for verify and reset', async () => {
    const registration = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token as string;
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { runner_token_expiration_interval: 7 * 86400 } });
    let reg: { id: number; token: string; token_expires_at: string };
    try {
      const registered = await send('POST', 'runners', { description: 'expiring', tag_list: '', run_untagged: true, locked: true, paused: false, token: registration, info: INFO });
      expect(registered.status).toBe(201);
      reg = registered.json();
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { runner_token_expiration_interval: null } });
    }
    expect(reg.token_expires_at).toMatch(ISO);
    const lifetime = Date.parse(reg.token_expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(7 * 86400_000);
    const verified = await send('POST', 'runners/verify', { token: reg.token, system_id: 's_0123456789ab' }, reg.token);
    expect(verified.json()).toEqual({ id: reg.id, token: reg.token, token_expires_at: reg.token_expires_at });
  });

  it('takes a created runner (glrt- token) through verify, which must answer its id, then polling', async () => {
    const created = (await api('/user/runners', { method: 'POST', token: rootToken, body: { runner_type: 'instance_type', description: 'from the UI' } })).body;
    // `gitlab-runner register --token glrt-…` does not call POST /runners.
    const verified = await send('POST', 'runners/verify', { token: created.token, system_id: 's_00000000beef' }, created.token);
    expect(verified.status).toBe(200);
    expect(verified.json()).toEqual({ id: created.id, token: created.token, token_expires_at: null });
    const polled = await send('POST', 'jobs/request', { info: INFO, token: created.token, system_id: 's_00000000beef', last_update: '' }, created.token);
    expect(polled.status).toBe(204);
    expect(polled.headers.get('x-gitlab-last-update')).toMatch(/^[0-9a-f]{32}$/);
  });
});
