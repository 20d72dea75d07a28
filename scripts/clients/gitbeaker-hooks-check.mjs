// A @gitbeaker/rest maintainer's project webhooks against this server, case by case (issue 18 item 4).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. ProjectHooks: add, all, show, edit, remove (camelCase
// options sent as snake_case); GroupHooks add/remove; the test trigger, events and resend of both over the requester.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Gitlab } from '@gitbeaker/rest';
import { state, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');
const HOOK = 'https://example.com/hooks/gb';
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });

await testCase('Projects.create; ProjectHooks.add with flags and a token never shown', async () => {
  const project = await api.Projects.create({ name: `gb-hooks-${TAG}` });
  const hook = await api.ProjectHooks.add(project.id, HOOK, { pushEvents: false, issuesEvents: true, token: `gb-secret-${TAG}` });
  eq([hook.url, hook.push_events, hook.issues_events, hook.project_id], [HOOK, false, true, project.id], 'hook');
  eq('token' in hook, false, 'no token field');
  Object.assign(state, { project, hook });
});

await testCase('ProjectHooks.all and ProjectHooks.show', async () => {
  const [project, hook] = need('project', 'hook');
  eq((await api.ProjectHooks.all(project.id)).map((h) => h.id), [hook.id], 'all');
  eq((await api.ProjectHooks.show(project.id, hook.id)).alert_status, 'executable', 'show');
});

await testCase('ProjectHooks.edit; a local URL is refused with 422', async () => {
  const [project, hook] = need('project', 'hook');
  const edited = await api.ProjectHooks.edit(project.id, hook.id, HOOK, { noteEvents: true, pushEventsBranchFilter: 'main' });
  eq([edited.note_events, edited.push_events_branch_filter, edited.issues_events], [true, 'main', true], 'edited');
  await rejects(422, () => api.ProjectHooks.edit(project.id, hook.id, 'http://localhost/x'), 'Invalid url given');
});

// The late hook routes: gitbeaker 43 has no method for a hook's test trigger, its events or their resend (ResourceHooks
// is add/all/edit/remove/show), so they go through a requester (`raw`). They deliver for real, to a
// receiver this script runs on 127.0.0.1, with local hook requests allowed for these cases only.
// ApplicationSettings has no path prefix of its own (ProjectHooks would put `projects/` before every path).
const requester = api.ApplicationSettings.requester;
const raw = {
  get: async (path, options = {}) => (await requester.get(path, options)).body,
  post: async (path, body = {}) => (await requester.post(path, { body })).body,
};
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ path: req.url, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
    res.end('gb ok');
  });
});
const delivered = (path) => received.filter((r) => r.path === path);

await testCase('setup: a receiver on 127.0.0.1, local hook requests allowed, a hook to it and an issue', async () => {
  const [project] = need('project');
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const before = (await api.ApplicationSettings.show()).allow_local_requests_from_web_hooks_and_services;
  await api.ApplicationSettings.edit({ allowLocalRequestsFromWebHooksAndServices: true });
  const base = `http://127.0.0.1:${receiver.address().port}`;
  const hook = await api.ProjectHooks.add(project.id, `${base}/project`, { pushEvents: false, issuesEvents: true });
  await api.Issues.create(project.id, 'sample for the test trigger');
  Object.assign(state, { localBefore: before, base, localHook: hook });
});

await testCase('POST .../hooks/:id/test/issues_events: 201 Created, an Issue Hook delivered', async () => {
  const [project, hook] = need('project', 'localHook');
  eq(await raw.post(`projects/${project.id}/hooks/${hook.id}/test/issues_events`), { message: '201 Created' }, 'answer');
  const [got] = delivered('/project');
  eq([got?.headers['x-gitlab-event'], got?.body.object_kind, got?.body.object_attributes.title], ['Issue Hook', 'issue', 'sample for the test trigger'], 'delivered');
});

await testCase('GET .../hooks/:id/events, then POST .../events/:log_id/resend', async () => {
  const [project, hook, base] = need('project', 'localHook', 'base');
  const [log, ...more] = await raw.get(`projects/${project.id}/hooks/${hook.id}/events`);
  eq([more.length, log.url, log.trigger, log.response_status, log.request_data.object_kind], [0, `${base}/project`, 'issue_hooks', '200', 'issue'], 'log');
  eq(await raw.post(`projects/${project.id}/hooks/${hook.id}/events/${log.id}/resend`), { response_status: 200 }, 'resend');
  const [first, again] = delivered('/project');
  eq([again?.body, again?.headers['idempotency-key']], [first.body, first.headers['idempotency-key']], 'sent again as it was');
  eq((await raw.get(`projects/${project.id}/hooks/${hook.id}/events`)).length, 2, 'logged again');
});

await testCase('group hook: test/push_events, events and resend; GroupHooks.add/remove', async () => {
  const [base] = need('base');
  const group = await api.Groups.create(`gb-hooks-g-${TAG}`, `gb-hooks-g-${TAG}`);
  state.group = group;
  const inner = await api.Projects.create({ name: `gb-hooks-in-${TAG}`, namespaceId: group.id });
  await api.RepositoryFiles.create(inner.id, 'README.md', 'main', 'hi', 'first');
  const hook = await api.GroupHooks.add(group.id, `${base}/group`, { pushEvents: true });
  eq(await raw.post(`groups/${group.id}/hooks/${hook.id}/test/push_events`), { message: '201 Created' }, 'test answer');
  const [got] = delivered('/group');
  eq([got?.headers['x-gitlab-event'], got?.body.project_id], ['Push Hook', inner.id], 'delivered');
  const [log] = await raw.get(`groups/${group.id}/hooks/${hook.id}/events`);
  eq([log.trigger, log.response_status], ['push_hooks', '200'], 'group log');
  eq(await raw.post(`groups/${group.id}/hooks/${hook.id}/events/${log.id}/resend`), { response_status: 200 }, 'resend');
  eq(delivered('/group').length, 2, 'resent');
  await api.GroupHooks.remove(group.id, hook.id);
  await rejects(404, () => raw.get(`groups/${group.id}/hooks/${hook.id}/events`));
});

await testCase('teardown: local hook requests as they were', async () => {
  const [before] = need('localBefore');
  await api.ApplicationSettings.edit({ allowLocalRequestsFromWebHooksAndServices: before });
  eq((await api.ApplicationSettings.show()).allow_local_requests_from_web_hooks_and_services, before, 'restored');
  if (state.group) await api.Groups.remove(state.group.id);
});
receiver.close();

await testCase('ProjectHooks.remove', async () => {
  const [project, hook] = need('project', 'hook');
  await api.ProjectHooks.remove(project.id, hook.id);
  eq((await api.ProjectHooks.all(project.id)).map((h) => h.id), state.localHook ? [state.localHook.id] : [], 'only the local one left');
  await rejects(404, () => api.ProjectHooks.show(project.id, hook.id));
  await api.Projects.remove(project.id);
});

console.log('END');
