/**
 * A mixed concurrent workload (issue 12): several teams, each with its own private project and
 * merge request, approve, unapprove, read and create at the same time. Under a parallel run of
 * many clients one approve once answered `404 Project Not Found` for a project its caller could
 * see; whatever state the server keeps between requests (per-isolate caches, per-request memos) must
 * never let one request's caller, project or memo leak into another. Every answer here must be the
 * one its caller would get alone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, type ApiResponse, createUser, type TestUser, unique } from '../support';

interface Team {
  owner: TestUser;
  dev: TestUser;
  pid: number;
  iid: number;
}

const TEAMS = 6;
const ROUNDS = 4;
let teams: Team[];

async function team(owner: TestUser, dev: TestUser): Promise<Team> {
  const p = await api('/projects', { token: owner.token, body: { name: unique('mixed'), visibility: 'private' } });
  expect(p.status).toBe(201);
  const pid = p.body.id;
  expect((await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
  const commit = (branch: string, extra: Record<string, unknown> = {}) =>
    api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x\n' }], ...extra } });
  expect((await commit('main')).status).toBe(201);
  expect((await commit('feature', { start_branch: 'main' })).status).toBe(201);
  const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: unique('MR') } });
  expect(mr.status).toBe(201);
  return { owner, dev, pid, iid: mr.body.iid };
}

beforeAll(async () => {
  const users = await Promise.all(Array.from({ length: TEAMS * 2 }, () => createUser()));
  teams = await Promise.all(Array.from({ length: TEAMS }, (_, i) => team(users[2 * i], users[2 * i + 1])));
}, 60_000);

/** One request and the check of the answer its caller alone would get. */
type Step = () => Promise<void>;

function stepsFor(t: Team, other: Team, round: number): Step[] {
  const mr = `/projects/${t.pid}/merge_requests/${t.iid}`;
  const approving = round % 2 === 0;
  const title = `round ${round} of ${t.pid}`;
  const expectOk = (res: ApiResponse, status: number, what: string) => expect({ what, status: res.status, body: res.status === status ? undefined : res.body }).toEqual({ what, status, body: undefined });
  return [
    async () => {
      // Alternating approve / unapprove: each answers 201 with the dev's approval present or gone.
      const res = await api(`${mr}/${approving ? 'approve' : 'unapprove'}`, { token: t.dev.token, method: 'POST' });
      expectOk(res, 201, `${approving ? 'approve' : 'unapprove'} ${t.pid}`);
      expect(res.body.project_id).toBe(t.pid);
      expect(res.body.user_has_approved).toBe(approving);
      expect(res.body.approved_by.map((a: { user: { id: number } }) => a.user.id)).toEqual(approving ? [t.dev.id] : []);
    },
    async () => {
      const res = await api(`/projects/${t.pid}`, { token: t.dev.token });
      expectOk(res, 200, `project ${t.pid}`);
      expect(res.body.id).toBe(t.pid);
    },
    async () => {
      // Another team's private project stays invisible, however the requests interleave.
      const res = await api(`/projects/${other.pid}`, { token: t.dev.token });
      expect(res).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      const approve = await api(`/projects/${other.pid}/merge_requests/${other.iid}/approve`, { token: t.dev.token, method: 'POST' });
      expect(approve).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    },
    async () => {
      const res = await api(`/projects/${t.pid}/issues`, { token: t.owner.token, body: { title } });
      expectOk(res, 201, `issue ${t.pid}`);
      expect(res.body).toMatchObject({ project_id: t.pid, title, author: { id: t.owner.id } });
    },
    async () => {
      const res = await api(`${mr}/approvals`, { token: t.owner.token });
      expectOk(res, 200, `approvals ${t.pid}`);
      expect(res.body).toMatchObject({ project_id: t.pid, iid: t.iid });
    },
    async () => {
      const res = await api(`${mr}/approval_state`, { token: t.dev.token });
      expectOk(res, 200, `approval_state ${t.pid}`);
    },
    async () => {
      const res = await api(mr, { token: t.dev.token });
      expectOk(res, 200, `merge request ${t.pid}`);
      expect(res.body).toMatchObject({ project_id: t.pid, iid: t.iid, author: { id: t.owner.id } });
    },
    async () => {
      const res = await api(`/projects/${t.pid}/issues?per_page=100`, { token: t.dev.token });
      expectOk(res, 200, `issues ${t.pid}`);
      expect(res.body.every((i: { project_id: number }) => i.project_id === t.pid)).toBe(true);
    },
    async () => {
      const res = await api('/user', { token: t.owner.token });
      expect(res.body.id).toBe(t.owner.id);
    },
    async () => {
      const res = await api('/projects?membership=true&per_page=100', { token: t.dev.token });
      expectOk(res, 200, `membership ${t.pid}`);
      expect(res.body.map((p: { id: number }) => p.id)).toEqual([t.pid]);
    },
  ];
}

describe('a concurrent mixed workload of several teams', () => {
  it('answers every request as its caller alone would be answered', { timeout: 120_000 }, async () => {
    let requests = 0;
    const started = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      const steps = teams.flatMap((t, i) => stepsFor(t, teams[(i + 1) % TEAMS], round));
      // Interleave the teams' steps so that the same kind of request from different callers runs side by side.
      const results = await Promise.allSettled(steps.map((step) => step()));
      requests += steps.length;
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String(r.reason?.message ?? r.reason));
      expect(failed).toEqual([]);
    }
    expect(requests).toBe(TEAMS * ROUNDS * 10);
    expect(Date.now() - started).toBeGreaterThan(0);
    // Every team's issues are its own: one per round, none from another team.
    for (const t of teams) {
      const listed = await api(`/projects/${t.pid}/issues?per_page=100`, { token: t.owner.token });
      expect(listed.body.map((i: { title: string }) => i.title).sort()).toEqual(Array.from({ length: ROUNDS }, (_, r) => `round ${r} of ${t.pid}`).sort());
    }
  });
});
