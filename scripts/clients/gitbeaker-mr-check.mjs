// A @gitbeaker/rest user's merge request workflow against this server, case by case.
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment, after
// gitbeaker-check.mjs. Prints `PASS <case>` or `FAIL <case> :: <reason>` per case and `END` when done.
// Only the public Gitlab resource API of @gitbeaker/rest is used (JSON bodies with keys decamelized, deeply).
//
// The story differs from the python-gitlab one where the clients differ: commits move and delete files, main is
// protected through the query string (gitbeaker sends ProtectedBranches.create's options as search params), the
// merge request gets its own rule copied from a project rule (source_rule, overridden, approval_rules_overwritten),
// the project requires the approver's password, and the merge request is edited (draft, labels, close/reopen)
// before it is merged with the HEAD sha and closes the issue its description names with "Fixes #n".
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, check, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');
const SHA = /^[0-9a-f]{40}$/;
const usernames = (users) => users.map((u) => u.username).sort();
const approvedBy = (approvals) => approvals.approved_by.map((a) => a.user.username).sort();

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });
const passwords = {};

async function newUser(prefix) {
  const username = `gb-${prefix}-${TAG}`;
  const password = `Pw-${randomBytes(8).toString('hex')}-x9`;
  passwords[username] = password;
  return api.Users.create({ email: `${username}@example.com`, username, name: `Gb ${prefix} ${TAG}`, password, skipConfirmation: true });
}

await testCase('mr setup: users, project, developer and maintainer members', async () => {
  const author = await newUser('mrauthor');
  const approver = await newUser('approver');
  const lead = await newUser('lead');
  const project = await api.Projects.create({ name: `Gb MR ${TAG}`, visibility: 'private' });
  await api.ProjectMembers.add(project.id, 30, { userId: author.id });
  await api.ProjectMembers.add(project.id, 30, { userId: approver.id });
  await api.ProjectMembers.add(project.id, 40, { userId: lead.id });
  Object.assign(state, { author, approver, lead, project });
});

await testCase('ProtectedBranches.create main before any commit (options in the query string), show; edit (PATCH) adds a user allowed to merge', async () => {
  const [project, lead] = need('project', 'lead');
  const pb = await api.ProtectedBranches.create(project.id, 'main', { pushAccessLevel: 40, mergeAccessLevel: 30 });
  eq(pb.name, 'main', 'name');
  eq(pb.push_access_levels.map((a) => [a.access_level, a.access_level_description]), [[40, 'Maintainers']], 'push levels');
  eq(pb.merge_access_levels.map((a) => [a.access_level, a.access_level_description]), [[30, 'Developers + Maintainers']], 'merge levels');
  eq((await api.ProtectedBranches.show(project.id, 'main')).merge_access_levels.length, 1, 'show');
  const edited = await api.ProtectedBranches.edit(project.id, 'main', { allowedToMerge: [{ userId: lead.id }] });
  const byUser = edited.merge_access_levels.filter((a) => a.user_id === lead.id);
  eq(byUser.map((a) => a.access_level_description), [lead.name], 'user entry described by the user name');
  eq(edited.merge_access_levels.length, 2, 'merge levels after edit');
  eq((await api.ProtectedBranches.all(project.id)).map((p) => p.name), ['main'], 'ProtectedBranches.all');
});

await testCase("ProtectedBranches.protect a wildcard (allowedToPush a user, codeOwnerApprovalRequired), unprotect by its encoded name", async () => {
  const [project, approver] = need('project', 'approver');
  const pb = await api.ProtectedBranches.protect(project.id, 'hotfix-*', { pushAccessLevel: 0, allowedToPush: [{ userId: approver.id }], codeOwnerApprovalRequired: true });
  eq([pb.name, pb.code_owner_approval_required], ['hotfix-*', true], 'wildcard rule');
  eq(pb.push_access_levels.map((a) => [a.access_level_description, a.user_id ?? null]).sort(), [['No one', null], [approver.name, approver.id]].sort(), 'push entries');
  await api.ProtectedBranches.unprotect(project.id, 'hotfix-*');
  await rejects(404, () => api.ProtectedBranches.show(project.id, 'hotfix-*'));
  eq((await api.ProtectedBranches.all(project.id)).map((p) => p.name), ['main'], 'after unprotect');
});

