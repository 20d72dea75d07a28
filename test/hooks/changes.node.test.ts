/**
 * The `changes` of issue and merge request update payloads, delivered on Node to a receiver on
 * 127.0.0.1: GitLab's safe keys only, in the builder's order, with `state_id` for the state, and the
 * labels / assignees / reviewers an update replaced as `{ previous, current }` hook hashes. Those are
 * recorded by the write's own batch: renaming the label or the user afterwards does not change what
 * the event says when its payload is built again.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webHookEvents } from '../../src/db/schema';
import { buildPayload } from '../../src/hooks/payloads';
import { hookReceiver } from './receiver';
import { harnessApp, storageSql } from '../harness/node';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

const rx = hookReceiver();
const received = rx.received;
const idle = async () => (await harnessApp()).jobs.idle();
const updates = (path: string) => received.filter((r) => r.path === path && r.body.object_attributes.action === 'update').map((r) => r.body);

/** `2013-12-03 17:15:43 UTC`, the payload's time format, from an API timestamp or a stored one (ms). */
const hookTime = (t: string | number) => new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
/** User#hook_attrs of a test user (no avatar). */
const userHash = (u: Pick<TestUser, 'id' | 'name' | 'username'>) => ({ id: u.id, name: u.name, username: u.username, avatar_url: null, email: '[REDACTED]' });
/** Label#hook_attrs of a project label, from the API and the stored timestamps. */
async function labelHash(projectId: number, title: string) {
  const l = (await api(`/projects/${projectId}/labels/${encodeURIComponent(title)}`, { token: rootToken })).body;
  const [row] = (await storageSql(`SELECT created_at, updated_at FROM labels WHERE id = ${l.id}`)) as { created_at: number; updated_at: number }[];
  return { id: l.id, title: l.name, color: l.color, project_id: projectId, created_at: hookTime(row.created_at), updated_at: hookTime(row.updated_at), template: false, description: l.description, type: 'ProjectLabel', group_id: null };
}

