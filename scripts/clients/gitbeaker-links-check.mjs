// A @gitbeaker/rest user's linked issues and resource events against this server, case by case (issue 18 item 2).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. @gitbeaker/core has IssueLinks (all, create with
// target_project_id and target_issue_iid in the JSON body, remove) and the ResourceLabelEvents family
// (IssueLabelEvents, MergeRequestLabelEvents: all, show) with IssueStateEvents and IssueMilestoneEvents beside them.
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });

await testCase('Projects.create two projects; ProjectLabels and Issues.create three issues', async () => {
  const a = await api.Projects.create({ name: `Gb Links A ${TAG}`, visibility: 'private' });
  const b = await api.Projects.create({ name: `Gb Links B ${TAG}`, visibility: 'private' });
  await api.ProjectLabels.create(a.id, 'bug', '#cc0000');
  const i1 = await api.Issues.create(a.id, 'Checkout fails', { labels: 'bug' });
  const i2 = await api.Issues.create(a.id, 'Payment page');
  const i3 = await api.Issues.create(b.id, 'Fraud service');
  Object.assign(state, { a, b, i1, i2, i3 });
});

await testCase('IssueLinks.create (relates_to, then blocks across projects), 409 for the same pair', async () => {
  const [a, b, i1, i2, i3] = need('a', 'b', 'i1', 'i2', 'i3');
  const rel = await api.IssueLinks.create(a.id, i1.iid, a.id, i2.iid);
  eq([rel.link_type, rel.source_issue.id, rel.target_issue.id], ['relates_to', i1.id, i2.id], 'relates_to');
  const blk = await api.IssueLinks.create(a.id, i1.iid, b.id, i3.iid, { linkType: 'blocks' });
  eq([blk.link_type, blk.source_issue.id, blk.target_issue.id], ['blocks', i1.id, i3.id], 'blocks');
  await rejects(409, () => api.IssueLinks.create(a.id, i2.iid, a.id, i1.iid), 'already assigned');
});

await testCase('IssueLinks.all from either side; IssueLinks.remove', async () => {
  const [a, b, i1, i2, i3] = need('a', 'b', 'i1', 'i2', 'i3');
  const of1 = await api.IssueLinks.all(a.id, i1.iid);
  eq(of1.map((x) => [x.id, x.link_type]), [[i2.id, 'relates_to'], [i3.id, 'blocks']], 'links of i1');
  eq((await api.IssueLinks.all(b.id, i3.iid)).map((x) => [x.id, x.link_type]), [[i1.id, 'is_blocked_by']], 'links of i3');
  const removed = await api.IssueLinks.remove(a.id, i2.iid, of1[0].issue_link_id);
  eq(removed.link_type, 'relates_to', 'removed link');
  eq((await api.IssueLinks.all(a.id, i1.iid)).map((x) => x.id), [i3.id], 'links of i1 after removing');
  await rejects(404, () => api.IssueLinks.remove(a.id, i2.iid, of1[0].issue_link_id));
});

await testCase('IssueLabelEvents.all/show and IssueStateEvents.all after Issues.edit', async () => {
  const [a, i1] = need('a', 'i1');
  await api.Issues.edit(a.id, i1.iid, { removeLabels: 'bug', stateEvent: 'close' });
  const events = await api.IssueLabelEvents.all(a.id, i1.iid);
  eq(events.map((e) => [e.action, e.label.name, e.resource_type]), [['add', 'bug', 'Issue'], ['remove', 'bug', 'Issue']], 'label events');
  eq((await api.IssueLabelEvents.show(a.id, i1.iid, events[1].id)).action, 'remove', 'one label event');
  eq((await api.IssueStateEvents.all(a.id, i1.iid)).map((e) => e.state), ['closed'], 'state events');
});

await testCase('MergeRequestLabelEvents.all for a merge request created with a label', async () => {
  const [a] = need('a');
  await api.Commits.create(a.id, 'main', 'init', [{ action: 'create', filePath: 'README.md', content: 'hi' }]);
  await api.Commits.create(a.id, 'feature', 'work', [{ action: 'create', filePath: 'f.txt', content: 'x' }], { startBranch: 'main' });
  const mr = await api.MergeRequests.create(a.id, 'feature', 'main', 'Feature', { labels: 'bug' });
  eq((await api.MergeRequestLabelEvents.all(a.id, mr.iid)).map((e) => [e.action, e.label.name, e.resource_id]), [['add', 'bug', mr.id]], 'mr label events');
});

console.log('END');
