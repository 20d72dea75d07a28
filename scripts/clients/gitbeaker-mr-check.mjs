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
import { Gitlab, GitbeakerRequestError } from '@gitbeaker/rest';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');
const SHA = /^[0-9a-f]{40}$/;
const state = {};

// Remember the last exchange so that a failing case can say what the server answered.
let last = null;
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const req = input instanceof Request ? input : new Request(input, init);
  const res = await realFetch(input, init);
  let body = '';
  try {
    body = (await res.clone().text()).slice(0, 300).replace(/\n/g, ' ');
  } catch {
    // streamed body
  }
  const u = new globalThis.URL(req.url);
  last = `${req.method} ${u.pathname}${u.search} -> ${res.status} ${body}`;
  return res;
};

class Fail extends Error {}
const check = (cond, msg) => {
  if (!cond) throw new Fail(msg);
};
const eq = (actual, expected, what) => {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Fail(`${what}: expected ${e}, got ${a}`);
};
const need = (...names) => {
  const missing = names.filter((n) => !(n in state));
  if (missing.length) throw new Fail(`not run: needs ${missing.join(', ')} from an earlier case`);
  return names.map((n) => state[n]);
};
const usernames = (users) => users.map((u) => u.username).sort();
const approvedBy = (approvals) => approvals.approved_by.map((a) => a.user.username).sort();

async function rejects(status, fn, message) {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof GitbeakerRequestError)) throw new Fail(`expected GitbeakerRequestError ${status}, got ${err}`);
    eq(err.cause?.response?.status, status, 'status');
    if (message !== undefined) {
      check(String(err.cause?.description ?? err.message).includes(message), `error description ${JSON.stringify(err.cause?.description)} lacks ${JSON.stringify(message)}`);
    }
    return err;
  }
  throw new Fail(`expected HTTP ${status}, but the call succeeded`);
}

async function testCase(name, fn) {
  last = null;
  try {
    await fn();
    console.log(`PASS ${name}`);
  } catch (err) {
    let reason = err instanceof Fail ? err.message : err instanceof GitbeakerRequestError ? `GitbeakerRequestError ${err.cause?.response?.status}: ${err.message}` : String(err?.stack ?? err);
    reason = reason.replace(/\n/g, ' ');
    if (last) reason += ` | last response: ${last}`;
    console.log(`FAIL ${name} :: ${reason}`);
  }
}

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
  state.rule = rule;
});

console.log('END');
