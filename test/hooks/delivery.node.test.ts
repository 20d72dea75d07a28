/**
 * Webhook delivery end to end on Node: the write records the event in its own batch, the in-process
 * job runner dispatches and delivers to a receiver on 127.0.0.1 (allowed by
 * allow_local_requests_from_web_hooks_and_services), with GitLab's headers and payloads; failures are
 * retried, logged and auto-disable the hook; redelivered messages change nothing; the sweep re-sends
 * an event whose message was lost.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepWebHooks } from '../../src/hooks/dispatch';
import { harnessApp, sendJob, storageSql } from '../harness/node';
import { api, createUser, rootToken, unique } from '../support';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}
const received: Received[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
    const fail = req.url?.startsWith('/fail');
    res.writeHead(fail ? 500 : 200, { 'Content-Type': 'text/plain', 'X-Receiver': 'yes' });
    res.end(fail ? 'receiver broke' : 'ok thanks');
  });
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: true } })).status).toBe(200);
});
afterAll(async () => {
  await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: false } });
  await new Promise((r) => server.close(r));
});

const idle = async () => (await harnessApp()).jobs.idle();
const at = (path: string) => received.filter((r) => r.path === path);

async function projectWithHook(path: string, flags: Record<string, unknown>) {
  const u = await createUser();
  const p = (await api('/projects', { token: u.token, body: { name: unique('hp') } })).body;
  const hook = await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${base}${path}`, push_events: false, ...flags } });
  expect(hook.status).toBe(201);
  return { u, p, hook: hook.body };
}

describe('webhook delivery', () => {
  it('delivers issue open, update and close with GitLab headers and payload, and logs each delivery', async () => {
    const path = `/ok/${unique('i')}`;
    const { u, p, hook } = await projectWithHook(path, { issues_events: true, token: 'hook-secret-1' });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'First' } })).body;
    await idle();
    expect(at(path)).toHaveLength(1);
    const [open] = at(path);
    expect(open.headers['x-gitlab-event']).toBe('Issue Hook');
    expect(open.headers['x-gitlab-token']).toBe('hook-secret-1');
    expect(open.headers['user-agent']).toMatch(/^GitLab\/\d+\.\d+/);
    expect(open.headers['x-gitlab-event-uuid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(open.headers['x-gitlab-webhook-uuid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(open.headers['x-gitlab-instance']).toBe('http://localhost');
    expect(open.body).toMatchObject({
      object_kind: 'issue',
      event_type: 'issue',
      user: { id: u.id, username: u.username },
      project: { id: p.id, path_with_namespace: p.path_with_namespace, web_url: p.web_url },
      object_attributes: { id: issue.id, iid: issue.iid, title: 'First', state: 'opened', action: 'open', url: `${p.web_url}/-/issues/${issue.iid}` },
      repository: { name: p.name },
    });

    await api(`/projects/${p.id}/issues/${issue.iid}`, { method: 'PUT', token: u.token, body: { title: 'Second' } });
    await api(`/projects/${p.id}/issues/${issue.iid}`, { method: 'PUT', token: u.token, body: { state_event: 'close' } });
    await api(`/projects/${p.id}/issues/${issue.iid}`, { method: 'PUT', token: u.token, body: { state_event: 'reopen' } });
    await idle();
    const bodies = at(path).map((r) => r.body);
    expect(bodies.map((b) => b.object_attributes.action)).toEqual(['open', 'update', 'close', 'reopen']);
    expect(bodies[1].changes.title).toEqual({ previous: 'First', current: 'Second' });
    expect(bodies[2].object_attributes.state).toBe('closed');
    // Each delivery has its own webhook UUID; the events differ too.
    expect(new Set(at(path).map((r) => r.headers['x-gitlab-webhook-uuid'])).size).toBe(4);

    const logs = await api(`/projects/${p.id}/hooks/${hook.id}/events`, { token: u.token });
    expect(logs.status).toBe(200);
    expect(logs.body).toHaveLength(4);
    expect(logs.body[0]).toMatchObject({ trigger: 'issue_hooks', url: `${base}${path}`, response_status: '200', response_body: 'ok thanks' });
    expect(logs.body[0].request_headers['X-Gitlab-Token']).toBe('[REDACTED]');
    expect(logs.body[0].response_headers['x-receiver']).toBe('yes');
    expect(logs.body[0].request_data.object_attributes.action).toBe('reopen');
    // Not stored in clear.
    const [row] = (await storageSql(`SELECT encrypted_token FROM web_hooks WHERE id = ${hook.id}`)) as { encrypted_token: string }[];
    expect(row.encrypted_token).toMatch(/^v1:/);
    expect(row.encrypted_token).not.toContain('hook-secret-1');
  });

  it('sends confidential issues only to hooks that take confidential issue events', async () => {
    const path = `/ok/${unique('c')}`;
    const { u, p } = await projectWithHook(path, { issues_events: true });
    const other = await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${base}${path}/conf`, push_events: false, confidential_issues_events: true } });
    expect(other.status).toBe(201);
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'secret', confidential: true } });
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'open one' } });
    await idle();
    expect(at(path).map((r) => r.body.object_attributes.title)).toEqual(['open one']);
    expect(at(`${path}/conf`).map((r) => [r.headers['x-gitlab-event'], r.body.event_type, r.body.object_attributes.title])).toEqual([['Confidential Issue Hook', 'confidential_issue', 'secret']]);
  });

  it('retries a failing receiver, records each attempt, and backs the hook off after three failures', async () => {
    const path = `/fail/${unique('f')}`;
    const { u, p, hook } = await projectWithHook(path, { issues_events: true });
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'will fail' } });
    await idle();
    // The first delivery and its retries (the in-process runner's three attempts).
    expect(at(path).length).toBe(3);
    expect(new Set(at(path).map((r) => r.headers['x-gitlab-webhook-uuid'])).size).toBe(1);
    let got = (await api(`/projects/${p.id}/hooks/${hook.id}`, { token: u.token })).body;
    expect(got.alert_status).toBe('executable');
    const logs = (await api(`/projects/${p.id}/hooks/${hook.id}/events?status=server_failure`, { token: u.token })).body;
    expect(logs.map((l: any) => [l.response_status, l.response_body])).toEqual([
      ['500', 'receiver broke'],
      ['500', 'receiver broke'],
      ['500', 'receiver broke'],
    ]);
    expect((await api(`/projects/${p.id}/hooks/${hook.id}/events?status=successful`, { token: u.token })).body).toEqual([]);
    // The fourth failure disables it for a while (WebHooks::AutoDisabling), and then nothing is sent.
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'fails again' } });
    await idle();
    got = (await api(`/projects/${p.id}/hooks/${hook.id}`, { token: u.token })).body;
    expect(got.alert_status).toBe('temporarily_disabled');
    expect(Date.parse(got.disabled_until)).toBeGreaterThan(Date.now());
    const sent = at(path).length;
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'not sent' } });
    await idle();
    expect(at(path).length).toBe(sent);
  });

  it('retries only the failing hook of an event: the others get it once', async () => {
    const ok = `/ok/${unique('m')}`;
    const { u, p } = await projectWithHook(ok, { issues_events: true });
    const fail = `/fail/${unique('m')}`;
    const ok2 = `/ok/${unique('m2')}`;
    for (const url of [fail, ok2]) expect((await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${base}${url}`, push_events: false, issues_events: true } })).status).toBe(201);
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'fan' } });
    await idle();
    expect([at(ok).length, at(ok2).length, at(fail).length]).toEqual([1, 1, 3]);
    expect(at(ok)[0].headers['x-gitlab-event-uuid']).toBe(at(fail)[0].headers['x-gitlab-event-uuid']);
    expect(at(ok)[0].headers['x-gitlab-webhook-uuid']).not.toBe(at(ok2)[0].headers['x-gitlab-webhook-uuid']);
  });

  it('sends nothing again for a redelivered message, and the sweep sends an event whose message was lost', async () => {
    const path = `/ok/${unique('r')}`;
    const { u, p } = await projectWithHook(path, { issues_events: true });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'once' } })).body;
    await idle();
    expect(at(path)).toHaveLength(1);
    const [delivery] = (await storageSql(`SELECT d.event_id, d.state FROM web_hook_deliveries d JOIN web_hook_events e ON e.id = d.event_id WHERE e.project_id = ${p.id}`)) as { event_id: number; state: string }[];
    expect(delivery.state).toBe('delivered');
    await sendJob({ type: 'web_hooks.deliver', id: unique('again'), eventId: delivery.event_id });
    await sendJob({ type: 'web_hooks.dispatch', id: unique('d'), projectIds: [p.id] });
    await idle();
    expect(at(path)).toHaveLength(1);

    // A write whose dispatch message never arrived: its outbox row waits for the sweep.
    await storageSql(
      `INSERT INTO web_hook_events (uuid, project_id, kind, action, object_id, actor_id, confidential, data, state, created_at) VALUES ('${crypto.randomUUID()}', ${p.id}, 'issue', 'update', ${issue.id}, ${u.id}, 0, '{"base":"http://localhost"}', 'pending', ${Date.now() - 60_000})`,
    );
    const { db, jobs, config, blobs } = await harnessApp();
    expect((await sweepWebHooks({ db, jobs, config, blobs })).events).toBeGreaterThanOrEqual(1);
    await idle();
    expect(at(path).map((r) => r.body.object_attributes.action)).toEqual(['open', 'update']);
  });

  it('POST .../events/:hook_log_id/resend sends a logged delivery again, as it was, for project and group hooks', async () => {
    const path = `/ok/${unique('rs')}`;
    const { u, p, hook } = await projectWithHook(path, { issues_events: true, token: 'rtok' });
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'resent' } });
    await idle();
    const [log] = (await api(`/projects/${p.id}/hooks/${hook.id}/events`, { token: u.token })).body;
    const res = await api(`/projects/${p.id}/hooks/${hook.id}/events/${log.id}/resend`, { method: 'POST', token: u.token });
    expect([res.status, res.body]).toEqual([201, { response_status: 200 }]);
    const [orig, again] = at(path);
    expect(again.body).toEqual(orig.body);
    // The same event and idempotency key, so the receiver can tell it is the same delivery.
    for (const h of ['x-gitlab-event', 'x-gitlab-event-uuid', 'idempotency-key', 'x-gitlab-token']) expect(again.headers[h]).toBe(orig.headers[h]);
    expect((await api(`/projects/${p.id}/hooks/${hook.id}/events`, { token: u.token })).body).toHaveLength(2);
    expect((await api(`/projects/${p.id}/hooks/${hook.id}/events/999999/resend`, { method: 'POST', token: u.token })).body).toEqual({ message: '404 Not found' });
    // Another hook's log is not found through this one.
    const fail = `/fail/${unique('rf')}`;
    const failing = (await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${base}${fail}`, push_events: false } })).body;
    expect((await api(`/projects/${p.id}/hooks/${failing.id}/events/${log.id}/resend`, { method: 'POST', token: u.token })).body).toEqual({ message: '404 Not found' });

    const gpath = unique('rg');
    const group = (await api('/groups', { token: u.token, body: { name: gpath, path: gpath } })).body;
    const gp = (await api('/projects', { token: u.token, body: { name: unique('rgp'), namespace_id: group.id } })).body;
    const gh = (await api(`/groups/${group.id}/hooks`, { token: u.token, body: { url: `${base}${fail}`, push_events: false, issues_events: true } })).body;
    await api(`/projects/${gp.id}/issues`, { token: u.token, body: { title: 'group resend' } });
    await idle();
    const glogs = (await api(`/groups/${group.id}/hooks/${gh.id}/events`, { token: u.token })).body;
    expect(glogs.length).toBeGreaterThanOrEqual(1);
    const gres = await api(`/groups/${group.id}/hooks/${gh.id}/events/${glogs[0].id}/resend`, { method: 'POST', token: u.token });
    // A receiver that fails still answers: 201 with its status (only no answer at all is a 422).
    expect([gres.status, gres.body]).toEqual([201, { response_status: 500 }]);
    expect(at(fail).at(-1)!.body.object_attributes.title).toBe('group resend');
    // A log of another hook is not this hook's.
    expect((await api(`/groups/${group.id}/hooks/${gh.id}/events/${log.id}/resend`, { method: 'POST', token: u.token })).body).toEqual({ message: '404 Not found' });
  });

  it('POST /groups/:id/hooks/:hook_id/test/:trigger runs the group hook with the first project that has commits', async () => {
    const u = await createUser();
    const gpath = unique('tg');
    const group = (await api('/groups', { token: u.token, body: { name: gpath, path: gpath } })).body;
    const path = `/ok/${unique('gt')}`;
    const hook = (await api(`/groups/${group.id}/hooks`, { token: u.token, body: { url: `${base}${path}`, push_events: false, token: 'gtok' } })).body;
    const test = (trigger: string) => api(`/groups/${group.id}/hooks/${hook.id}/test/${trigger}`, { method: 'POST', token: u.token });
    // TestHooks::GroupService: no project with commits yet (an empty project does not count).
    const empty = (await api('/projects', { token: u.token, body: { name: unique('ge'), namespace_id: group.id } })).body;
    expect([(await test('push_events')).status, (await test('push_events')).body]).toEqual([422, { message: 'Ensure the group has a project with commits.' }]);
    const p = (await api('/projects', { token: u.token, body: { name: unique('gp'), namespace_id: group.id } })).body;
    await api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'main', commit_message: 'first', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    await api(`/projects/${empty.id}/issues`, { token: u.token, body: { title: 'not this one' } });
    // Then ProjectService's samples, from that project only.
    expect((await test('issues_events')).body).toEqual({ message: 'Ensure the project has issues.' });
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'group sample' } });
    expect([(await test('issues_events')).status, (await test('push_events')).status]).toEqual([201, 201]);
    expect(at(path).map((r) => [r.headers['x-gitlab-event'], r.headers['x-gitlab-token'], r.body.project.id])).toEqual([
      ['Issue Hook', 'gtok', p.id],
      ['Push Hook', 'gtok', p.id],
    ]);
    expect(at(path)[0].body.object_attributes.title).toBe('group sample');
    // Not a group hook of this group: 404 (who may test is the authorization matrix's row).
    const ph = (await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${base}${path}`, push_events: false } })).body;
    expect((await api(`/groups/${group.id}/hooks/${ph.id}/test/push_events`, { method: 'POST', token: u.token })).body).toEqual({ message: '404 Not found' });
    const logs = (await api(`/groups/${group.id}/hooks/${hook.id}/events`, { token: u.token })).body;
    expect(logs.map((l: any) => l.trigger)).toEqual(['push_hooks', 'issue_hooks']);
  });

  it('POST .../test/:trigger runs the hook with the first issue, and refuses when there is nothing to send', async () => {
    const path = `/ok/${unique('t')}`;
    const { u, p, hook } = await projectWithHook(path, { token: 'tt' });
    const none = await api(`/projects/${p.id}/hooks/${hook.id}/test/issues_events`, { method: 'POST', token: u.token });
    expect([none.status, none.body]).toEqual([422, { message: 'Ensure the project has issues.' }]);
    const noMr = await api(`/projects/${p.id}/hooks/${hook.id}/test/merge_requests_events`, { method: 'POST', token: u.token });
    expect([noMr.status, noMr.body]).toEqual([422, { message: 'Ensure the project has merge requests.' }]);
    const bad = await api(`/projects/${p.id}/hooks/${hook.id}/test/nope_events`, { method: 'POST', token: u.token });
    expect([bad.status, bad.body]).toEqual([400, { error: 'trigger does not have a valid value' }]);
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'sample' } });
    const ok = await api(`/projects/${p.id}/hooks/${hook.id}/test/issues_events`, { method: 'POST', token: u.token });
    expect([ok.status, ok.body]).toEqual([201, { message: '201 Created' }]);
    // Sent at once (the hook does not take issue events: a test is forced), with its token.
    expect(at(path).map((r) => [r.headers['x-gitlab-event'], r.headers['x-gitlab-token'], r.body.object_attributes.title])).toEqual([['Issue Hook', 'tt', 'sample']]);
    const empty = await api(`/projects/${p.id}/hooks/${hook.id}/test/push_events`, { method: 'POST', token: u.token });
    expect([empty.status, empty.body]).toEqual([422, { message: 'Ensure the project has at least one commit.' }]);
    const commit = await api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'main', commit_message: 'first', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    expect(commit.status).toBe(201);
    const push = await api(`/projects/${p.id}/hooks/${hook.id}/test/push_events`, { method: 'POST', token: u.token });
    expect(push.status).toBe(201);
    expect(at(path)[1].body).toMatchObject({ object_kind: 'push', ref: 'refs/heads/main', project_id: p.id, total_commits_count: 1 });

    // Five tests a minute per project and user (web_hook_test_limit): the failing receiver is tested in another project.
    const other = await projectWithHook(`/ok/${unique('t2')}`, {});
    await api(`/projects/${other.p.id}/issues`, { token: other.u.token, body: { title: 'sample' } });
    const failing = await api(`/projects/${other.p.id}/hooks`, { token: other.u.token, body: { url: `${base}/fail/${unique('tf')}` } });
    const failed = await api(`/projects/${other.p.id}/hooks/${failing.body.id}/test/issues_events`, { method: 'POST', token: other.u.token });
    expect([failed.status, failed.body]).toEqual([422, { message: 'receiver broke' }]);
  });
});