await testCase('MergeRequestApprovals.showConfiguration/editConfiguration (project); createApprovalRule, allApprovalRules, showApprovalRule', async () => {
  const [project, approver, lead] = need('project', 'approver', 'lead');
  const conf = await api.MergeRequestApprovals.showConfiguration(project.id);
  eq([conf.reset_approvals_on_push, conf.require_password_to_approve], [true, false], 'defaults');
  const edited = await api.MergeRequestApprovals.editConfiguration(project.id, { requirePasswordToApprove: true });
  eq(edited.require_password_to_approve, true, 'require_password_to_approve');
  eq((await api.MergeRequestApprovals.showConfiguration(project.id)).require_password_to_approve, true, 'read back');
  const rule = await api.MergeRequestApprovals.createApprovalRule(project.id, 'Security', 2, { userIds: [approver.id, lead.id] });
  eq([rule.name, rule.rule_type, rule.approvals_required], ['Security', 'regular', 2], 'project rule');
  eq(usernames(rule.eligible_approvers), [approver.username, lead.username].sort(), 'eligible approvers');
  eq((await api.MergeRequestApprovals.allApprovalRules(project.id)).map((r) => r.name), ['Security'], 'allApprovalRules');
  eq((await api.MergeRequestApprovals.showApprovalRule(project.id, rule.id)).approvals_required, 2, 'showApprovalRule');
  // A rule without approvers is the any_approver rule (ApprovalRules::CreateService), under the caller's name.
  const anyone = await api.MergeRequestApprovals.createApprovalRule(project.id, 'Anyone', 1);
  eq([anyone.name, anyone.rule_type, anyone.users, anyone.eligible_approvers], ['Anyone', 'any_approver', [], []], 'any_approver rule');
  eq((await api.MergeRequestApprovals.allApprovalRules(project.id)).map((r) => r.rule_type).sort(), ['any_approver', 'regular'], 'both rules');
  await api.MergeRequestApprovals.removeApprovalRule(project.id, anyone.id);
  await rejects(404, () => api.MergeRequestApprovals.showApprovalRule(project.id, anyone.id));
  state.rule = rule;
});

await testCase('Commits.create: README on the protected main of an empty project (root); Commits.show; Branches.show flags', async () => {
  const [project] = need('project');
  const c = await api.Commits.create(project.id, 'main', 'Add README', [{ action: 'create', filePath: 'README.md', content: '# Gb\n' }]);
  check(SHA.test(c.id), `commit id ${JSON.stringify(c.id)}`);
  eq([c.short_id, c.title, c.parent_ids, c.author_name], [c.id.slice(0, 8), 'Add README', [], 'Administrator'], 'commit');
  eq((await api.Commits.show(project.id, c.id)).id, c.id, 'Commits.show');
  const main = await api.Branches.show(project.id, 'main');
  eq([main.commit.id, main.default, main.protected, main.developers_can_push, main.developers_can_merge], [c.id, true, true, false, true], 'main branch');
  state.readme = c;
});

await testCase('Branches.create as a developer; Commits.create on it with create, then move and delete actions', async () => {
  const [project, author, readme] = need('project', 'author', 'readme');
  const b = await api.Branches.create(project.id, 'feature', 'main', { sudo: author.username });
  eq([b.name, b.commit.id], ['feature', readme.id], 'created branch');
  const c1 = await api.Commits.create(
    project.id,
    'feature',
    'Add the guide',
    [
      { action: 'create', filePath: 'docs/guide.md', content: 'Guide\n' },
      { action: 'create', filePath: 'docs/old.md', content: 'Old\n' },
    ],
    { sudo: author.username },
  );
  const c2 = await api.Commits.create(
    project.id,
    'feature',
    'Rename the guide, drop old notes',
    [
      { action: 'move', previousPath: 'docs/guide.md', filePath: 'docs/manual.md' },
      { action: 'delete', filePath: 'docs/old.md' },
    ],
    { sudo: author.username },
  );
  eq([c2.parent_ids, c2.author_name, c2.author_email], [[c1.id], author.name, author.email], 'second commit');
  eq((await api.Commits.all(project.id, { refName: 'feature' })).map((c) => c.id), [c2.id, c1.id, readme.id], 'Commits.all(refName)');
  eq((await api.Branches.show(project.id, 'feature')).commit.id, c2.id, 'feature head');
  check((await api.Branches.all(project.id)).map((x) => x.name).includes('feature'), 'Branches.all lists feature');
  state.head = c2;
});