async function setup(flags: Record<string, unknown>) {
  const u = await createUser();
  const [a, b] = await Promise.all([createUser(), createUser()]);
  const p = (await api('/projects', { token: u.token, body: { name: unique('chg') } })).body;
  for (const x of [a, b]) expect((await api(`/projects/${p.id}/members`, { token: u.token, body: { user_id: x.id, access_level: 30 } })).status).toBe(201);
  for (const name of ['bug', 'api']) expect((await api(`/projects/${p.id}/labels`, { token: u.token, body: { name, color: '#428bca', description: `${name} things` } })).status).toBe(201);
  const path = `/chg/${unique('h')}`;
  expect((await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${rx.base}${path}`, push_events: false, ...flags } })).status).toBe(201);
  return { u, a, b, p, path };
}

/** The stored event rows of a project, oldest first, rebuilt into payloads now. */
async function rebuilt(projectId: number, kind: string) {
  const { db } = await harnessApp();
  const rows = await db.select().from(webHookEvents).where(and(eq(webHookEvents.projectId, projectId), eq(webHookEvents.kind, kind), eq(webHookEvents.action, 'update'))).orderBy(webHookEvents.id);
  return Promise.all(rows.map((r) => buildPayload(db, r)));
}

describe('issuable update changes', () => {
  it('issue: title, labels (one made by the update) and assignees, as GitLab orders and shapes them', async () => {
    const { u, a, b, p, path } = await setup({ issues_events: true });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'T1', labels: 'bug', assignee_ids: [a.id] } })).body;
    const bugBefore = await labelHash(p.id, 'bug');
    const put = await api(`/projects/${p.id}/issues/${issue.iid}`, { method: 'PUT', token: u.token, body: { title: 'T2', labels: 'api,fresh', assignee_ids: [b.id, a.id] } });
    expect(put.status).toBe(200);
    await idle();
    const [update] = updates(path);
    const current = [await labelHash(p.id, 'api'), await labelHash(p.id, 'fresh')];
    expect(Object.keys(update.changes)).toEqual(['last_edited_at', 'last_edited_by_id', 'title', 'updated_at', 'assignees', 'labels']);
    expect(update.changes).toEqual({
      last_edited_at: { previous: null, current: hookTime(put.body.updated_at) },
      last_edited_by_id: { previous: null, current: u.id },
      title: { previous: 'T1', current: 'T2' },
      updated_at: { previous: hookTime(issue.updated_at), current: hookTime(put.body.updated_at) },
      assignees: { previous: [userHash(a)], current: [userHash(b), userHash(a)] },
      labels: { previous: [bugBefore], current },
    });
    // The rest of the payload says the same as the changes' `current`.
    expect(update.labels).toEqual(current);
    expect(update.assignees).toEqual([userHash(b), userHash(a)]);
    expect([update.object_attributes.assignee_ids, update.object_attributes.assignee_id, update.object_attributes.labels]).toEqual([[b.id, a.id], b.id, current]);

    // Renamed label and user afterwards: the recorded event still says what the write saw.
    expect((await api(`/projects/${p.id}/labels/bug`, { method: 'PUT', token: u.token, body: { new_name: 'defect' } })).status).toBe(200);
    expect((await api(`/users/${a.id}`, { method: 'PUT', token: rootToken, body: { name: 'Renamed Later' } })).status).toBe(200);
    const [again] = await rebuilt(p.id, 'issue');
    expect(again!.changes).toEqual(update.changes);
  });

  it('issue: close gives state_id and closed_at (not our state column), an unchanged label set gives no labels change', async () => {
    const { u, p, path } = await setup({ issues_events: true });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'c', labels: 'bug' } })).body;
    // The same labels again: nothing changes, no event.
    await api(`/projects/${p.id}/issues/${issue.iid}`, { method: 'PUT', token: u.token, body: { labels: 'bug' } });
    const closed = await api(`/projects/${p.id}/issues/${issue.iid}`, { method: 'PUT', token: u.token, body: { state_event: 'close' } });
    await idle();
    const got = received.filter((r) => r.path === path).map((r) => r.body);
    expect(got.map((b) => b.object_attributes.action)).toEqual(['open', 'close']);
    expect(got[1].changes).toEqual({
      closed_at: { previous: null, current: hookTime(closed.body.closed_at) },
      state_id: { previous: 1, current: 2 },
      updated_at: { previous: hookTime(issue.updated_at), current: hookTime(closed.body.updated_at) },
    });
    expect(Object.keys(got[1].changes)).toEqual(['closed_at', 'state_id', 'updated_at']);
  });

  it('issue time tracking is an update: time_estimate, then total_time_spent and time_change for a spend and a reset', async () => {
    const { u, p, path } = await setup({ issues_events: true });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'timed' } })).body;
    const base = `/projects/${p.id}/issues/${issue.iid}`;
    const at = async () => (await api(base, { token: u.token })).body.updated_at as string;
    expect((await api(`${base}/time_estimate`, { token: u.token, body: { duration: '3h' } })).status).toBe(200);
    const t1 = await at();
    expect((await api(`${base}/add_spent_time`, { token: u.token, body: { duration: '1h30m' } })).status).toBe(201);
    const t2 = await at();
    expect((await api(`${base}/reset_spent_time`, { method: 'POST', token: u.token })).status).toBe(200);
    const t3 = await at();
    // The same estimate again changes nothing and sends nothing.
    expect((await api(`${base}/time_estimate`, { token: u.token, body: { duration: '3h' } })).status).toBe(200);
    await idle();
    const got = updates(path);
    expect(got.map((b) => b.changes)).toEqual([
      { time_estimate: { previous: 0, current: 10800 }, updated_at: { previous: hookTime(issue.updated_at), current: hookTime(t1) } },
      { updated_at: { previous: hookTime(t1), current: hookTime(t2) }, total_time_spent: { previous: 0, current: 5400 }, time_change: { previous: 0, current: 5400 } },
      { updated_at: { previous: hookTime(t2), current: hookTime(t3) }, total_time_spent: { previous: 5400, current: 0 }, time_change: { previous: 0, current: -5400 } },
    ]);
    const times = (b: any) => [b.object_attributes.time_estimate, b.object_attributes.total_time_spent, b.object_attributes.time_change, b.object_attributes.human_time_change, b.object_attributes.human_total_time_spent];
    expect(got.map(times)).toEqual([
      [10800, 0, 0, null, null],
      [10800, 5400, 5400, '1h 30m', '1h 30m'],
      [10800, 0, -5400, '-1h 30m', null],
    ]);
  });

  it('merge request: a spend is an update with total_time_spent and time_change; a close gives state_id', async () => {
    const { u, p, path } = await setup({ merge_requests_events: true });
    expect((await api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/repository/branches`, { token: u.token, body: { branch: 'feat', ref: 'main' } })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'M', source_branch: 'feat', target_branch: 'main' } })).body;
    expect((await api(`/projects/${p.id}/merge_requests/${mr.iid}/add_spent_time`, { token: u.token, body: { duration: '2h' } })).status).toBe(201);
    const after = (await api(`/projects/${p.id}/merge_requests/${mr.iid}`, { token: u.token })).body;
    await idle();
    const [update] = updates(path);
    expect(update.changes).toEqual({ updated_at: { previous: hookTime(mr.updated_at), current: hookTime(after.updated_at) }, total_time_spent: { previous: 0, current: 7200 }, time_change: { previous: 0, current: 7200 } });
    expect([update.object_attributes.total_time_spent, update.object_attributes.time_change, update.object_attributes.human_time_change]).toEqual([7200, 7200, '2h']);

    // Closing: state_id and updated_at only (closed_at and the diff refs this server keeps are not GitLab's MR columns).
    const closed = await api(`/projects/${p.id}/merge_requests/${mr.iid}`, { method: 'PUT', token: u.token, body: { state_event: 'close' } });
    await idle();
    const close = received.filter((r) => r.path === path && r.body.object_attributes.action === 'close').map((r) => r.body)[0];
    expect(close.changes).toEqual({ state_id: { previous: 1, current: 2 }, updated_at: { previous: hookTime(after.updated_at), current: hookTime(closed.body.updated_at) } });
    expect(Object.keys(close.changes)).toEqual(['state_id', 'updated_at']);
  });

  it('merge request: labels, assignees and reviewers replaced, merge_params for remove_source_branch, no discussion_locked', async () => {
    const { u, a, b, p, path } = await setup({ merge_requests_events: true });
    const commit = await api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    expect(commit.status).toBe(201);
    expect((await api(`/projects/${p.id}/repository/branches`, { token: u.token, body: { branch: 'feat', ref: 'main' } })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'M', source_branch: 'feat', target_branch: 'main', labels: 'api,bug', assignee_ids: [a.id], reviewer_ids: [b.id] } })).body;
    const before = [await labelHash(p.id, 'api'), await labelHash(p.id, 'bug')];
    const put = await api(`/projects/${p.id}/merge_requests/${mr.iid}`, {
      method: 'PUT',
      token: u.token,
      body: { remove_labels: 'bug', assignee_ids: [b.id], reviewer_ids: [a.id], remove_source_branch: !mr.force_remove_source_branch, discussion_locked: true },
    });
    expect(put.status).toBe(200);
    await idle();
    const [update] = updates(path);
    const was = mr.force_remove_source_branch ? '1' : '0';
    const now = mr.force_remove_source_branch ? '0' : '1';
    expect(Object.keys(update.changes)).toEqual(['merge_params', 'updated_at', 'assignees', 'labels', 'reviewers']);
    expect(update.changes).toEqual({
      merge_params: { previous: { force_remove_source_branch: was }, current: { force_remove_source_branch: now } },
      updated_at: { previous: hookTime(mr.updated_at), current: hookTime(put.body.updated_at) },
      assignees: { previous: [userHash(a)], current: [userHash(b)] },
      labels: { previous: before, current: [before[0]] },
      reviewers: { previous: [userHash(b)], current: [userHash(a)] },
    });
    expect([update.assignees, update.reviewers, update.labels]).toEqual([[userHash(b)], [userHash(a)], [before[0]]]);
    expect([update.object_attributes.assignee_ids, update.object_attributes.reviewer_ids]).toEqual([[b.id], [a.id]]);
    // The write's own view, whatever happens to the user afterwards.
    expect((await api(`/users/${b.id}`, { method: 'PUT', token: rootToken, body: { name: 'Renamed Too' } })).status).toBe(200);
    const [again] = await rebuilt(p.id, 'merge_request');
    expect(again!.changes).toEqual(update.changes);
  });
});
