/**
 * Filters of the issue lists (spec "### Issues" filter table, reference 1 §5.1): labels,
 * milestones, assignees, authors, search, iids, dates, due-date buckets, confidentiality, issue
 * type, weight, the `not[...]` hash and with_labels_details. State is created through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

async function newProject(token: string, body: Record<string, unknown> = {}) {
  const name = unique('p');
  const res = await api('/projects', { token, body: { name, visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; path: string; path_with_namespace: string };
}

async function newIssue(projectId: number, token: string, body: Record<string, unknown> = {}) {
  const res = await api(`/projects/${projectId}/issues`, { token, body: { title: unique('issue'), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; iid: number; title: string };
}

const ids = (body: { id: number }[]) => (Array.isArray(body) ? body.map((i) => i.id) : body);
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

let owner: TestUser;
let alice: TestUser;
let bob: TestUser;
let project: { id: number; path: string; path_with_namespace: string };
const list = async (q: string, token?: string) => {
  const res = await api(`/projects/${project.id}/issues?per_page=100&${q}`, { token: token ?? owner.token });
  expect(res.status, `${q}: ${res.text}`).toBe(200);
  return sorted(ids(res.body));
};

beforeAll(async () => {
  owner = await createUser();
  alice = await createUser();
  bob = await createUser();
  project = await newProject(owner.token);
  for (const u of [alice, bob]) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } })).status).toBe(201);
  }
});

describe('labels', () => {
  let bugUi: { id: number };
  let bug: { id: number };
  let bare: { id: number };
  beforeAll(async () => {
    bugUi = await newIssue(project.id, owner.token, { labels: 'bug,ui' });
    bug = await newIssue(project.id, owner.token, { labels: 'bug' });
    bare = await newIssue(project.id, owner.token);
  });

  it('all listed labels must match (AND)', async () => {
    expect(await list('labels=bug')).toEqual(sorted([bugUi.id, bug.id]));
    expect(await list('labels=bug,ui')).toEqual([bugUi.id]);
    expect(await list('labels[]=bug&labels[]=ui')).toEqual([bugUi.id]);
    expect(await list('labels=bug, ui')).toEqual([bugUi.id]);
  });

  it('None/Any are case-insensitive; No+Label means no labels', async () => {
    expect(await list('labels=Any')).toEqual(sorted([bugUi.id, bug.id]));
    expect(await list('labels=any')).toEqual(sorted([bugUi.id, bug.id]));
    expect(await list('labels=None')).toEqual([bare.id]);
    expect(await list('labels=NONE')).toEqual([bare.id]);
    expect(await list('labels=No+Label')).toEqual([bare.id]);
  });

  it('an unknown label gives an empty list; label names are case-sensitive', async () => {
    expect(await list('labels=bug,nosuchlabel')).toEqual([]);
    expect(await list('labels=BUG')).toEqual([]);
  });

  it('not[labels] excludes issues carrying any of them; unknown names are ignored', async () => {
    const res = await list('not[labels]=ui');
    expect(res).toContain(bug.id);
    expect(res).toContain(bare.id);
    expect(res).not.toContain(bugUi.id);
    expect(await list('not[labels]=nosuchlabel')).toEqual(await list(''));
  });

  it('with_labels_details=true presents label objects', async () => {
    const res = await api(`/projects/${project.id}/issues?iids[]=${(bugUi as { iid?: number }).iid}&with_labels_details=true`);
    expect(res.status).toBe(200);
    expect(res.body[0].labels.map((l: { name: string }) => l.name)).toEqual(['bug', 'ui']);
    expect(Object.keys(res.body[0].labels[0])).toEqual(expect.arrayContaining(['name', 'color', 'description', 'text_color']));
    const plain = await api(`/projects/${project.id}/issues?iids[]=${(bugUi as { iid?: number }).iid}`);
    expect(plain.body[0].labels).toEqual(['bug', 'ui']);
  });
});

describe('assignees and authors', () => {
  let toAlice: { id: number };
  let toBoth: { id: number };
  let byBob: { id: number };
  beforeAll(async () => {
    toAlice = await newIssue(project.id, owner.token, { assignee_ids: [alice.id] });
    toBoth = await newIssue(project.id, owner.token, { assignee_ids: [alice.id, bob.id] });
    byBob = await newIssue(project.id, bob.token);
  });

  it('assignee_id: an id, None and Any', async () => {
    expect(await list(`assignee_id=${alice.id}`)).toEqual(sorted([toAlice.id, toBoth.id]));
    expect(await list(`assignee_id=${bob.id}`)).toEqual([toBoth.id]);
    const unassigned = await list('assignee_id=None');
    expect(unassigned).toContain(byBob.id);
    expect(unassigned).not.toContain(toAlice.id);
    expect(await list('assignee_id=any')).toEqual(expect.arrayContaining([toAlice.id, toBoth.id]));
    expect(await list('assignee_id=any')).not.toContain(byBob.id);
    expect(await list('assignee_id=999999999')).toEqual([]);
  });

  it('assignee_username (one value in this edition) and unknown usernames', async () => {
    expect(await list(`assignee_username=${alice.username.toUpperCase()}`)).toEqual(sorted([toAlice.id, toBoth.id]));
    expect(await list(`assignee_username[]=${bob.username}`)).toEqual([toBoth.id]);
    expect(await list('assignee_username=nobody-here')).toEqual([]);
  });

  it('not[assignee_id] and not[assignee_username]', async () => {
    const notAlice = await list(`not[assignee_id]=${alice.id}`);
    expect(notAlice).toContain(byBob.id);
    expect(notAlice).not.toContain(toBoth.id);
    expect(await list(`not[assignee_username][]=${bob.username}`)).not.toContain(toBoth.id);
    expect(await list(`not[assignee_username][]=${bob.username}`)).toContain(toAlice.id);
  });

  it('author_id, author_username and their negations', async () => {
    expect(await list(`author_id=${bob.id}`)).toEqual([byBob.id]);
    expect(await list(`author_username=${bob.username}`)).toEqual([byBob.id]);
    expect(await list('author_username=nobody-here')).toEqual([]);
    expect(await list(`not[author_id]=${bob.id}`)).not.toContain(byBob.id);
    expect(await list(`not[author_username]=${bob.username}`)).toEqual(expect.arrayContaining([toAlice.id, toBoth.id]));
    expect(await list(`not[author_username]=${bob.username}`)).not.toContain(byBob.id);
  });
});

describe('search, iids, state, dates, types', () => {
  let crash: { id: number; iid: number };
  let other: { id: number; iid: number };
  let pct: { id: number; iid: number };
  beforeAll(async () => {
    crash = await newIssue(project.id, owner.token, { title: 'Crash on startup zqx', description: 'happens when the cache is cold' });
    other = await newIssue(project.id, owner.token, { title: 'Docs typo zqx', description: 'ok', created_at: '2020-02-01T10:00:00Z', issue_type: 'incident' });
    pct = await newIssue(project.id, owner.token, { title: '100% literal_under', created_at: '2020-03-01T10:00:00Z' });
  });

  it('search matches every word of 3+ characters in title or description, case-insensitively', async () => {
    expect(await list('search=CRASH')).toEqual([crash.id]);
    expect(await list('search=crash%20cold')).toEqual([]);
    expect(await list('search=cache%20cold')).toEqual([crash.id]);
    expect(await list('search=cold&in=title')).toEqual([]);
    expect(await list('search=cold&in=description')).toEqual([crash.id]);
    expect(await list('search=zqx&in=title,description')).toEqual(sorted([crash.id, other.id]));
    // Words shorter than 3 are ignored ("on"); with no long word the whole string must match exactly.
    expect(await list('search=on%20startup')).toEqual([crash.id]);
    expect(await list('search=ok')).toEqual([other.id]);
    // LIKE wildcards are literal.
    expect(await list('search=0%25%20l')).toEqual([]);
    expect(await list(`search=${encodeURIComponent('literal_under')}`)).toEqual([pct.id]);
    expect(await list(`search=${encodeURIComponent('literal%under')}`)).toEqual([]);
  });

  it('iids (repeated or comma-separated) and not[iids]', async () => {
    expect(await list(`iids[]=${crash.iid}&iids[]=${other.iid}`)).toEqual(sorted([crash.id, other.id]));
    expect(await list(`iids=${crash.iid},${other.iid}`)).toEqual(sorted([crash.id, other.id]));
    expect(await list(`not[iids][]=${crash.iid}`)).not.toContain(crash.id);
  });

  it('created_after/created_before, with %2B and with a raw + decoded as a space', async () => {
    expect(await list('created_before=2020-02-15T00:00:00Z')).toEqual([other.id]);
    expect(await list('created_after=2020-02-01T10:00:00Z&created_before=2020-03-01T10:00:00Z')).toEqual(sorted([other.id, pct.id]));
    // 2020-02-01T11:00:00+01:00 is 10:00Z: inclusive bounds.
    expect(await list('created_before=2020-02-01T11:00:00%2B01:00&created_after=2020-01-01')).toEqual([other.id]);
    // A raw '+' arrives as a space; like Ruby's DateTime.parse the offset is then ignored (11:00 UTC).
    expect(await list('created_after=2020-02-01T11:00:00+01:00&created_before=2020-02-20')).toEqual([]);
    expect(await list('created_after=2020-02-01T09:00:00+01:00&created_before=2020-02-20')).toEqual([other.id]);
  });

  it('updated_after excludes what was last updated before', async () => {
    expect(await list('updated_after=2999-01-01T00:00:00Z')).toEqual([]);
    expect(await list('updated_before=2999-01-01T00:00:00Z')).toContain(crash.id);
  });

  it('state and closed_by_id', async () => {
    const closed = await newIssue(project.id, owner.token);
    const iid = (closed as { iid: number }).iid;
    expect((await api(`/projects/${project.id}/issues/${iid}`, { method: 'PUT', token: alice.token, body: { state_event: 'close' } })).status).toBe(200);
    expect(await list('state=closed')).toEqual([closed.id]);
    expect(await list('state=opened')).not.toContain(closed.id);
    expect(await list(`closed_by_id=${alice.id}`)).toEqual([closed.id]);
    expect(await list(`closed_by_id=${bob.id}`)).toEqual([]);
  });

  it('issue_type', async () => {
    expect(await list('issue_type=incident')).toEqual([other.id]);
    expect(await list('issue_type=issue')).not.toContain(other.id);
  });
});

describe('due_date buckets', () => {
  const day = (offset: number) => {
    const d = new Date();
    d.setUTCDate(d.getUTCDate() + offset);
    return d.toISOString().slice(0, 10);
  };
  let p: { id: number };
  const issues: Record<string, { id: number }> = {};
  beforeAll(async () => {
    p = await newProject(owner.token);
    for (const [k, due] of [
      ['yesterday', day(-1)],
      ['today', day(0)],
      ['tomorrow', day(1)],
      ['far', '2099-12-31'],
      ['none', undefined],
    ] as const) {
      issues[k] = await newIssue(p.id, owner.token, due ? { due_date: due } : {});
    }
  });
  const due = async (v: string) => sorted(ids((await api(`/projects/${p.id}/issues?due_date=${v}`)).body));
  const expected = (keys: string[]) => sorted(keys.map((k) => issues[k].id));

  it('0, any, today, tomorrow, overdue, and the empty value', async () => {
    expect(await due('0')).toEqual(expected(['none']));
    expect(await due('any')).toEqual(expected(['yesterday', 'today', 'tomorrow', 'far']));
    expect(await due('today')).toEqual(expected(['today']));
    expect(await due('tomorrow')).toEqual(expected(['tomorrow']));
    expect(await due('overdue')).toEqual(expected(['yesterday']));
    expect(await due('')).toEqual(expected(['yesterday', 'today', 'tomorrow', 'far', 'none']));
  });

  it('week (Monday to Sunday), month, next_month_and_previous_two_weeks', async () => {
    const t = new Date(`${day(0)}T00:00:00Z`);
    const dow = (t.getUTCDay() + 6) % 7;
    const inWeek = (offset: number) => offset >= -dow && offset <= 6 - dow;
    const month = day(0).slice(0, 7);
    const week = ['yesterday', 'today', 'tomorrow'].filter((k, i) => inWeek(i - 1));
    expect(await due('week')).toEqual(expected(week));
    const inMonth = ['yesterday', 'today', 'tomorrow'].filter((k, i) => day(i - 1).slice(0, 7) === month);
    expect(await due('month')).toEqual(expected(inMonth));
    expect(await due('next_month_and_previous_two_weeks')).toEqual(expected(['yesterday', 'today', 'tomorrow']));
  });
});

describe('confidential and weight', () => {
  let secret: { id: number };
  let heavy: { id: number };
  let p: { id: number };
  beforeAll(async () => {
    p = await newProject(owner.token);
    secret = await newIssue(p.id, owner.token, { confidential: true });
    heavy = await newIssue(p.id, owner.token, { weight: 5 });
  });
  const q = async (s: string) => sorted(ids((await api(`/projects/${p.id}/issues?${s}`, { token: owner.token })).body));

  it('confidential=true/false', async () => {
    expect(await q('confidential=true')).toEqual([secret.id]);
    expect(await q('confidential=false')).toEqual([heavy.id]);
  });

  it('weight: a value, None, Any, not[weight]', async () => {
    expect(await q('weight=5')).toEqual([heavy.id]);
    expect(await q('weight=None')).toEqual([secret.id]);
    expect(await q('weight=any')).toEqual([heavy.id]);
    expect(await q('weight=4')).toEqual([]);
    // where.not(weight: 5): issues without a weight are not returned either (SQL NULL).
    expect(await q('not[weight]=5')).toEqual([]);
    expect(await q('not[weight]=4')).toEqual([heavy.id]);
  });

  it('epic_id None/Any and iteration filters', async () => {
    expect(await q('epic_id=None')).toEqual(sorted([secret.id, heavy.id]));
    expect(await q('epic_id=Any')).toEqual([]);
    expect(await q('iteration_id=None')).toEqual(sorted([secret.id, heavy.id]));
    expect(await q('iteration_id=Current')).toEqual([]);
    expect(await q('iteration_title=Sprint')).toEqual([]);
    const bad = await api(`/projects/${p.id}/issues?iteration_id=soon`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'iteration_id should be an integer, none, any, or current, however got soon' });
  });

  it('health_status none/any', async () => {
    expect(await q('health_status=none')).toEqual(sorted([secret.id, heavy.id]));
    expect(await q('health_status=at_risk')).toEqual([]);
  });
});

describe('milestones', () => {
  let p: { id: number };
  let v1: { id: number };
  let later: { id: number };
  let started: { id: number };
  const ms: Record<string, { id: number }> = {};
  const day = (offset: number) => {
    const d = new Date();
    d.setUTCDate(d.getUTCDate() + offset);
    return d.toISOString().slice(0, 10);
  };
  beforeAll(async () => {
    p = await newProject(owner.token);
    for (const [title, body] of [
      ['v1', { due_date: day(10) }],
      ['v2', { due_date: day(40) }],
      ['now', { start_date: day(-3) }],
    ] as const) {
      const res = await api(`/projects/${p.id}/milestones`, { token: owner.token, body: { title, ...body } });
      expect(res.status, res.text).toBe(201);
      ms[title] = res.body;
    }
    v1 = await newIssue(p.id, owner.token, { milestone_id: ms.v1.id });
    later = await newIssue(p.id, owner.token, { milestone_id: ms.v2.id });
    started = await newIssue(p.id, owner.token, { milestone_id: ms.now.id });
  });
  const q = async (s: string) => sorted(ids((await api(`/projects/${p.id}/issues?${s}`)).body));

  it('by title, None and Any (case-insensitive), legacy titles', async () => {
    const none = await newIssue(p.id, owner.token);
    expect(await q('milestone=v1')).toEqual([v1.id]);
    expect(await q('milestone=None')).toEqual([none.id]);
    expect(await q('milestone=none')).toEqual([none.id]);
    expect(await q('milestone=No+Milestone')).toEqual([none.id]);
    expect(await q('milestone=Any')).toEqual(sorted([v1.id, later.id, started.id]));
    expect(await q('milestone=nosuch')).toEqual([]);
    expect(await q('milestone_id=None')).toEqual([none.id]);
    expect(await q('milestone_id=Any')).toEqual(sorted([v1.id, later.id, started.id]));
  });

  it('Upcoming is the active milestone due soonest; Started has begun', async () => {
    expect(await q('milestone_id=Upcoming')).toEqual([v1.id]);
    expect(await q('milestone=%23upcoming')).toEqual([v1.id]);
    expect(await q('milestone_id=Started')).toEqual([started.id]);
  });

  it('not[milestone] and not[milestone_id]', async () => {
    const res = await q('not[milestone]=v1');
    expect(res).not.toContain(v1.id);
    expect(res).toEqual(expect.arrayContaining([later.id, started.id]));
    // Milestone.not_started: active milestones starting after today; none here has a start date ahead.
    expect(await q('not[milestone_id]=Started')).toEqual([]);
    // Milestone.not_upcoming: active milestones already due; none here.
    expect(await q('not[milestone_id]=Upcoming')).toEqual([]);
    // Any other negated wildcard is read as a (nil) title: only issues without a milestone.
    expect(await q('not[milestone_id]=Any')).toEqual(await q('milestone=None'));
  });

  it('order_by=milestone_due: due dates first, undated milestones next, no milestone last', async () => {
    const res = await api(`/projects/${p.id}/issues?order_by=milestone_due&sort=asc&milestone=Any`);
    expect(ids(res.body)).toEqual([v1.id, later.id, started.id]);
    const desc = await api(`/projects/${p.id}/issues?order_by=milestone_due&sort=desc&milestone=Any`);
    expect(ids(desc.body)).toEqual([later.id, v1.id, started.id]);
  });
});

describe('free-edition rules and reactions', () => {
  it('more than one assignee_username is accepted in this (paid) edition', async () => {
    const res = await api(`/projects/${project.id}/issues?assignee_username[]=${alice.username}&assignee_username[]=${bob.username}`);
    expect(res.status).toBe(200);
  });

  it('my_reaction_emoji is ignored for anonymous callers', async () => {
    const anon = await api(`/projects/${project.id}/issues?my_reaction_emoji=thumbsup&per_page=100`);
    const all = await api(`/projects/${project.id}/issues?per_page=100`);
    expect(ids(anon.body)).toEqual(ids(all.body));
    const none = await api(`/projects/${project.id}/issues?my_reaction_emoji=None&per_page=100`, { token: alice.token });
    expect(ids(none.body)).toEqual(ids(all.body));
    const any = await api(`/projects/${project.id}/issues?my_reaction_emoji=Any`, { token: alice.token });
    expect(any.body).toEqual([]);
  });
});

describe('epic_id (premium)', () => {
  it('an epic id, None and Any', async () => {
    const path = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } });
    expect(g.status).toBe(201);
    const p = await newProject(owner.token, { namespace_id: g.body.id });
    const epic = await api(`/groups/${g.body.id}/epics`, { token: owner.token, body: { title: 'Epic one' } });
    expect(epic.status, epic.text).toBe(201);
    const inEpic = await newIssue(p.id, owner.token, { epic_id: epic.body.id });
    const loose = await newIssue(p.id, owner.token);
    const q = async (s: string) => sorted(ids((await api(`/groups/${g.body.id}/issues?${s}`)).body));
    expect(await q(`epic_id=${epic.body.id}`)).toEqual([inEpic.id]);
    expect(await q('epic_id=Any')).toEqual([inEpic.id]);
    expect(await q('epic_id=None')).toEqual([loose.id]);
    expect(await q(`epic_id=${epic.body.id + 1000}`)).toEqual([]);
  });
});