await testCase('MergeRequests.create with "Fixes #n"; show; all(state, sourceBranch); allCommits; showChanges', async () => {
  const [project, author, readme, head] = need('project', 'author', 'readme', 'head');
  const issue = await api.Issues.create(project.id, 'Guide is missing');
  const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Add the manual', { description: `Fixes #${issue.iid}`, sudo: author.username });
  eq([mr.iid, mr.state, mr.sha, mr.author.username, mr.draft], [1, 'opened', head.id, author.username, false], 'created MR');
  eq([mr.diff_refs.base_sha, mr.diff_refs.head_sha], [readme.id, head.id], 'diff_refs');
  eq((await api.MergeRequests.show(project.id, mr.iid)).changes_count, '1', 'changes_count');
  eq((await api.MergeRequests.all({ projectId: project.id, state: 'opened', sourceBranch: 'feature' })).map((m) => m.iid), [mr.iid], 'all');
  eq((await api.MergeRequests.allCommits(project.id, mr.iid)).length, 2, 'allCommits');
  const changes = await api.MergeRequests.showChanges(project.id, mr.iid);
  eq(changes.changes.map((c) => [c.new_path, c.new_file]), [['docs/manual.md', true]], 'changes (old.md was added and deleted)');
  eq((await api.MergeRequests.allDiffs(project.id, mr.iid)).map((d) => [d.new_path, d.new_file, d.diff]), [['docs/manual.md', true, '@@ -0,0 +1 @@\n+Guide\n']], 'allDiffs');
  Object.assign(state, { mr, issue });
});

await testCase('MR rule from the project rule (approvalProjectRuleId): name and users copied, source_rule, overridden; approval_state overwritten', async () => {
  const [project, mr, rule, approver, lead] = need('project', 'mr', 'rule', 'approver', 'lead');
  const mrRule = await api.MergeRequestApprovals.createApprovalRule(project.id, 'ignored name', 1, { mergerequestIId: mr.iid, approvalProjectRuleId: rule.id });
  eq([mrRule.name, mrRule.approvals_required, mrRule.source_rule, mrRule.overridden], ['Security', 1, { approvals_required: 2 }, true], 'MR rule');
  eq(usernames(mrRule.users), [approver.username, lead.username].sort(), 'users copied');
  eq((await api.MergeRequestApprovals.allApprovalRules(project.id, { mergerequestIId: mr.iid })).map((r) => [r.id, r.name]), [[mrRule.id, 'Security']], 'MR rules');
  const st = await api.MergeRequestApprovals.showApprovalState(project.id, mr.iid);
  eq(st.approval_rules_overwritten, true, 'approval_rules_overwritten');
  eq(st.rules.map((r) => [r.name, r.approvals_required, r.approved]), [['Security', 1, false]], 'approval_state rules');
  const conf = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid });
  eq([conf.approvals_required, conf.approvals_left, conf.approved], [1, 1, false], 'MR approvals');
  state.mrRule = mrRule;
});

await testCase('approve with a password required: none or wrong 401, wrong sha 409, right password and sha 201', async () => {
  const [project, mr, approver, head] = need('project', 'mr', 'approver', 'head');
  const sudo = approver.username;
  await rejects(401, () => api.MergeRequestApprovals.approve(project.id, mr.iid, { sha: head.id, sudo }));
  await rejects(401, () => api.MergeRequestApprovals.approve(project.id, mr.iid, { sha: head.id, approvalPassword: 'not-it', sudo }));
  await rejects(409, () => api.MergeRequestApprovals.approve(project.id, mr.iid, { sha: 'f'.repeat(40), approvalPassword: passwords[sudo], sudo }), `SHA does not match HEAD of source branch: ${head.id}`);
  const ok = await api.MergeRequestApprovals.approve(project.id, mr.iid, { sha: head.id, approvalPassword: passwords[sudo], sudo });
  eq([ok.approved, ok.approvals_left, approvedBy(ok)], [true, 0, [sudo]], 'approve response');
  const st = await api.MergeRequestApprovals.showApprovalState(project.id, mr.iid);
  eq(st.rules.map((r) => [r.approved, usernames(r.approved_by)]), [[true, [sudo]]], 'rule approved');
});

