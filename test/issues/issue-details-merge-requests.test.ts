/**
 * Issue references in merge request descriptions: cross-project and URL forms of `Closes`, what the
 * author may not read is never linked, and the issue side (related_merge_requests, closed_by).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let stranger: TestUser;
let groupPath: string;
let a: { id: number; path_with_namespace: string; web_url: string };
let b: { id: number; path_with_namespace: string; web_url: string };
let secret: { id: number; path_with_namespace: string };

async function repo(pid: number, branch: string) {
  const init = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README', content: 'r' }] } });
  expect(init.status).toBe(201);
  expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
  const c = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] } });
  expect(c.status).toBe(201);
}
const issue = async (pid: number, extra: Record<string, unknown> = {}) => {
  const res = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('i'), ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number };
};

beforeAll(async () => {
  [owner, stranger] = await Promise.all([createUser(), createUser()]);
  groupPath = unique('idmr');
  const g = await api('/groups', { token: owner.token, body: { name: groupPath, path: groupPath, visibility: 'public' } });
  expect(g.status).toBe(201);
  const pa = await api('/projects', { token: owner.token, body: { path: 'alpha', namespace_id: g.body.id, visibility: 'public' } });
  const pb = await api('/projects', { token: owner.token, body: { path: 'beta', namespace_id: g.body.id, visibility: 'public' } });
  expect(pa.status).toBe(201);
  expect(pb.status).toBe(201);
  a = pa.body;
  b = pb.body;
  const ps = await api('/projects', { token: stranger.token, body: { name: unique('sec'), visibility: 'private' } });
  expect(ps.status).toBe(201);
  secret = ps.body;
  await repo(a.id, 'feat');
});

describe('Closes references', () => {
  it('links same-project, cross-project (full path and project in the same group) and URL references; merging closes them all', async () => {
    const local = await issue(a.id);
    const full = await issue(b.id);
    const sibling = await issue(b.id);
    const byUrl = await issue(b.id);
    const mentioned = await issue(b.id);
    const hidden = (await api(`/projects/${secret.id}/issues`, { token: stranger.token, body: { title: 'secret' } })).body;
    const description = [
      `Closes #${local.iid}, ${b.path_with_namespace}#${full.iid} and beta#${sibling.iid}`,
      `Resolves ${b.web_url}/-/issues/${byUrl.iid}`,
      `Fixes ${secret.path_with_namespace}#${hidden.iid}`,
      `See also ${b.path_with_namespace}#${mentioned.iid}`,
    ].join('\n');
    const mr = await api(`/projects/${a.id}/merge_requests`, { token: owner.token, body: { title: 'cross', source_branch: 'feat', target_branch: 'main', description } });
    expect(mr.status).toBe(201);
    const closes = await api(`/projects/${a.id}/merge_requests/${mr.body.iid}/closes_issues`, { token: owner.token });
    expect(closes.body.map((i: { id: number }) => i.id)).toEqual([local.id, full.id, sibling.id, byUrl.id]);
    // Issues::ReferencedMergeRequestsService: a mention relates without closing.
    const related = await api(`/projects/${b.id}/issues/${mentioned.iid}/related_merge_requests`, { token: stranger.token });
    expect(related.body.map((m: { id: number }) => m.id)).toEqual([mr.body.id]);
    expect(related.body[0].references.relative).toBe(`alpha!${mr.body.iid}`);
    // closed_by lists merge requests of the issue's own project only (MergeRequestsFinder project_id).
    expect((await api(`/projects/${b.id}/issues/${full.iid}/closed_by`, { token: owner.token })).body).toEqual([]);
    expect((await api(`/projects/${a.id}/issues/${local.iid}/closed_by`, { token: owner.token })).body.map((m: { id: number }) => m.id)).toEqual([mr.body.id]);
    // SystemNoteService.cross_reference on each referenced issue.
    const crossNotes = async (pid: number, iid: number) => (await api(`/projects/${pid}/issues/${iid}/notes`, { token: owner.token })).body.map((n: { body: string }) => n.body);
    expect(await crossNotes(a.id, local.iid)).toContain(`mentioned in merge request !${mr.body.iid}`);
    expect(await crossNotes(b.id, mentioned.iid)).toContain(`mentioned in merge request ${a.path_with_namespace}!${mr.body.iid}`);
    // The stranger's private issue was never linked: its owner sees nothing related.
    expect((await api(`/projects/${secret.id}/issues/${hidden.iid}/related_merge_requests`, { token: stranger.token })).body).toEqual([]);

    const merged = await api(`/projects/${a.id}/merge_requests/${mr.body.iid}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.status).toBe(200);
    for (const [pid, i] of [[a.id, local], [b.id, full], [b.id, sibling], [b.id, byUrl]] as const) {
      const after = await api(`/projects/${pid}/issues/${i.iid}`, { token: owner.token });
      expect([i.iid, after.body.state]).toEqual([i.iid, 'closed']);
      const notes = await api(`/projects/${pid}/issues/${i.iid}/notes`, { token: owner.token });
      const want = pid === a.id ? `closed via merge request !${mr.body.iid}` : `closed via merge request ${a.path_with_namespace}!${mr.body.iid}`;
      expect(notes.body.map((n: { body: string }) => n.body)).toContain(want);
    }
    expect((await api(`/projects/${b.id}/issues/${mentioned.iid}`, { token: owner.token })).body.state).toBe('opened');
    expect((await api(`/projects/${secret.id}/issues/${hidden.iid}`, { token: stranger.token })).body.state).toBe('opened');
    const commit = await api(`/projects/${a.id}/repository/commits/${merged.body.merge_commit_sha}`, { token: owner.token });
    expect(commit.body.message).toContain(`Closes #${local.iid}, ${b.path_with_namespace}#${full.iid}`);
  });

  it('editing the description replaces the links', async () => {
    const i1 = await issue(a.id);
    const i2 = await issue(a.id);
    const br = unique('br');
    expect((await api(`/projects/${a.id}/repository/branches`, { token: owner.token, body: { branch: br, ref: 'main' } })).status).toBe(201);
    await api(`/projects/${a.id}/repository/commits`, { token: owner.token, body: { branch: br, commit_message: 'x', actions: [{ action: 'create', file_path: `${br}.txt`, content: 'x' }] } });
    const mr = await api(`/projects/${a.id}/merge_requests`, { token: owner.token, body: { title: 'edit', source_branch: br, target_branch: 'main', description: `Closes #${i1.iid}` } });
    expect(mr.status).toBe(201);
    const upd = await api(`/projects/${a.id}/merge_requests/${mr.body.iid}`, { method: 'PUT', token: owner.token, body: { description: `Fixes #${i2.iid}` } });
    expect(upd.status).toBe(200);
    const closes = await api(`/projects/${a.id}/merge_requests/${mr.body.iid}/closes_issues`, { token: owner.token });
    expect(closes.body.map((i: { iid: number }) => i.iid)).toEqual([i2.iid]);
    const mentionsOf = async (iid: number) =>
      (await api(`/projects/${a.id}/issues/${iid}/notes`, { token: owner.token })).body.filter((n: { body: string }) => n.body === `mentioned in merge request !${mr.body.iid}`).length;
    expect([await mentionsOf(i1.iid), await mentionsOf(i2.iid)]).toEqual([1, 1]);
    await api(`/projects/${a.id}/merge_requests/${mr.body.iid}`, { method: 'PUT', token: owner.token, body: { description: `Fixes #${i2.iid}, see #${i1.iid}` } });
    expect([await mentionsOf(i1.iid), await mentionsOf(i2.iid)]).toEqual([1, 1]);
    expect((await api(`/projects/${a.id}/issues/${i1.iid}/closed_by`, { token: owner.token })).body).toEqual([]);
  });
});

describe('confidential issues', () => {
  it('closes_issues and related_issues of a public merge request hide a confidential issue from those who may not read it', async () => {
    const conf = await issue(a.id, { confidential: true });
    const open = await issue(a.id);
    const br = unique('cf');
    expect((await api(`/projects/${a.id}/repository/branches`, { token: owner.token, body: { branch: br, ref: 'main' } })).status).toBe(201);
    await api(`/projects/${a.id}/repository/commits`, { token: owner.token, body: { branch: br, commit_message: 'x', actions: [{ action: 'create', file_path: `${br}.txt`, content: 'x' }] } });
    const mr = await api(`/projects/${a.id}/merge_requests`, { token: owner.token, body: { title: 'conf', source_branch: br, target_branch: 'main', description: `Closes #${conf.iid} and #${open.iid}` } });
    expect(mr.status).toBe(201);
    const path = `/projects/${a.id}/merge_requests/${mr.body.iid}`;
    expect((await api(`${path}/closes_issues`, { token: owner.token })).body.map((i: { iid: number }) => i.iid)).toEqual([conf.iid, open.iid]);
    const out = await api(`${path}/closes_issues`, { token: stranger.token });
    expect(out.status).toBe(200);
    expect(out.body.map((i: { iid: number }) => i.iid)).toEqual([open.iid]);
    expect(out.headers.get('x-total')).toBe('1');
    const anon = await api(`${path}/related_issues`);
    expect(anon.body.map((i: { iid: number }) => i.iid)).toEqual([open.iid]);
  });
});
