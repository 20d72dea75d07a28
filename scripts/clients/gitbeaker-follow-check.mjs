// A @gitbeaker/rest user's linked epics and dependency list against this server, case by case (issue 16).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. The instance runs on the Ultimate plan (the server's
// default INSTANCE_PLAN). @gitbeaker/core has LinkedEpics (all, create, remove: create sends target_group_id and
// target_epic_iid as query parameters of the POST) and Epics; it has no resource for a group's epic links or a
// project's dependencies, which are read with a plain fetch (what a gitbeaker user does for an endpoint it lacks).
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');
const SHA = /^[0-9a-f]{40}$/;
const ids = (xs) => xs.map((x) => x.id);

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });

/** GET of an endpoint gitbeaker has no resource for: the parsed body, with the status and X-Total. */
async function raw(path) {
  const res = await fetch(`${URL}/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': ROOT } });
  return { status: res.status, total: res.headers.get('x-total'), body: await res.json() };
}
const brief = (rows) => rows.map((d) => `${d.dependency_file_path} ${d.package_manager} ${d.name}@${d.version}`);

const PACKAGE_LOCK = JSON.stringify({
  name: 'app',
  version: '1.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'app', version: '1.0.0', dependencies: { lodash: '^4.17.20' } },
    'node_modules/lodash': { version: '4.17.20', resolved: 'https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz' },
  },
}, null, 2);
const YARN_LOCK = '# yarn lockfile v1\n\n\nleft-pad@^1.3.0:\n  version "1.3.0"\n  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz"\n';

await testCase('Groups.create a group and a subgroup; Epics.create three epics', async () => {
  const top = await api.Groups.create(`Gb Epics ${TAG}`, `gb-epics-${TAG}`, { visibility: 'private' });
  const sub = await api.Groups.create('Sub', `gb-sub-${TAG}`, { parentId: top.id, visibility: 'private' });
  const a = await api.Epics.create(top.id, 'Checkout');
  const b = await api.Epics.create(top.id, 'Payments');
  const c = await api.Epics.create(sub.id, 'Fraud checks');
  eq([a.group_id, c.group_id], [top.id, sub.id], 'epics');
  Object.assign(state, { top, sub, a, b, c });
});

await testCase('LinkedEpics.create (query parameters; relates_to by default, blocks across groups), refusals', async () => {
  const [top, sub, a, b, c] = need('top', 'sub', 'a', 'b', 'c');
  const ab = await api.LinkedEpics.create(top.id, a.iid, b.iid, top.id);
  eq([ab.link_type, ab.source_epic.id, ab.target_epic.id], ['relates_to', a.id, b.id], 'a relates to b');
  const ac = await api.LinkedEpics.create(top.id, a.iid, c.iid, sub.full_path, { linkType: 'blocks' });
  eq([ac.link_type, ac.target_epic.group_id], ['blocks', sub.id], 'a blocks c');
  await rejects(409, () => api.LinkedEpics.create(top.id, b.iid, a.iid, top.id), 'already assigned');
  await rejects(404, () => api.LinkedEpics.create(top.id, a.iid, 999999, top.id));
  Object.assign(state, { ab, ac });
});

await testCase('LinkedEpics.all from either side; the group links with a plain fetch', async () => {
  const [top, sub, a, b, c, ab, ac] = need('top', 'sub', 'a', 'b', 'c', 'ab', 'ac');
  const ofA = await api.LinkedEpics.all(top.id, a.iid);
  eq(ofA.map((e) => [e.id, e.link_type]).sort(), [[b.id, 'relates_to'], [c.id, 'blocks']].sort(), "a's related epics");
  eq((await api.LinkedEpics.all(sub.id, c.iid)).map((e) => [e.id, e.link_type]), [[a.id, 'is_blocked_by']], "c's related epics");
  const links = await raw(`/groups/${top.id}/related_epic_links?per_page=1`);
  eq([links.status, links.total, links.body.length], [200, '2', 1], 'first page of the group links');
  eq((await raw(`/groups/${encodeURIComponent(top.full_path)}/related_epic_links`)).body.map((l) => l.id).sort(), [ab.id, ac.id].sort(), 'by path');
});

await testCase('LinkedEpics.remove unlinks; the link is gone from both lists', async () => {
  const [top, a, b, ab, ac] = need('top', 'a', 'b', 'ab', 'ac');
  await api.LinkedEpics.remove(top.id, a.iid, ab.id);
  eq(await api.LinkedEpics.all(top.id, b.iid), [], "b's related epics");
  eq((await raw(`/groups/${top.id}/related_epic_links`)).body.map((l) => l.id), [ac.id], 'group links');
  await rejects(404, () => api.LinkedEpics.remove(top.id, a.iid, ab.id));
});

await testCase('dependencies: Commits.create lockfiles; the list with package_manager (comma-separated and package_manager[])', async () => {
  const project = await api.Projects.create({ name: `Gb Deps ${TAG}`, visibility: 'private' });
  await api.Commits.create(project.id, 'main', 'Lockfiles', [
    { action: 'create', filePath: 'package-lock.json', content: PACKAGE_LOCK },
    { action: 'create', filePath: 'web/yarn.lock', content: YARN_LOCK },
  ]);
  const all = await raw(`/projects/${project.id}/dependencies`);
  eq([all.status, brief(all.body)], [200, ['package-lock.json npm lodash@4.17.20', 'web/yarn.lock yarn left-pad@1.3.0']], 'dependencies');
  eq(brief((await raw(`/projects/${project.id}/dependencies?package_manager=yarn`)).body), ['web/yarn.lock yarn left-pad@1.3.0'], 'yarn');
  eq((await raw(`/projects/${project.id}/dependencies?package_manager=npm,yarn`)).body.length, 2, 'comma-separated');
  eq((await raw(`/projects/${project.id}/dependencies?package_manager[]=npm&package_manager[]=yarn`)).body.length, 2, 'package_manager[]');
  eq((await raw(`/projects/${project.id}/dependencies?package_manager=npmx`)).status, 400, 'unknown package manager');
  Object.assign(state, { project });
});

await testCase('dependencies follow MergeRequests.merge and Projects.edit(defaultBranch)', async () => {
  const [project] = need('project');
  await api.Branches.create(project.id, 'drop-yarn', 'main');
  await api.Commits.create(project.id, 'drop-yarn', 'Drop yarn', [{ action: 'delete', filePath: 'web/yarn.lock' }]);
  const mr = await api.MergeRequests.create(project.id, 'drop-yarn', 'main', 'Drop yarn');
  eq((await api.MergeRequests.merge(project.id, mr.iid, { squash: true })).state, 'merged', 'merged');
  eq(brief((await raw(`/projects/${project.id}/dependencies`)).body), ['package-lock.json npm lodash@4.17.20'], 'after the merge');
  await api.Branches.create(project.id, 'yarn-only', 'main');
  await api.Commits.create(project.id, 'yarn-only', 'Yarn again', [
    { action: 'delete', filePath: 'package-lock.json' },
    { action: 'create', filePath: 'yarn.lock', content: YARN_LOCK },
  ]);
  eq((await api.Projects.edit(project.id, { defaultBranch: 'yarn-only' })).default_branch, 'yarn-only', 'edited');
  eq(brief((await raw(`/projects/${project.id}/dependencies`)).body), ['yarn.lock yarn left-pad@1.3.0'], 'after the new default branch');
});

console.log('END');
