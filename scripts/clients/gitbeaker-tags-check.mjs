// A @gitbeaker/rest user's tags, protected tags, merge base, commit refs and archives against this server, case by
// case (issue 18).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. Tags.create sends `tag_name` and `ref` as query parameters
// of the POST (the message in the body); Repositories.mergeBase sends `refs[]`; Repositories.showArchive asks for
// `archive.<fileType>`; Commits.allReferences reads `commits/:sha/refs`.
import { randomBytes } from 'node:crypto';
import { unzipSync } from 'fflate';
import { Gitlab } from '@gitbeaker/rest';
import { state, check, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');

const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });

await testCase('setup: Projects.create and Commits.create on main and a feature branch', async () => {
  const project = await api.Projects.create({ name: `gb-tags-${TAG}` });
  const base = await api.Commits.create(project.id, 'main', 'init', [{ action: 'create', filePath: 'README.md', content: 'hello\n' }]);
  const feature = await api.Commits.create(project.id, 'feature', 'feature', [{ action: 'create', filePath: 'f.txt', content: 'f\n' }], { startBranch: 'main' });
  Object.assign(state, { project, base: base.id, feature: feature.id });
});

await testCase('Tags.create (lightweight, then annotated with a message), Tags.show, Tags.all', async () => {
  const [project, base, feature] = need('project', 'base', 'feature');
  const light = await api.Tags.create(project.id, 'v1.0.0', 'main');
  eq([light.name, light.message, light.target, light.commit.id, light.protected], ['v1.0.0', null, base, base, false], 'lightweight tag');
  const annotated = await api.Tags.create(project.id, 'v2.0.0', 'feature', { message: 'Two' });
  eq([annotated.message, annotated.commit.id], ['Two', feature], 'annotated tag');
  check(annotated.target !== feature, 'an annotated tag targets its tag object');
  eq((await api.Tags.show(project.id, 'v2.0.0')).message, 'Two', 'show');
  eq((await api.Tags.all(project.id, { orderBy: 'version', sort: 'asc' })).map((t) => t.name), ['v1.0.0', 'v2.0.0'], 'all by version');
  await rejects(400, () => api.Tags.create(project.id, 'v1.0.0', 'main'), 'already exists');
});

await testCase('ProtectedTags.create protects v*: tags show protected, ProtectedTags.all and remove', async () => {
  const [project] = need('project');
  const rule = await api.ProtectedTags.create(project.id, 'v3*', { createAccessLevel: 40 });
  eq([rule.name, rule.create_access_levels[0].access_level], ['v3*', 40], 'rule');
  eq((await api.Tags.create(project.id, 'v3.0.0', 'main')).protected, true, 'protected');
  eq((await api.ProtectedTags.all(project.id)).map((r) => r.name), ['v3*'], 'all');
  await api.ProtectedTags.remove(project.id, 'v3*');
  eq((await api.Tags.show(project.id, 'v3.0.0')).protected, false, 'no longer protected');
});

await testCase('Repositories.mergeBase and Commits.allReferences', async () => {
  const [project, base, feature] = need('project', 'base', 'feature');
  eq((await api.Repositories.mergeBase(project.id, ['main', 'feature'])).id, base, 'merge base');
  await rejects(400, () => api.Repositories.mergeBase(project.id, ['main']), 'Provide at least 2 refs');
  eq(await api.Commits.allReferences(project.id, feature), [{ type: 'branch', name: 'feature' }, { type: 'tag', name: 'v2.0.0' }], 'refs of the feature commit');
  eq(await api.Commits.allReferences(project.id, base, { type: 'branch' }), [{ type: 'branch', name: 'feature' }, { type: 'branch', name: 'main' }], 'branches of the base commit');
});

await testCase('Repositories.showArchive({ fileType: "zip" }) unpacks to the files', async () => {
  const [project, base] = need('project', 'base');
  const blob = await api.Repositories.showArchive(project.id, { fileType: 'zip', sha: 'v1.0.0' });
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const files = unzipSync(bytes);
  eq(new TextDecoder().decode(files[`${project.path}-v1.0.0-${base}/README.md`]), 'hello\n', 'README.md');
});

await testCase('Tags.remove deletes; the tag is gone', async () => {
  const [project] = need('project');
  await api.Tags.remove(project.id, 'v1.0.0');
  await rejects(404, () => api.Tags.show(project.id, 'v1.0.0'), '404 Tag Not Found');
});

console.log('END');