await testCase('unapprove: 404 for a user who did not approve; the approver unapproves; lead approves', async () => {
  const [project, mr, approver, lead, head] = need('project', 'mr', 'approver', 'lead', 'head');
  await rejects(404, () => api.MergeRequestApprovals.unapprove(project.id, mr.iid, { sudo: lead.username }));
  await api.MergeRequestApprovals.unapprove(project.id, mr.iid, { sudo: approver.username });
  const after = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid });
  eq([after.approved, after.approvals_left, after.approved_by], [false, 1, []], 'after unapprove');
  const ok = await api.MergeRequestApprovals.approve(project.id, mr.iid, { sha: head.id, approvalPassword: passwords[lead.username], sudo: lead.username });
  eq([ok.approved, approvedBy(ok)], [true, [lead.username]], 'approved by lead');
});

await testCase('editApprovalRule on the MR rule (2 required, overridden) then removeApprovalRule: back to the project rule', async () => {
  const [project, mr, mrRule, rule, approver, lead] = need('project', 'mr', 'mrRule', 'rule', 'approver', 'lead');
  const edited = await api.MergeRequestApprovals.editApprovalRule(project.id, mrRule.id, 'Security', 2, { mergerequestIId: mr.iid, userIds: [approver.id, lead.id] });
  eq([edited.approvals_required, edited.overridden], [2, false], 'MR rule now equals its source');
  let conf = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid });
  eq([conf.approvals_required, conf.approvals_left, conf.approved], [2, 1, false], 'after raising to 2');
  await api.MergeRequestApprovals.removeApprovalRule(project.id, mrRule.id, { mergerequestIId: mr.iid });
  const st = await api.MergeRequestApprovals.showApprovalState(project.id, mr.iid);
  eq(st.approval_rules_overwritten, false, 'not overwritten without MR rules');
  eq(st.rules.map((r) => [r.id, r.name, r.approvals_required, r.approved]), [[rule.id, 'Security', 2, false]], 'project rule applies');
  conf = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid });
  eq([conf.approvals_left, approvedBy(conf)], [1, [lead.username]], 'lead still counts');
});

await testCase('MergeRequests.edit: Draft title, labels, stateEvent close and reopen; merge of a closed MR 405', async () => {
  const [project, mr, author, head] = need('project', 'mr', 'author', 'head');
  const draft = await api.MergeRequests.edit(project.id, mr.iid, { title: 'Draft: Add the manual', labels: 'docs' });
  eq([draft.draft, draft.work_in_progress, draft.labels], [true, true, ['docs']], 'draft with label');
  const closed = await api.MergeRequests.edit(project.id, mr.iid, { title: 'Add the manual', stateEvent: 'close' });
  eq([closed.state, closed.draft], ['closed', false], 'closed');
  await rejects(405, () => api.MergeRequests.merge(project.id, mr.iid, { sha: head.id, sudo: author.username }));
  eq((await api.MergeRequests.edit(project.id, mr.iid, { stateEvent: 'reopen' })).state, 'opened', 'reopened');
});

