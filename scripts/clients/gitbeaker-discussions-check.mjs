// A @gitbeaker/rest user's discussions against this server, case by case (issue 18).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. @gitbeaker/core's IssueDiscussions, MergeRequestDiscussions
// and CommitDiscussions (ResourceDiscussions: all, show, create, addNote, editNote, removeNote; MergeRequestDiscussions
// .resolve sends `resolved` in the query of its PUT; a `position` goes as a form body, `position[base_sha]=...`).
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { check, state, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });

await testCase('Projects.create; Commits.create a file; Issues.create', async () => {
  const project = await api.Projects.create({ name: `gb-disc-${TAG}`, visibility: 'private' });
  const init = await api.Commits.create(project.id, 'main', 'init', [{ action: 'create', filePath: 'app.js', content: 'const a = 1;\nconst b = 2;\n' }]);
  const issue = await api.Issues.create(project.id, 'Flaky test');
  Object.assign(state, { project, init, issue });
});

await testCase('IssueDiscussions.create, addNote, editNote, all, show, removeNote', async () => {
  const [project, issue] = need('project', 'issue');
  const d = await api.IssueDiscussions.create(project.id, issue.iid, 'Seen on CI?');
  check(/^[0-9a-f]{40}$/.test(d.id), `discussion id ${JSON.stringify(d.id)}`);
  eq([d.individual_note, d.notes.map((n) => n.type)], [false, ['DiscussionNote']], 'new thread');
  const reply = await api.IssueDiscussions.addNote(project.id, issue.iid, d.id, 'Twice');
  const edited = await api.IssueDiscussions.editNote(project.id, issue.iid, d.id, reply.id, { body: 'Three times' });
  eq(edited.body, 'Three times', 'editNote');
  const all = await api.IssueDiscussions.all(project.id, issue.iid);
  eq(all.filter((x) => x.id === d.id).map((x) => x.notes.map((n) => n.body)), [['Seen on CI?', 'Three times']], 'all');
  await api.IssueDiscussions.removeNote(project.id, issue.iid, d.id, reply.id);
  eq((await api.IssueDiscussions.show(project.id, issue.iid, d.id)).notes.length, 1, 'after removeNote');
  await rejects(404, () => api.IssueDiscussions.show(project.id, issue.iid, 'f'.repeat(40)), 'Discussion Not Found');
});

await testCase('MergeRequestDiscussions.create with a position (form body), resolve, editNote resolved', async () => {
  const [project] = need('project');
  await api.Branches.create(project.id, 'feature', 'main');
  await api.Commits.create(project.id, 'feature', 'b', [{ action: 'update', filePath: 'app.js', content: 'const a = 1;\nconst b = 3;\n' }]);
  const created = await api.MergeRequests.create(project.id, 'feature', 'main', 'Bump b');
  const mr = await api.MergeRequests.show(project.id, created.iid);
  const refs = mr.diff_refs;
  const position = { baseSha: refs.base_sha, startSha: refs.start_sha, headSha: refs.head_sha, positionType: 'text', oldPath: 'app.js', newPath: 'app.js', newLine: 2 };
  const d = await api.MergeRequestDiscussions.create(project.id, mr.iid, 'Why 3?', { position });
  const note = d.notes[0];
  eq([note.type, note.position.new_line, note.position.old_line, note.resolvable, note.resolved], ['DiffNote', 2, null, true, false], 'diff note');
  await rejects(400, () => api.MergeRequestDiscussions.create(project.id, mr.iid, 'x', { position: { ...position, newLine: 40 } }), 'line_code');
  const resolved = await api.MergeRequestDiscussions.resolve(project.id, mr.iid, d.id, true);
  eq(resolved.notes.map((n) => n.resolved), [true], 'resolve');
  const reopened = await api.MergeRequestDiscussions.editNote(project.id, mr.iid, d.id, note.id, { resolved: false });
  eq([reopened.resolved, reopened.resolved_by], [false, null], 'editNote resolved: false');
  eq((await api.MergeRequests.show(project.id, mr.iid)).blocking_discussions_resolved, true, 'not blocking without the project setting');
});

await testCase('CommitDiscussions.create, addNote, all', async () => {
  const [project, init] = need('project', 'init');
  const d = await api.CommitDiscussions.create(project.id, init.id, 'First!');
  eq([d.notes[0].noteable_type, d.notes[0].noteable_id], ['Commit', null], 'commit note');
  await api.CommitDiscussions.addNote(project.id, init.id, d.id, 'Welcome');
  const all = await api.CommitDiscussions.all(project.id, init.id);
  eq(all.filter((x) => x.id === d.id).map((x) => x.notes.length), [2], 'CommitDiscussions.all');
});

console.log('END');
