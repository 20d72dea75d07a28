// A @gitbeaker/rest user's environments and deployments workflow against this server, case by case (issue 16).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. Only the public Gitlab resource API of @gitbeaker/rest is
// used (Environments, Deployments, ProjectProtectedEnvironments; JSON bodies with keys decamelized, deeply).
//
// The story differs from the python-gitlab one where the clients differ: environments get a tier and are edited
// with PUT, deployments are edited (Deployments.edit) and removed (Deployments.remove, which python-gitlab 3.12
// lacks), and production is protected with an approval rule for maintainers that an approval names (representedAs).
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, check, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');
const SHA = /^[0-9a-f]{40}$/;
const ids = (xs) => xs.map((x) => x.id);

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });

async function newUser(prefix) {
  const username = `gb-${prefix}-${TAG}`;
  return api.Users.create({ email: `${username}@example.com`, username, name: `Gb ${prefix} ${TAG}`, password: `Pw-${randomBytes(8).toString('hex')}-x9`, skipConfirmation: true });
}

await testCase('deploy setup: users, project, developer and maintainer members, a README on main', async () => {
  const dev = await newUser('deployer');
  const lead = await newUser('lead');
  const project = await api.Projects.create({ name: `Gb Deploy ${TAG}`, visibility: 'private' });
  await api.ProjectMembers.add(project.id, 30, { userId: dev.id });
  await api.ProjectMembers.add(project.id, 40, { userId: lead.id });
  const readme = await api.Commits.create(project.id, 'main', 'Add README', [{ action: 'create', filePath: 'README.md', content: '# Gb\n' }]);
  check(SHA.test(readme.id), `commit id ${JSON.stringify(readme.id)}`);
  Object.assign(state, { dev, lead, project, readme });
});

await testCase('Environments.create (externalUrl, tier), all (name, search, states), show, edit (PUT)', async () => {
  const [project, dev] = need('project', 'dev');
  const qa = await api.Environments.create(project.id, 'qa-east', { externalUrl: 'https://qa.example.com', tier: 'testing', sudo: dev.username });
  eq([qa.name, qa.slug, qa.external_url, qa.tier, qa.state], ['qa-east', 'qa-east', 'https://qa.example.com', 'testing', 'available'], 'created');
  const other = await api.Environments.create(project.id, 'canary', { sudo: dev.username });
  eq(other.tier, 'other', 'tier guessed');
  eq((await api.Environments.all(project.id)).map((e) => e.name), ['qa-east', 'canary'], 'all');
  eq(ids(await api.Environments.all(project.id, { name: 'canary' })), [other.id], 'all({name})');
  eq(ids(await api.Environments.all(project.id, { search: 'qa-' })), [qa.id], 'all({search})');
  await rejects(400, () => api.Environments.all(project.id, { name: 'canary', search: 'can' }), 'name, search cannot be used together');
  const shown = await api.Environments.show(project.id, qa.id);
  eq([shown.id, shown.last_deployment], [qa.id, null], 'show');
  const edited = await api.Environments.edit(project.id, qa.id, { externalUrl: 'https://qa-east.example.com', tier: 'staging' });
  eq([edited.external_url, edited.tier, edited.name], ['https://qa-east.example.com', 'staging', 'qa-east'], 'edit');
  await rejects(400, () => api.Environments.edit(project.id, qa.id, { slug: 'mine' }), 'slug is automatically generated and cannot be changed');
  Object.assign(state, { qa, canary: other });
});

await testCase('Environments.stop, all({states}), remove; show answers 404 after', async () => {
  const [project, canary] = need('project', 'canary');
  // An available environment is not removed.
  await rejects(403, () => api.Environments.remove(project.id, canary.id));
  const stopped = await api.Environments.stop(project.id, canary.id);
  eq(stopped.state, 'stopped', 'stop');
  eq(ids(await api.Environments.all(project.id, { states: 'stopped' })), [canary.id], 'all({states})');
  await api.Environments.remove(project.id, canary.id);
  await rejects(404, () => api.Environments.show(project.id, canary.id), '404 Not found');
});