await testCase('the approver gives the second approval; MergeRequests.merge(sha) merges and "Fixes #n" closes the issue', async () => {
  const [project, mr, approver, author, head, issue] = need('project', 'mr', 'approver', 'author', 'head', 'issue');
  const ok = await api.MergeRequestApprovals.approve(project.id, mr.iid, { sha: head.id, approvalPassword: passwords[approver.username], sudo: approver.username });
  eq([ok.approved, ok.approvals_left], [true, 0], 'approved by both');
  const merged = await api.MergeRequests.merge(project.id, mr.iid, { sha: head.id, sudo: author.username });
  eq([merged.state, merged.merged_by.username], ['merged', author.username], 'merged');
  check(SHA.test(merged.merge_commit_sha ?? ''), `merge_commit_sha ${merged.merge_commit_sha}`);
  eq((await api.Branches.show(project.id, 'main')).commit.id, merged.merge_commit_sha, 'main head');
  const closedIssue = await api.Issues.show(issue.iid, { projectId: project.id });
  eq([closedIssue.state, closedIssue.closed_by?.username], ['closed', author.username], 'issue closed');
  eq((await api.Issues.allClosedByMergeRequestst(project.id, issue.iid)).map((m) => m.iid), [mr.iid], 'closed_by');
  const related = await api.Issues.allRelatedMergeRequests(project.id, issue.iid);
  eq(related.map((m) => m.iid), [mr.iid], 'related_merge_requests');
  // The spec's RelatedMergeRequest fields (related_merge_requests items carry the extra ones too).
  const fields = 'id iid project_id title description state created_at updated_at closed_by closed_at target_branch source_branch user_notes_count upvotes downvotes author assignee source_project_id target_project_id labels draft work_in_progress milestone merge_when_pipeline_succeeds merge_status sha merge_commit_sha squash_commit_sha discussion_locked should_remove_source_branch force_remove_source_branch reference web_url references time_stats squash task_completion_status changes_count latest_build_started_at latest_build_finished_at first_deployed_to_production_at pipeline head_pipeline diff_refs merge_error user'.split(' ');
  eq(fields.filter((f) => !(f in related[0])), [], 'RelatedMergeRequest fields missing');
  eq([related[0].changes_count, related[0].diff_refs.head_sha], ['1', merged.sha], 'changes_count, diff_refs');
  eq((await api.MergeRequests.all({ projectId: project.id, state: 'merged' })).map((m) => m.iid), [mr.iid], 'merged list');
});

await testCase('Branches.remove the merged source branch; show rejects 404', async () => {
  const [project] = need('project');
  await api.Branches.remove(project.id, 'feature');
  await rejects(404, () => api.Branches.show(project.id, 'feature'));
});

await testCase('after the merge: RepositoryFiles.show (nested path) and showRaw, Repositories.allRepositoryTrees and compare', async () => {
  const [project, readme] = need('project', 'readme');
  const mainSha = (await api.Branches.show(project.id, 'main')).commit.id;
  const f = await api.RepositoryFiles.show(project.id, 'docs/manual.md', 'main');
  eq([f.file_name, f.file_path, f.encoding, Buffer.from(f.content, 'base64').toString()], ['manual.md', 'docs/manual.md', 'base64', 'Guide\n'], 'file');
  const raw = await api.RepositoryFiles.showRaw(project.id, 'docs/manual.md', 'main');
  eq(typeof raw === 'string' ? raw : await raw.text(), 'Guide\n', 'raw');
  await rejects(404, () => api.RepositoryFiles.show(project.id, 'docs/old.md', 'main'));
  eq((await api.Repositories.allRepositoryTrees(project.id, { ref: 'main', path: 'docs' })).map((t) => [t.name, t.type, t.path]), [['manual.md', 'blob', 'docs/manual.md']], 'tree of docs');
  const cmp = await api.Repositories.compare(project.id, readme.id, mainSha);
  eq(cmp.diffs.map((d) => d.new_path), ['docs/manual.md'], 'compare diffs');
  eq(cmp.commit.id, mainSha, 'compare commit');
});

