/**
 * `time_tracking_limit_to_hours` (application setting): human durations in hours only. In its own
 * file because application settings are instance-global; restored afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let project: { id: number };

beforeAll(async () => {
  owner = await createUser();
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
});

afterAll(async () => {
  await api('/application/settings', { token: rootToken, method: 'PUT', body: { time_tracking_limit_to_hours: false } });
});

describe('time_tracking_limit_to_hours', () => {
  it('renders estimates and spent time in hours when on, and in days and weeks when off', async () => {
    const issue = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('t') } });
    expect(issue.status).toBe(201);
    const path = `/projects/${project.id}/issues/${issue.body.iid}`;
    const on = await api('/application/settings', { token: rootToken, method: 'PUT', body: { time_tracking_limit_to_hours: true } });
    expect(on.status).toBe(200);
    expect(on.body.time_tracking_limit_to_hours).toBe(true);

    const est = await api(`${path}/time_estimate`, { token: owner.token, body: { duration: '1w 4d 3h' } });
    expect(est.status).toBe(200);
    expect(est.body).toEqual({ time_estimate: 270000, total_time_spent: 0, human_time_estimate: '75h', human_total_time_spent: null });
    const spent = await api(`${path}/add_spent_time`, { token: owner.token, body: { duration: '2d 30m' } });
    expect(spent.body).toEqual({ time_estimate: 270000, total_time_spent: 59400, human_time_estimate: '75h', human_total_time_spent: '16h 30m' });

    const off = await api('/application/settings', { token: rootToken, method: 'PUT', body: { time_tracking_limit_to_hours: false } });
    expect(off.body.time_tracking_limit_to_hours).toBe(false);
    const back = await api(`${path}/time_stats`, { token: owner.token });
    expect(back.body).toEqual({ time_estimate: 270000, total_time_spent: 59400, human_time_estimate: '1w 4d 3h', human_total_time_spent: '2d 30m' });
  });
});
