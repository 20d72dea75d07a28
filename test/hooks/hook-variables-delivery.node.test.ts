/**
 * Deliveries of hooks with URL variables and custom headers on Node, to a receiver on 127.0.0.1:
 * the URL is interpolated (credentials go as basic auth), custom headers are sent but never over
 * GitLab's own, the interpolated URL passes the outbound guard again at delivery, and the log keeps
 * the URL template, redacted header values and masked variable values.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessApp } from '../harness/node';
import { api, createUser, rootToken, unique } from '../support';

const received: { path: string; headers: IncomingMessage['headers'] }[] = [];
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers });
    // Echoes the path, so the log's response headers would show a variable's value unless masked.
    res.writeHead(200, { 'X-Echo': req.url ?? '' });
    res.end('ok');
  });
});
let host = '';
const local = (on: boolean) => api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: on } });

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  expect((await local(true)).status).toBe(200);
});
afterAll(async () => {
  await local(false);
  await new Promise((r) => server.close(r));
});

const at = (prefix: string) => received.filter((r) => r.path.startsWith(prefix));

/** A project with an issue (the test trigger's sample) and a hook with `body`. */
async function hooked(body: Record<string, unknown>) {
  const u = await createUser();
  const p = (await api('/projects', { token: u.token, body: { name: unique('hvd') } })).body;
  await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'sample' } });
  const hook = await api(`/projects/${p.id}/hooks`, { token: u.token, body: { push_events: false, ...body } });
  expect(hook.status).toBe(201);
  const base = `/projects/${p.id}/hooks/${hook.body.id}`;
  return { u, p, hook: hook.body, base, test: () => api(`${base}/test/issues_events`, { method: 'POST', token: u.token }) };
}

describe('delivery with URL variables and custom headers', () => {
  it('sends to the interpolated URL with the custom headers, and logs the template with values hidden', async () => {
    const seg = unique('seg');
    const { u, base, test } = await hooked({
      url: `http://${host}/v/{seg}?q={query}`,
      token: 'hook-token',
      url_variables: [
        { key: 'seg', value: seg },
        { key: 'query', value: 'qsecret' },
      ],
      custom_headers: [
        { key: 'X-Custom', value: 'header-secret' },
        // GitLab's own headers win over a custom one of the same name, whatever its case.
        { key: 'x-gitlab-event', value: 'Forged Hook' },
        { key: 'X-Gitlab-Token', value: 'forged-token' },
      ],
    });
    const res = await test();
    expect([res.status, res.body]).toEqual([201, { message: '201 Created' }]);
    const [got] = at(`/v/${seg}`);
    expect(got.path).toBe(`/v/${seg}?q=qsecret`);
    expect(got.headers['x-custom']).toBe('header-secret');
    expect(got.headers['x-gitlab-event']).toBe('Issue Hook');
    expect(got.headers['x-gitlab-token']).toBe('hook-token');

    const events = await api(`${base}/events`, { token: u.token });
    expect(events.status).toBe(200);
    const [log] = events.body;
    expect(log.url).toBe(`http://${host}/v/{seg}?q={query}`);
    expect(log.request_headers).toMatchObject({ 'X-Custom': '[REDACTED]', 'X-Gitlab-Event': 'Issue Hook', 'X-Gitlab-Token': '[REDACTED]' });
    expect(Object.keys(log.request_headers).slice(0, 1)).toEqual(['X-Custom']);
    expect(log.response_headers['x-echo']).toBe('/v/{seg}?q={query}');
    for (const secret of [seg, 'qsecret', 'header-secret', 'forged-token', 'hook-token']) expect(events.text).not.toContain(secret);
  });

  it('delivers events through the queue the same way', async () => {
    const seg = unique('qseg');
    const { u, p } = await hooked({ url: `http://${host}/q/{seg}`, issues_events: true, url_variables: [{ key: 'seg', value: seg }], custom_headers: [{ key: 'X-Queue', value: 'queued-secret' }] });
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'second' } });
    await (await harnessApp()).jobs.idle();
    const got = at(`/q/${seg}`);
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(got.every((r) => r.headers['x-queue'] === 'queued-secret')).toBe(true);
  });

  it('sends credentials of the interpolated URL as basic auth and logs them masked', async () => {
    const path = `/auth/${unique('a')}`;
    const { u, base, test } = await hooked({ url: `http://{user}:{password}@${host}${path}`, url_variables: [{ key: 'user', value: 'alice' }, { key: 'password', value: 'p@ss word' }] });
    expect((await test()).status).toBe(201);
    const [got] = at(path);
    expect(got.headers.authorization).toBe(`Basic ${Buffer.from('alice:p@ss word').toString('base64')}`);
    const [log] = (await api(`${base}/events`, { token: u.token })).body;
    expect(log.url).toBe(`http://*****:*****@${host}${path}`);
  });

  it('runs the interpolated URL through the outbound guard at delivery: a variable cannot reach a host the settings block', async () => {
    const path = `/guard/${unique('g')}`;
    const { u, base, test } = await hooked({ url: `http://{target}${path}`, url_variables: [{ key: 'target', value: host }] });
    await local(false);
    try {
      const res = await test();
      expect([res.status, res.body.message]).toEqual([422, expect.stringMatching(/^URL is blocked: /)]);
    } finally {
      await local(true);
    }
    expect(at(path)).toEqual([]);
    const [log] = (await api(`${base}/events`, { token: u.token })).body;
    expect([log.response_status, log.url]).toEqual(['internal error', `http://{target}${path}`]);
  });
});