await testCase('project rule naming a group: its members are eligible approvers; a reporter may not approve (403)', async () => {
  const [project, author, lead] = need('project', 'author', 'lead');
  const group = await api.Groups.create(`Gb Reviewers ${TAG}`, `gb-reviewers-${TAG}`, { visibility: 'private' });
  const member = await newUser('grouper');
  await api.GroupMembers.add(group.id, 30, { userId: member.id });
  const rule = await api.MergeRequestApprovals.createApprovalRule(project.id, 'Team', 1, { groupIds: [group.id] });
  // root created the group, so it is an owner member there and eligible too.
  eq([rule.groups.map((g) => g.id), usernames(rule.eligible_approvers)], [[group.id], [member.username, 'root'].sort()], 'group rule');
  const reporter = await newUser('reporter');
  await api.ProjectMembers.add(project.id, 20, { userId: reporter.id });
  await api.Branches.create(project.id, 'second', 'main', { sudo: author.username });
  const c = await api.Commits.create(project.id, 'second', 'Second change', [{ action: 'create', filePath: 'second.txt', content: '2' }], { sudo: author.username });
  const mr = await api.MergeRequests.create(project.id, 'second', 'main', 'Second', { sudo: author.username });
  eq(mr.sha, c.id, 'second MR sha');
  const st = await api.MergeRequestApprovals.showApprovalState(project.id, mr.iid);
  eq(st.rules.map((r) => [r.name, usernames(r.eligible_approvers)]).sort(), [['Security', [state.approver.username, lead.username].sort()], ['Team', [member.username, 'root'].sort()]].sort(), 'rules on the second MR');
  await rejects(403, () => api.MergeRequestApprovals.approve(project.id, mr.iid, { sha: c.id, approvalPassword: passwords[reporter.username], sudo: reporter.username }));
  eq((await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid })).approved_by, [], 'no approval from the reporter');
  await api.MergeRequestApprovals.removeApprovalRule(project.id, rule.id);
  state.second = mr;
});

await testCase('concurrent approvals by one user (Promise.all of 6): one 201, the rest 401, one approval', async () => {
  const [project, second, lead] = need('project', 'second', 'lead');
  const statuses = await Promise.all(
    Array.from({ length: 6 }, () =>
      api.MergeRequestApprovals.approve(project.id, second.iid, { sha: second.sha, approvalPassword: passwords[lead.username], sudo: lead.username }).then(
        () => 201,
        (err) => err.cause?.response?.status ?? String(err),
      ),
    ),
  );
  eq(statuses.sort(), [201, 401, 401, 401, 401, 401], 'statuses');
  eq(approvedBy(await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: second.iid })), [lead.username], 'approved_by');
});

await testCase('approve racing a push (3 rounds): no approval survives at the new HEAD', async () => {
  const [project, second, approver, author] = need('project', 'second', 'approver', 'author');
  for (let round = 0; round < 3; round++) {
    const head = (await api.MergeRequests.show(project.id, second.iid)).sha;
    const [approve, push] = await Promise.all([
      api.MergeRequestApprovals.approve(project.id, second.iid, { sha: head, approvalPassword: passwords[approver.username], sudo: approver.username }).then(
        () => 201,
        (err) => err.cause?.response?.status ?? String(err),
      ),
      api.Commits.create(project.id, 'second', `Round ${round}`, [{ action: 'create', filePath: `round-${round}.txt`, content: `${round}` }], { sudo: author.username }),
    ]);
    check(approve === 201 || approve === 409, `approve answered ${approve}`);
    const mr = await api.MergeRequests.show(project.id, second.iid);
    eq(mr.sha, push.id, `round ${round}: MR HEAD is the pushed commit`);
    const conf = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: second.iid });
    eq(conf.approved_by, [], `round ${round}: approvals at the new HEAD (approve answered ${approve})`);
  }
});

await testCase('MergeRequests.all across the instance: authorId and scope filters; state filters', async () => {
  const [project, author, mr, second] = need('project', 'author', 'mr', 'second');
  const mine = await api.MergeRequests.all({ scope: 'all', authorId: author.id });
  eq(mine.map((m) => [m.iid, m.state]).sort(), [[mr.iid, 'merged'], [second.iid, 'opened']].sort(), 'all by author');
  eq((await api.MergeRequests.all({ scope: 'created_by_me', sudo: author.username, state: 'opened' })).map((m) => m.iid), [second.iid], 'created_by_me, opened');
  eq((await api.MergeRequests.all({ projectId: project.id, state: 'closed' })).length, 0, 'no closed MR');
});

await testCase('user.can_merge of the merged request is true for root, who may push to main (can_be_merged_by? has no state check)', async () => {
  const [project, mr, issue] = need('project', 'mr', 'issue');
  eq((await api.MergeRequests.show(project.id, mr.iid)).user.can_merge, true, 'MergeRequests.show user.can_merge');
  eq((await api.Issues.allRelatedMergeRequests(project.id, issue.iid))[0].user.can_merge, true, 'related_merge_requests user.can_merge');
});