await testCase('Deployments.create (tag false, status running) as the developer; show; all with environment/status/orderBy/sort', async () => {
  const [project, dev, readme] = need('project', 'dev', 'readme');
  const d = await api.Deployments.create(project.id, 'qa-east', readme.id, 'main', false, { status: 'running', sudo: dev.username });
  eq([d.iid, d.status, d.sha, d.ref, d.user.username, d.environment.name, d.deployable], [1, 'running', readme.id, 'main', dev.username, 'qa-east', null], 'created');
  const failed = await api.Deployments.create(project.id, 'qa-east', 'main', 'main', false, { status: 'failed', sudo: dev.username });
  eq([failed.iid, failed.status, failed.sha], [2, 'failed', readme.id], 'a branch name for sha resolves to its head');
  eq((await api.Deployments.show(project.id, d.id)).status, 'running', 'show');
  eq(ids(await api.Deployments.all(project.id, { orderBy: 'id', sort: 'desc' })), [failed.id, d.id], 'all desc');
  eq(ids(await api.Deployments.all(project.id, { environment: 'qa-east', status: 'running' })), [d.id], 'all({environment, status})');
  await rejects(400, () => api.Deployments.all(project.id, { orderBy: 'name' }), 'order_by does not have a valid value');
  await rejects(400, () => api.Deployments.create(project.id, 'qa-east', readme.id, 'no-such-branch', false, { status: 'running' }), 'The branch or tag does not exist');
  Object.assign(state, { first: d, failed });
});

await testCase('Deployments.edit to success; finished_at filters with their pairing; Environments.show names the last deployment', async () => {
  const [project, first, dev, qa] = need('project', 'first', 'dev', 'qa');
  const done = await api.Deployments.edit(project.id, first.id, 'success', { sudo: dev.username });
  eq(done.status, 'success', 'edit');
  await rejects(400, () => api.Deployments.edit(project.id, first.id, 'running'), 'cannot transition via \\"run\\"');
  const future = new Date(Date.now() + 3_600_000).toISOString();
  eq(ids(await api.Deployments.all(project.id, { status: 'success', orderBy: 'finished_at', finishedBefore: future })), [first.id], 'finishedBefore');
  await rejects(400, () => api.Deployments.all(project.id, { orderBy: 'finished_at', finishedBefore: future }), '`finished_at` filter must be combined with `success` status filter.');
  await rejects(400, () => api.Deployments.all(project.id, { status: 'success', orderBy: 'finished_at', finishedBefore: future, updatedAfter: future }), 'Both `updated_at` filter and `finished_at` filter can not be specified');
  eq((await api.Environments.show(project.id, qa.id)).last_deployment.id, first.id, 'last_deployment');
});

await testCase('Deployments.remove: a failed deployment goes (204); the current one and a running one stay (400)', async () => {
  const [project, first, failed, dev, readme] = need('project', 'first', 'failed', 'dev', 'readme');
  await rejects(403, () => api.Deployments.remove(project.id, failed.id, { sudo: dev.username }));
  await api.Deployments.remove(project.id, failed.id);
  await rejects(404, () => api.Deployments.show(project.id, failed.id));
  await rejects(400, () => api.Deployments.remove(project.id, first.id), 'Deployment currently deployed to environment');
  const running = await api.Deployments.create(project.id, 'qa-east', readme.id, 'main', false, { status: 'running' });
  await rejects(400, () => api.Deployments.remove(project.id, running.id), 'Cannot destroy running deployment');
  await api.Deployments.edit(project.id, running.id, 'canceled');
});

