// A @gitbeaker/rest maintainer's project webhooks against this server, case by case (issue 18 item 4).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. ProjectHooks: add, all, show, edit, remove (camelCase
// options sent as snake_case). The hooks take no event this script causes, so nothing is delivered.
import { randomBytes } from 'node:crypto';
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

await testCase('ProjectHooks.remove', async () => {
  const [project, hook] = need('project', 'hook');
  await api.ProjectHooks.remove(project.id, hook.id);
  eq(await api.ProjectHooks.all(project.id), [], 'none left');
  await rejects(404, () => api.ProjectHooks.show(project.id, hook.id));
  await api.Projects.remove(project.id);
});

console.log('END');
