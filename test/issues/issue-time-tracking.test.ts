/** Issue time tracking (GitLab lib/api/time_tracking_endpoints.rb; reference 1 §5.3). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: { id: number };

async function mkIssue(token = owner.token, extra: Record<string, unknown> = {}) {
  const res = await api(`/projects/${project.id}/issues`, { token, body: { title: unique('t'), ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number };
}

const base = (iid: number) => `/projects/${project.id}/issues/${iid}`;
const stats = (time_estimate: number, total_time_spent: number, human_time_estimate: string | null, human_total_time_spent: string | null) => ({
  time_estimate,
  total_time_spent,
  human_time_estimate,
  human_total_time_spent,
});

beforeAll(async () => {
  [owner, reporter, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
  for (const [u, level] of [[reporter, 20], [guest, 10]] as const) {
    const m = await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    expect(m.status).toBe(201);
  }
});

describe('GET /projects/:id/issues/:issue_iid/time_stats', () => {
  it('starts at zero with null human values, in GitLab field order', async () => {
    const issue = await mkIssue();
    const res = await api(`${base(issue.iid)}/time_stats`, { token: guest.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['time_estimate', 'total_time_spent', 'human_time_estimate', 'human_total_time_spent']);
    expect(res.body).toEqual(stats(0, 0, null, null));
  });

  it('answers 404 for missing issues and unreadable projects', async () => {
    const missing = await api(`${base(999999)}/time_stats`, { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    const issue = await mkIssue();
    const hidden = await api(`${base(issue.iid)}/time_stats`, { token: outsider.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('POST /projects/:id/issues/:issue_iid/time_estimate', () => {
  it('sets the estimate (200) and the issue shows it', async () => {
    const issue = await mkIssue();
    const res = await api(`${base(issue.iid)}/time_estimate`, { token: reporter.token, body: { duration: '3h30m' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(stats(12600, 0, '3h 30m', null));
    const form = await api(`${base(issue.iid)}/time_estimate`, { token: reporter.token, form: { duration: '1w 2d' } });
    expect(form.status).toBe(200);
    expect(form.body).toEqual(stats(201600, 0, '1w 2d', null));
    const back = await api(`${base(issue.iid)}/time_stats`, { token: guest.token });
    expect(back.body).toEqual(stats(201600, 0, '1w 2d', null));
    const shown = await api(base(issue.iid), { token: guest.token });
    expect(shown.body.time_stats).toEqual(stats(201600, 0, '1w 2d', null));
  });

  it('reads a bare number as hours and a query-string duration', async () => {
    const issue = await mkIssue();
    const res = await api(`${base(issue.iid)}/time_estimate?duration=3`, { token: owner.token, method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(stats(10800, 0, '3h', null));
  });

  it('refuses unreadable and negative durations with the validation body, changing nothing', async () => {
    const issue = await mkIssue();
    await api(`${base(issue.iid)}/time_estimate`, { token: owner.token, body: { duration: '1h' } });
    for (const duration of ['abc', '3 gobblygoos', '0', '-1h']) {
      const res = await api(`${base(issue.iid)}/time_estimate`, { token: owner.token, body: { duration } });
      expect(res.status, duration).toBe(400);
      expect(res.body).toEqual({ message: { time_estimate: ['has an invalid format'] } });
    }
    const missing = await api(`${base(issue.iid)}/time_estimate`, { token: owner.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'duration is missing' });
    const back = await api(`${base(issue.iid)}/time_stats`, { token: owner.token });
    expect(back.body).toEqual(stats(3600, 0, '1h', null));
  });

  it('needs admin_issue: 401 anonymous, 403 guest, 404 outsider', async () => {
    const issue = await mkIssue();
    const anon = await api(`${base(issue.iid)}/time_estimate`, { body: { duration: '1h' } });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ message: '401 Unauthorized' });
    const g = await api(`${base(issue.iid)}/time_estimate`, { token: guest.token, body: { duration: '1h' } });
    expect(g.status).toBe(403);
    expect(g.body).toEqual({ message: '403 Forbidden' });
    const o = await api(`${base(issue.iid)}/time_estimate`, { token: outsider.token, body: { duration: '1h' } });
    expect(o.status).toBe(404);
    const back = await api(`${base(issue.iid)}/time_stats`, { token: owner.token });
    expect(back.body).toEqual(stats(0, 0, null, null));
  });
});

describe('POST /projects/:id/issues/:issue_iid/reset_time_estimate', () => {
  it('resets to zero (200)', async () => {
    const issue = await mkIssue();
    await api(`${base(issue.iid)}/time_estimate`, { token: owner.token, body: { duration: '2d' } });
    const res = await api(`${base(issue.iid)}/reset_time_estimate`, { token: reporter.token, method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(stats(0, 0, null, null));
    const back = await api(`${base(issue.iid)}/time_stats`, { token: owner.token });
    expect(back.body).toEqual(stats(0, 0, null, null));
    const g = await api(`${base(issue.iid)}/reset_time_estimate`, { token: guest.token, method: 'POST' });
    expect(g.status).toBe(403);
  });
});

describe('POST /projects/:id/issues/:issue_iid/add_spent_time', () => {
  it('adds and subtracts time (201), with an optional summary', async () => {
    const issue = await mkIssue();
    const a = await api(`${base(issue.iid)}/add_spent_time`, { token: reporter.token, body: { duration: '1h' } });
    expect(a.status).toBe(201);
    expect(a.body).toEqual(stats(0, 3600, null, '1h'));
    const b = await api(`${base(issue.iid)}/add_spent_time`, { token: reporter.token, body: { duration: '45m', summary: 'review' } });
    expect(b.status).toBe(201);
    expect(b.body).toEqual(stats(0, 6300, null, '1h 45m'));
    const c = await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '-15m' } });
    expect(c.status).toBe(201);
    expect(c.body).toEqual(stats(0, 5400, null, '1h 30m'));
    const back = await api(`${base(issue.iid)}/time_stats`, { token: guest.token });
    expect(back.body).toEqual(stats(0, 5400, null, '1h 30m'));
  });

  it('refuses to subtract more than was spent, and unreadable durations', async () => {
    const issue = await mkIssue();
    await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '1h' } });
    const over = await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '-9h' } });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ message: { time_spent: ['Time to subtract exceeds the total time spent'] } });
    const garbage = await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: 'lots' } });
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ message: { 'timelogs.time_spent': ["can't be blank"] } });
    const long = await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '1h', summary: 'x'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ message: { 'timelogs.summary': ['is too long (maximum is 255 characters)'] } });
    const tooMuch = await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '5y' } });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toEqual({ message: { 'timelogs.base': ['Total time spent cannot exceed 4 years.'] } });
    const back = await api(`${base(issue.iid)}/time_stats`, { token: owner.token });
    expect(back.body).toEqual(stats(0, 3600, null, '1h'));
  });

  it('clamps huge estimates to the database integer maximum', async () => {
    const issue = await mkIssue();
    const res = await api(`${base(issue.iid)}/time_estimate`, { token: owner.token, body: { duration: '99999999h' } });
    expect(res.status).toBe(200);
    expect(res.body.time_estimate).toBe(2147483647);
    expect((await api(`${base(issue.iid)}/time_stats`, { token: owner.token })).body.time_estimate).toBe(2147483647);
  });

  it('settles concurrent subtractions: the total never goes below zero', async () => {
    const issue = await mkIssue();
    await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '1h' } });
    const results = await Promise.all([0, 1, 2].map(() => api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '-45m' } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    const back = await api(`${base(issue.iid)}/time_stats`, { token: owner.token });
    expect(back.body).toEqual(stats(0, 900, null, '15m'));
  });

  it('needs admin_issue (guest 403, even as author) and sign-in', async () => {
    const issue = await mkIssue(guest.token);
    const g = await api(`${base(issue.iid)}/add_spent_time`, { token: guest.token, body: { duration: '1h' } });
    expect(g.status).toBe(403);
    const anon = await api(`${base(issue.iid)}/add_spent_time`, { body: { duration: '1h' } });
    expect(anon.status).toBe(401);
    const back = await api(`${base(issue.iid)}/time_stats`, { token: guest.token });
    expect(back.body).toEqual(stats(0, 0, null, null));
  });
});

describe('POST /projects/:id/issues/:issue_iid/reset_spent_time', () => {
  it('resets the total to zero (200), and later additions count from zero', async () => {
    const issue = await mkIssue();
    await api(`${base(issue.iid)}/time_estimate`, { token: owner.token, body: { duration: '1d' } });
    await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '2h' } });
    const res = await api(`${base(issue.iid)}/reset_spent_time`, { token: reporter.token, method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(stats(28800, 0, '1d', null));
    const again = await api(`${base(issue.iid)}/add_spent_time`, { token: owner.token, body: { duration: '30m' } });
    expect(again.body).toEqual(stats(28800, 1800, '1d', '30m'));
    const g = await api(`${base(issue.iid)}/reset_spent_time`, { token: guest.token, method: 'POST' });
    expect(g.status).toBe(403);
    const back = await api(`${base(issue.iid)}/time_stats`, { token: owner.token });
    expect(back.body).toEqual(stats(28800, 1800, '1d', '30m'));
  });
});
