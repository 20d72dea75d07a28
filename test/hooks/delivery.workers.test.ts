/**
 * Webhook delivery in workerd through the real Queue binding: the issue write records the event, the
 * Queue consumer dispatches and delivers. workerd cannot reach a server the test starts, so the one
 * stub is at the network edge: `fetch` to the hook's host answers here and records what it got.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storageSql } from '#harness';
import { api, createUser, unique } from '../support';

const got: { url: string; headers: Headers; body: any }[] = [];
const realFetch = globalThis.fetch;
beforeAll(() => {
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith('https://hooks.example.com/')) return realFetch(input as RequestInfo, init);
    got.push({ url, headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) });
    return new Response(url.includes('/fail') ? 'nope' : 'ok', { status: url.includes('/fail') ? 503 : 200 });
  });
});
afterAll(() => vi.restoreAllMocks());

async function until<T>(what: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook delivery on the Queue (workerd)', () => {
  it('delivers an issue event with GitLab headers and logs it', async () => {
    const u = await createUser();
    const p = (await api('/projects', { token: u.token, body: { name: unique('wq') } })).body;
    const path = `https://hooks.example.com/${unique('h')}`;
    const hook = (await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: path, push_events: false, issues_events: true, token: 'wk-secret' } })).body;
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'queued' } })).body;
    const req = await until(() => got.find((g) => g.url === path));
    expect(req.headers.get('X-Gitlab-Event')).toBe('Issue Hook');
    expect(req.headers.get('X-Gitlab-Token')).toBe('wk-secret');
    expect(req.headers.get('X-Gitlab-Webhook-UUID')).toMatch(/^[0-9a-f-]{36}$/);
    expect(req.body).toMatchObject({ object_kind: 'issue', object_attributes: { iid: issue.iid, action: 'open', title: 'queued' }, project: { id: p.id } });
    const logs = await until(async () => {
      const r = await api(`/projects/${p.id}/hooks/${hook.id}/events`, { token: u.token });
      return r.body.length ? r.body : undefined;
    });
    expect(logs[0]).toMatchObject({ response_status: '200', trigger: 'issue_hooks', response_body: 'ok' });
    expect(await storageSql(`SELECT state FROM web_hook_deliveries WHERE web_hook_id = ${hook.id}`)).toEqual([{ state: 'delivered' }]);
  });

  it("an update's labels and assignees changes are snapshotted by D1's batch as hook hashes", async () => {
    const [u, a] = await Promise.all([createUser(), createUser()]);
    const p = (await api('/projects', { token: u.token, body: { name: unique('wc') } })).body;
    expect((await api(`/projects/${p.id}/members`, { token: u.token, body: { user_id: a.id, access_level: 30 } })).status).toBe(201);
    const path = `https://hooks.example.com/${unique('c')}`;
    expect((await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: path, push_events: false, issues_events: true } })).status).toBe(201);
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'snap', labels: 'old' } })).body;
    expect((await api(`/projects/${p.id}/issues/${issue.iid}`, { method: 'PUT', token: u.token, body: { labels: 'new', assignee_ids: [a.id] } })).status).toBe(200);
    const req = await until(() => got.find((g) => g.url === path && g.body.object_attributes.action === 'update'));
    const labels = (await api(`/projects/${p.id}/labels`, { token: u.token })).body as { id: number; name: string }[];
    const id = (name: string) => labels.find((l) => l.name === name)!.id;
    expect(Object.keys(req.body.changes)).toEqual(['updated_at', 'assignees', 'labels']);
    expect(req.body.changes.assignees).toEqual({ previous: [], current: [{ id: a.id, name: a.name, username: a.username, avatar_url: null, email: '[REDACTED]' }] });
    expect(req.body.changes.labels.previous.map((l: any) => [l.id, l.title, l.type, l.template])).toEqual([[id('old'), 'old', 'ProjectLabel', false]]);
    expect(req.body.changes.labels.current.map((l: any) => [l.id, l.title, l.project_id])).toEqual([[id('new'), 'new', p.id]]);
    expect(req.body.labels).toEqual(req.body.changes.labels.current);
  });

  it('sends to the interpolated URL with custom headers, credentials as basic auth (fetch refuses them in the URL)', async () => {
    const u = await createUser();
    const p = (await api('/projects', { token: u.token, body: { name: unique('wv') } })).body;
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'sample' } });
    const seg = unique('seg');
    const hook = (
      await api(`/projects/${p.id}/hooks`, {
        token: u.token,
        body: { url: 'https://{user}:{pw}@hooks.example.com/{seg}', push_events: false, url_variables: [{ key: 'user', value: 'bob' }, { key: 'pw', value: 'pw1' }, { key: 'seg', value: seg }], custom_headers: [{ key: 'X-Custom', value: 'wk-header' }] },
      })
    ).body;
    const res = await api(`/projects/${p.id}/hooks/${hook.id}/test/issues_events`, { method: 'POST', token: u.token });
    expect([res.status, res.body]).toEqual([201, { message: '201 Created' }]);
    const req = got.find((g) => g.url === `https://hooks.example.com/${seg}`)!;
    expect(req.headers.get('X-Custom')).toBe('wk-header');
    expect(req.headers.get('Authorization')).toBe(`Basic ${btoa('bob:pw1')}`);
    const [log] = (await api(`/projects/${p.id}/hooks/${hook.id}/events`, { token: u.token })).body;
    expect([log.url, log.request_headers['X-Custom']]).toEqual(['https://*****:*****@hooks.example.com/{seg}', '[REDACTED]']);
  });
});