await testCase('MergeRequestNotes create/all/edit/remove; MergeRequestAwardEmojis.award counts in upvotes; MergeRequestNoteAwardEmojis', async () => {
  const [project, second, approver, author] = need('project', 'second', 'approver', 'author');
  const note = await api.MergeRequestNotes.create(project.id, second.iid, 'Please add a test', { sudo: approver.username });
  eq([note.body, note.noteable_type, note.noteable_iid, note.system], ['Please add a test', 'MergeRequest', second.iid, false], 'created note');
  const all = await api.MergeRequestNotes.all(project.id, second.iid, { sort: 'asc' });
  check(all.some((n) => n.system && /^added 1 commit/.test(n.body)), `no 'added 1 commit' system note among ${JSON.stringify(all.map((n) => n.body))}`);
  eq(all[all.length - 1].id, note.id, 'newest note last');
  const edited = await api.MergeRequestNotes.edit(project.id, second.iid, note.id, { body: 'Please add two tests', sudo: approver.username });
  eq(edited.body, 'Please add two tests', 'edited body');
  await rejects(403, () => api.MergeRequestNotes.edit(project.id, second.iid, note.id, { body: 'hijack', sudo: author.username }));
  const award = await api.MergeRequestAwardEmojis.award(project.id, second.iid, 'thumbsdown', { sudo: approver.username });
  eq([award.name, award.awardable_type], ['thumbsdown', 'MergeRequest'], 'award');
  eq([(await api.MergeRequests.show(project.id, second.iid)).downvotes], [1], 'downvotes');
  const na = await api.MergeRequestNoteAwardEmojis.award(project.id, second.iid, note.id, 'eyes', { sudo: author.username });
  eq((await api.MergeRequestNoteAwardEmojis.all(project.id, second.iid, note.id)).map((a) => a.name), ['eyes'], 'note awards');
  await api.MergeRequestNoteAwardEmojis.remove(project.id, second.iid, note.id, na.id, { sudo: author.username });
  await api.MergeRequestAwardEmojis.remove(project.id, second.iid, award.id, { sudo: approver.username });
  eq((await api.MergeRequests.show(project.id, second.iid)).downvotes, 0, 'downvotes after remove');
  await api.MergeRequestNotes.remove(project.id, second.iid, note.id, { sudo: approver.username });
  await rejects(404, () => api.MergeRequestNotes.show(project.id, second.iid, note.id));
});

await testCase('code owners: CODEOWNERS on main, ProtectedBranches.edit codeOwnerApprovalRequired; the approval state names the code owner rule until the owner approves', async () => {
  const [project, approver, author] = need('project', 'approver', 'author');
  await api.Commits.create(project.id, 'main', 'Add CODEOWNERS', [{ action: 'create', filePath: 'CODEOWNERS', content: `/owned/ @${approver.username}\n` }]);
  await api.ProtectedBranches.edit(project.id, 'main', { codeOwnerApprovalRequired: true });
  await api.Branches.create(project.id, 'owned-change', 'main', { sudo: author.username });
  await api.Commits.create(project.id, 'owned-change', 'Owned change', [{ action: 'create', filePath: 'owned/a.txt', content: 'a' }], { sudo: author.username });
  const mr = await api.MergeRequests.create(project.id, 'owned-change', 'main', 'Owned change', { sudo: author.username });
  const st = await api.MergeRequestApprovals.showApprovalState(project.id, mr.iid);
  const owner = st.rules.find((r) => r.code_owner);
  check(owner, `no code owner rule in ${JSON.stringify(st.rules.map((r) => r.name))}`);
  eq([owner.name, owner.section, owner.approvals_required, owner.approved, usernames(owner.eligible_approvers)], ['/owned/', 'codeowners', 1, false, [approver.username]], 'code owner rule');
  const conf = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid });
  check(conf.approval_rules_left.some((r) => r.name === '/owned/' && r.rule_type === 'code_owner'), `approval_rules_left ${JSON.stringify(conf.approval_rules_left)}`);
  await api.MergeRequestApprovals.approve(project.id, mr.iid, { approvalPassword: passwords[approver.username], sudo: approver.username });
  const after = await api.MergeRequestApprovals.showApprovalState(project.id, mr.iid);
  eq(after.rules.find((r) => r.code_owner).approved, true, 'code owner rule approved');
});

console.log('END');
