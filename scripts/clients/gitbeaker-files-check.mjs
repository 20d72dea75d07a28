// A @gitbeaker/rest user's repository files against this server, case by case (issue 18).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. @gitbeaker/core's RepositoryFiles (create, edit, remove,
// show, showRaw, allFileBlames; the path URL-encoded, camelCase options sent as snake_case) and Branches.create on an
// empty project.
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, check, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });
const text = async (body) => (typeof body === 'string' ? body : body instanceof Blob ? await body.text() : new TextDecoder().decode(body));

await testCase('Branches.create on an empty project: README.md on main first (201)', async () => {
  const project = await api.Projects.create({ name: `Gb Files ${TAG}`, path: `gb-files-${TAG}`, visibility: 'private' });
  const branch = await api.Branches.create(project.id, 'feature', 'main');
  eq([branch.name, branch.commit.message], ['feature', 'Add README.md'], 'branch');
  const readme = await api.RepositoryFiles.show(project.id, 'README.md', 'main');
  eq([readme.size, readme.last_commit_id], [0, branch.commit.id], 'README.md');
  state.project = project;
});

await testCase('RepositoryFiles.create / show / showRaw, with base64 and execute_filemode', async () => {
  const [project] = need('project');
  const made = await api.RepositoryFiles.create(project.id, 'src/main.ts', 'main', 'export {};\n', 'Add main', { authorName: 'Bo', authorEmail: 'bo@example.com' });
  eq(made, { file_path: 'src/main.ts', branch: 'main' }, 'create answer');
  await api.RepositoryFiles.create(project.id, 'run.sh', 'main', Buffer.from('#!/bin/sh\n').toString('base64'), 'Add run', { encoding: 'base64', executeFilemode: true });
  const file = await api.RepositoryFiles.show(project.id, 'src/main.ts', 'main');
  eq([file.file_name, Buffer.from(file.content, 'base64').toString()], ['main.ts', 'export {};\n'], 'show');
  const run = await api.RepositoryFiles.show(project.id, 'run.sh', 'main');
  eq([run.execute_filemode, Buffer.from(run.content, 'base64').toString()], [true, '#!/bin/sh\n'], 'show run.sh');
  eq(await text(await api.RepositoryFiles.showRaw(project.id, 'src/main.ts', 'main')), 'export {};\n', 'showRaw');
  await rejects(400, () => api.RepositoryFiles.create(project.id, 'src/main.ts', 'main', 'x', 'again'), 'A file with this name already exists');
  state.first = file.last_commit_id;
});

await testCase('RepositoryFiles.edit with last_commit_id (a stale one is refused), allFileBlames', async () => {
  const [project, first] = need('project', 'first');
  eq(await api.RepositoryFiles.edit(project.id, 'src/main.ts', 'main', 'export const a = 1;\n', 'Edit main', { lastCommitId: first }), { file_path: 'src/main.ts', branch: 'main' }, 'edit answer');
  await rejects(400, () => api.RepositoryFiles.edit(project.id, 'src/main.ts', 'main', 'x\n', 'stale', { lastCommitId: first }), 'changed since you started editing it');
  const blame = await api.RepositoryFiles.allFileBlames(project.id, 'src/main.ts', 'main');
  eq(blame.map((g) => [g.commit.message, g.lines]), [['Edit main', ['export const a = 1;']]], 'blame');
  check(/^[0-9a-f]{40}$/.test(blame[0].commit.id), 'blame commit id');
});

await testCase('RepositoryFiles.remove; a removed file is 404', async () => {
  const [project] = need('project');
  await api.RepositoryFiles.remove(project.id, 'src/main.ts', 'main', 'Remove main');
  await rejects(404, () => api.RepositoryFiles.show(project.id, 'src/main.ts', 'main'), 'File Not Found');
  await rejects(400, () => api.RepositoryFiles.remove(project.id, 'src/main.ts', 'main', 'again'), "A file with this name doesn't exist");
});

console.log('END');
