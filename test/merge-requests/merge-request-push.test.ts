/**
 * A push to the source branch of an open merge request, through the commits API, on both runtimes
 * (MergeRequests::RefreshService, SystemNotes::CommitService#add_commits, ResetApprovalsService,
 * EE SystemNotes::MergeRequestsService#approvals_reset): the merge request is touched and noted,
 * approvals are reset with a note, or only code owners of the changed paths lose theirs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let alice: TestUser;
let bob: TestUser;
let author: TestUser;

async function commit(pid: number, branch: string, token: string, actions: Record<string, unknown>[], message = unique('c')) {
  const res = await api(`/projects/${pid}/repository/commits`, { token, body: { branch, commit_message: message, actions } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body as { id: string; short_id: string; title: string };
}

const file = (file_path: string, content = 'x\n', action = 'create') => ({ action, file_path, content });

async function setup(codeowners = '') {
  const gpath = unique('push');
  const g = await api('/groups', { token: owner.token, body: { name: gpath, path: gpath, visibility: 'private' } });
  for (const u of [alice, bob, author]) await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } });
  const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
  expect(p.status).toBe(201);
  await commit(p.body.id, 'main', owner.token, [file('CODEOWNERS', codeowners), file('docs/a.md'), file('b.txt')]);
  const branch = unique('feat');
  expect((await api(`/projects/${p.body.id}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
  const first = await commit(p.body.id, branch, author.token, [file('c.txt')]);
  const m = await api(`/projects/${p.body.id}/merge_requests`, { token: author.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
  expect(m.status).toBe(201);
  return { pid: p.body.id as number, path: p.body.path_with_namespace as string, branch, iid: m.body.iid as number, base: `/projects/${p.body.id}/merge_requests/${m.body.iid}`, first, mr: m.body };
}

const systemNotes = async (base: string): Promise<string[]> => (await api(`${base}/notes?sort=asc`, { token: owner.token })).body.filter((n: any) => n.system).map((n: any) => n.body as string);

beforeAll(async () => {
  [owner, alice, bob, author] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
});

describe('a push to the source branch', () => {
  it('touches the merge request and notes the added commit with a comparison link', async () => {
    const s = await setup();
    await new Promise((r) => setTimeout(r, 5));
    const pushed = await commit(s.pid, s.branch, author.token, [file('d.txt')], 'Add <d> & more\n\nbody');
    const mr = (await api(s.base, { token: owner.token })).body;
    expect(mr.sha).toBe(pushed.id);
    expect(Date.parse(mr.updated_at)).toBeGreaterThan(Date.parse(s.mr.updated_at));
    const notes = await systemNotes(s.base);
    expect(notes.length).toBe(1);
    expect(notes[0]).toMatch(
      new RegExp(
        `^added 1 commit\\n\\n<ul><li>${pushed.short_id} - Add &lt;d&gt; &amp; more</li></ul>\\n\\n\\[Compare with previous version\\]\\(/${s.path}/-/merge_requests/${s.iid}/diffs\\?diff_id=\\d+&start_sha=${s.first.id}\\)$`,
      ),
    );
    // A second push names a later version.
    await commit(s.pid, s.branch, author.token, [file('e.txt')]);
    const ids = (await systemNotes(s.base)).map((b) => Number(/diff_id=(\d+)/.exec(b)![1]));
    expect(ids.length).toBe(2);
    expect(ids[1]).toBeGreaterThan(ids[0]);
  });

  it('leaves merge requests from other branches alone', async () => {
    const s = await setup();
    const before = (await api(s.base, { token: owner.token })).body.updated_at;
    await commit(s.pid, 'main', owner.token, [file('z.txt')]);
    expect((await api(s.base, { token: owner.token })).body.updated_at).toBe(before);
    expect(await systemNotes(s.base)).toEqual([]);
  });

  it('resets approvals (the default) with a note naming those whose approvals counted', async () => {
    const s = await setup();
    for (const u of [alice, bob]) expect((await api(`${s.base}/approve`, { token: u.token, method: 'POST' })).status).toBe(201);
    await commit(s.pid, s.branch, author.token, [file('f.txt')]);
    const state = (await api(`${s.base}/approvals`, { token: owner.token })).body;
    expect(state.approved_by).toEqual([]);
    const notes = await systemNotes(s.base);
    expect(notes.filter((n) => n.startsWith('reset approvals'))).toEqual([`reset approvals from @${alice.username} and @${bob.username} by pushing to the branch`]);
    // Approving again works at the new HEAD.
    expect((await api(`${s.base}/approve`, { token: alice.token, method: 'POST' })).body.approved_by.map((a: any) => a.user.id)).toEqual([alice.id]);
  });

  it('keeps approvals when reset_approvals_on_push is off', async () => {
    const s = await setup();
    expect((await api(`/projects/${s.pid}/approvals`, { token: owner.token, body: { reset_approvals_on_push: false } })).status).toBe(201);
    for (const u of [alice, bob]) await api(`${s.base}/approve`, { token: u.token, method: 'POST' });
    await commit(s.pid, s.branch, author.token, [file('docs/g.md')]);
    expect((await api(`${s.base}/approvals`, { token: owner.token })).body.approved_by.map((a: any) => a.user.id)).toEqual([alice.id, bob.id]);
    expect((await systemNotes(s.base)).some((n) => n.startsWith('reset approvals'))).toBe(false);
  });

  it('with selective_code_owner_removals, removes only the approvals of code owners of the changed paths', async () => {
    const s = await setup([`/docs/ @${alice.username}`, `*.txt @${bob.username}`].join('\n'));
    expect((await api(`/projects/${s.pid}/approvals`, { token: owner.token, body: { reset_approvals_on_push: false, selective_code_owner_removals: true } })).status).toBe(201);
    await api(`${s.base}/approve`, { token: alice.token, method: 'POST' });
    await api(`${s.base}/approve`, { token: bob.token, method: 'POST' });
    // A change under docs/: alice's approval goes, bob's stays.
    await commit(s.pid, s.branch, author.token, [file('docs/h.md')]);
    expect((await api(`${s.base}/approvals`, { token: owner.token })).body.approved_by.map((a: any) => a.user.id)).toEqual([bob.id]);
    // A change to a .txt file: bob's goes too.
    await commit(s.pid, s.branch, author.token, [file('i.txt')]);
    expect((await api(`${s.base}/approvals`, { token: owner.token })).body.approved_by).toEqual([]);
  });
});