await testCase('a merged merge request ships with the next success: Deployments.allMergeRequests; MergeRequests.all({environment})', async () => {
  const [project, dev] = need('project', 'dev');
  await api.Branches.create(project.id, 'fix', 'main', { sudo: dev.username });
  await api.Commits.create(project.id, 'fix', 'Fix', [{ action: 'create', filePath: 'fix.txt', content: 'fixed\n' }], { sudo: dev.username });
  const mr = await api.MergeRequests.create(project.id, 'fix', 'main', 'The fix', { sudo: dev.username });
  eq((await api.MergeRequests.merge(project.id, mr.iid)).state, 'merged', 'merged');
  const d = await api.Deployments.create(project.id, 'qa-east', 'main', 'main', false, { status: 'success', sudo: dev.username });
  eq((await api.Deployments.allMergeRequests(project.id, d.id)).map((m) => [m.iid, m.state]), [[mr.iid, 'merged']], 'allMergeRequests');
  eq((await api.Deployments.allMergeRequests(project.id, d.id, { view: 'simple' })).map((m) => Object.keys(m).includes('author')), [false], 'simple view');
  eq((await api.MergeRequests.all({ projectId: project.id, environment: 'qa-east' })).map((m) => m.iid), [mr.iid], 'MergeRequests.all({projectId, environment})');
  eq(await api.MergeRequests.all({ projectId: project.id, environment: 'qa-east', deployedBefore: '2000-01-01T00:00:00Z' }), [], 'deployedBefore');
});

await testCase('ProjectProtectedEnvironments.create prod with an approval rule for maintainers; all; show', async () => {
  const [project] = need('project');
  const pe = await api.ProjectProtectedEnvironments.create(project.id, 'prod', [{ accessLevel: 30 }], { approvalRules: [{ accessLevel: 40, requiredApprovals: 1 }] });
  eq([pe.name, pe.deploy_access_levels.map((a) => a.access_level), pe.approval_rules.map((r) => [r.access_level, r.required_approvals])], ['prod', [30], [[40, 1]]], 'protected');
  eq((await api.ProjectProtectedEnvironments.all(project.id)).map((p) => p.name), ['prod'], 'all');
  eq((await api.ProjectProtectedEnvironments.show(project.id, 'prod')).approval_rules.length, 1, 'show');
});

await testCase('a deployment to prod waits blocked; setApproval: the deployer is refused, the maintainer representing Maintainers unblocks it', async () => {
  const [project, dev, lead, readme] = need('project', 'dev', 'lead', 'readme');
  const d = await api.Deployments.create(project.id, 'prod', readme.id, 'main', false, { status: 'running', sudo: dev.username });
  eq([d.status, d.pending_approval_count, d.approval_summary.rules.map((r) => r.access_level_description)], ['blocked', 1, ['Maintainers']], 'blocked');
  await rejects(400, () => api.Deployments.setApproval(project.id, d.id, 'approved', { sudo: dev.username }), 'You cannot approve your own deployment.');
  await rejects(400, () => api.Deployments.setApproval(project.id, d.id, 'approved', { representedAs: 'Owners', sudo: lead.username }), 'There are no approval rules for the given `represent_as` parameter.');
  const approval = await api.Deployments.setApproval(project.id, d.id, 'approved', { comment: 'LGTM', representedAs: 'Maintainers', sudo: lead.username });
  eq([approval.status, approval.comment, approval.user.username], ['approved', 'LGTM', lead.username], 'approval');
  const got = await api.Deployments.show(project.id, d.id);
  eq([got.status, got.pending_approval_count, got.approval_summary.rules[0].deployment_approvals.map((a) => a.user.username)], ['created', 0, [lead.username]], 'unblocked');
  eq((await api.Deployments.edit(project.id, d.id, 'running', { sudo: dev.username })).status, 'running', 'runs');
});

await testCase('ProjectProtectedEnvironments.remove unprotects prod: the next deployment is not blocked', async () => {
  const [project, dev, readme] = need('project', 'dev', 'readme');
  await api.ProjectProtectedEnvironments.remove(project.id, 'prod');
  eq(await api.ProjectProtectedEnvironments.all(project.id), [], 'none left');
  const d = await api.Deployments.create(project.id, 'prod', readme.id, 'main', false, { status: 'running', sudo: dev.username });
  eq(d.status, 'running', 'not blocked');
});

console.log('END');
