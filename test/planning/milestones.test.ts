/** Milestones API: project and group milestones (GitLab project_milestones.rb, group_milestones.rb, milestone_responses.rb). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let group: { id: number; full_path: string };
let sub: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

async function mkGroup(token: string, parentId?: number) {
  const path = unique('g');
  const res = await api('/groups', { token, body: { name: path, path, visibility: 'private', ...(parentId ? { parent_id: parentId } : {}) } });
  expect(res.status).toBe(201);
  return res.body;
}
async function mkProject(token: string, namespaceId?: number) {
  const res = await api('/projects', { token, body: { name: unique('p'), visibility: 'private', ...(namespaceId ? { namespace_id: namespaceId } : {}) } });
  expect(res.status).toBe(201);
  return res.body;
}
const mk = (path: string, body: Record<string, unknown>, token = owner.token) => api(path, { token, body });

const FIELDS_PROJECT = ['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'due_date', 'start_date', 'expired', 'web_url'];
const FIELDS_GROUP = ['id', 'iid', 'group_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'due_date', 'start_date', 'expired', 'web_url'];

beforeAll(async () => {
  [owner, reporter, guest] = await Promise.all([createUser(), createUser(), createUser()]);
  group = await mkGroup(owner.token);
  sub = await mkGroup(owner.token, group.id);
  project = await mkProject(owner.token, sub.id);
  for (const [u, level] of [[reporter, 20], [guest, 10]] as const) {
    const res = await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    expect(res.status).toBe(201);
  }
});

describe('POST /projects/:id/milestones', () => {
  it('creates with the Milestone entity order, iids counting per project', async () => {
    const p = await mkProject(owner.token, sub.id);
    const a = await mk(`/projects/${p.id}/milestones`, { title: unique('v1'), description: 'first', start_date: '2030-01-01', due_date: '2030-02-01' });
    expect(a.status).toBe(201);
    expect(Object.keys(a.body)).toEqual(FIELDS_PROJECT);
    expect(a.body).toMatchObject({ iid: 1, project_id: p.id, description: 'first', state: 'active', start_date: '2030-01-01', due_date: '2030-02-01', expired: false });
    expect(a.body.web_url).toMatch(new RegExp(`/${p.path_with_namespace}/-/milestones/1$`));
    expect(a.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const b = await mk(`/projects/${p.id}/milestones`, { title: unique('v2'), due_date: '2001-01-01' }, reporter.token);
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ iid: 2, expired: true, start_date: null, description: null });
    const back = await api(`/projects/${p.id}/milestones/${a.body.id}`, { token: guest.token });
    expect(back.status).toBe(200);
    expect(back.body).toEqual(a.body);
  });

  it('gives distinct iids to concurrent creators', async () => {
    const p = await mkProject(owner.token);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => mk(`/projects/${p.id}/milestones`, { title: `c${i}-${unique('t')}` })));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(results.map((r) => r.body.iid).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('validates with "Failed to create milestone" and Ruby hash wording', async () => {
    const dates = await mk(`/projects/${project.id}/milestones`, { title: unique('d'), start_date: '2030-02-01', due_date: '2030-01-01' });
    expect(dates.status).toBe(400);
    expect(dates.body).toEqual({ message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' });
    const title = unique('dup');
    expect((await mk(`/projects/${project.id}/milestones`, { title })).status).toBe(201);
    const dup = await mk(`/projects/${project.id}/milestones`, { title });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' });
    const gtitle = unique('gdup');
    expect((await mk(`/groups/${group.id}/milestones`, { title: gtitle })).status).toBe(201);
    const fromAncestor = await mk(`/projects/${project.id}/milestones`, { title: gtitle });
    expect(fromAncestor.status).toBe(400);
    const missing = await mk(`/projects/${project.id}/milestones`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'title is missing' });
    const blank = await mk(`/projects/${project.id}/milestones`, { title: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: `Failed to create milestone {:title=>["can't be blank"]}` });
  });

  it('needs planner/reporter or above', async () => {
    const res = await mk(`/projects/${project.id}/milestones`, { title: unique('no') }, guest.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    const anon = await api(`/projects/${project.id}/milestones`, { method: 'POST', body: { title: 'x' } });
    expect(anon.status).toBe(401);
  });
});

describe('GET /projects/:id/milestones', () => {
  it('filters by state, iids, title, search and includes ancestors on request; sorts by due date, nulls last', async () => {
    const p = await mkProject(owner.token, sub.id);
    const late = await mk(`/projects/${p.id}/milestones`, { title: unique('late'), due_date: '2031-01-01' });
    const early = await mk(`/projects/${p.id}/milestones`, { title: unique('early'), due_date: '2030-01-01', description: 'findme please' });
    const none = await mk(`/projects/${p.id}/milestones`, { title: unique('none') });
    const closed = await mk(`/projects/${p.id}/milestones`, { title: unique('closed') });
    await api(`/projects/${p.id}/milestones/${closed.body.id}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    const groupM = await mk(`/groups/${group.id}/milestones`, { title: unique('gm') });

    const all = await api(`/projects/${p.id}/milestones`, { token: guest.token });
    expect(all.status).toBe(200);
    expect(all.body.map((m: any) => m.id)).toEqual([early.body.id, late.body.id, closed.body.id, none.body.id]);
    expect(all.headers.get('x-total')).toBe('4');
    expect(all.headers.get('link')).toContain('state=all');

    const active = await api(`/projects/${p.id}/milestones?state=active`, { token: guest.token });
    expect(active.body.map((m: any) => m.id)).toEqual([early.body.id, late.body.id, none.body.id]);
    const closedOnly = await api(`/projects/${p.id}/milestones?state=closed`, { token: guest.token });
    expect(closedOnly.body.map((m: any) => m.id)).toEqual([closed.body.id]);
    const byIids = await api(`/projects/${p.id}/milestones?iids[]=1&iids[]=3`, { token: guest.token });
    expect(byIids.body.map((m: any) => m.iid).sort()).toEqual([1, 3]);
    const many = await api(`/projects/${p.id}/milestones?iids=${Array.from({ length: 150 }, (_, i) => 150 - i).join(',')}`, { token: guest.token });
    expect(many.status).toBe(200);
    expect(many.body).toHaveLength(4);
    const byTitle = await api(`/projects/${p.id}/milestones?title=${encodeURIComponent(late.body.title)}`, { token: guest.token });
    expect(byTitle.body.map((m: any) => m.id)).toEqual([late.body.id]);
    const search = await api(`/projects/${p.id}/milestones?search=FINDME`, { token: guest.token });
    expect(search.body.map((m: any) => m.id)).toEqual([early.body.id]);
    const withAnc = await api(`/projects/${p.id}/milestones?include_ancestors=true`, { token: guest.token });
    expect(withAnc.body.map((m: any) => m.id)).toContain(groupM.body.id);
    const legacy = await api(`/projects/${p.id}/milestones?include_parent_milestones=true`, { token: guest.token });
    expect(legacy.body.map((m: any) => m.id)).toContain(groupM.body.id);
    const both = await api(`/projects/${p.id}/milestones?include_parent_milestones=true&include_ancestors=true`, { token: guest.token });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'include_ancestors, include_parent_milestones are mutually exclusive' });
    const badState = await api(`/projects/${p.id}/milestones?state=opened`, { token: guest.token });
    expect(badState.status).toBe(400);
    expect(badState.body).toEqual({ error: 'state does not have a valid value' });
    const badIids = await api(`/projects/${p.id}/milestones?iids=a`, { token: guest.token });
    expect(badIids.status).toBe(400);
    expect(badIids.body).toEqual({ error: 'iids is invalid' });
  });

  it('filters by updated_before / updated_after', async () => {
    const p = await mkProject(owner.token);
    const m = await mk(`/projects/${p.id}/milestones`, { title: unique('u') });
    const after = await api(`/projects/${p.id}/milestones?updated_after=2000-01-01T00:00:00Z`, { token: owner.token });
    expect(after.body.map((x: any) => x.id)).toEqual([m.body.id]);
    const before = await api(`/projects/${p.id}/milestones?updated_before=2000-01-01T00:00:00Z`, { token: owner.token });
    expect(before.body).toEqual([]);
  });

  it('unknown milestones answer 404 Not found', async () => {
    const res = await api(`/projects/${project.id}/milestones/999999999`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Not found' });
    const g = await mk(`/groups/${group.id}/milestones`, { title: unique('notmine') });
    const viaProject = await api(`/projects/${project.id}/milestones/${g.body.id}`, { token: owner.token });
    expect(viaProject.status).toBe(404);
  });
});

describe('PUT /projects/:id/milestones/:milestone_id', () => {
  it('closes, reactivates and edits; validation reads "Failed to update milestone"', async () => {
    const m = await mk(`/projects/${project.id}/milestones`, { title: unique('e'), due_date: '2030-05-05' });
    const closed = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'PUT', token: reporter.token, body: { state_event: 'close' } });
    expect(closed.status).toBe(200);
    expect(closed.body.state).toBe('closed');
    const title = unique('new');
    const edited = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'PUT', token: reporter.token, body: { state_event: 'activate', title, description: 'd' } });
    expect(edited.body).toMatchObject({ state: 'active', title, description: 'd', due_date: '2030-05-05' });
    const bad = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'PUT', token: reporter.token, body: { start_date: '2030-06-01' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'Failed to update milestone {:due_date=>["must be greater than start date"]}' });
    const cleared = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'PUT', token: reporter.token, body: { due_date: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.due_date).toBeNull();
    const back = await api(`/projects/${project.id}/milestones/${m.body.id}`, { token: guest.token });
    expect(back.body).toMatchObject({ title, state: 'active', due_date: null, start_date: null });
    const none = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'PUT', token: reporter.token, body: {} });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided' });
    const badEvent = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'PUT', token: reporter.token, body: { state_event: 'reopen' } });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body).toEqual({ error: 'state_event does not have a valid value' });
    const guestPut = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'PUT', token: guest.token, body: { title: 'x' } });
    expect(guestPut.status).toBe(403);
  });
});

describe('DELETE /projects/:id/milestones/:milestone_id', () => {
  it('deletes (204); guests 403; missing 404', async () => {
    const m = await mk(`/projects/${project.id}/milestones`, { title: unique('del') });
    expect((await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'DELETE', token: guest.token })).status).toBe(403);
    const res = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'DELETE', token: reporter.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api(`/projects/${project.id}/milestones/${m.body.id}`, { token: owner.token })).status).toBe(404);
    expect((await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'DELETE', token: owner.token })).status).toBe(404);
  });
});

describe('DELETE with If-Unmodified-Since', () => {
  it('answers 412 for a milestone changed since, and keeps it', async () => {
    const m = await mk(`/projects/${project.id}/milestones`, { title: unique('412') });
    const res = await api(`/projects/${project.id}/milestones/${m.body.id}`, { method: 'DELETE', token: owner.token, headers: { 'If-Unmodified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' } });
    expect(res.status).toBe(412);
    expect((await api(`/projects/${project.id}/milestones/${m.body.id}`, { token: owner.token })).status).toBe(200);
  });
});

describe('POST /projects/:id/milestones/:milestone_id/promote', () => {
  it('moves the milestone (and same-titled ones of sibling projects) to the group', async () => {
    const g = await mkGroup(owner.token, group.id);
    const p1 = await mkProject(owner.token, g.id);
    const p2 = await mkProject(owner.token, g.id);
    const title = unique('promo');
    const a = await mk(`/projects/${p1.id}/milestones`, { title, description: 'desc', due_date: '2030-03-03' });
    const b = await mk(`/projects/${p2.id}/milestones`, { title });
    const denied = await api(`/projects/${p1.id}/milestones/${a.body.id}/promote`, { method: 'POST', token: guest.token });
    expect(denied.status).toBe(403);
    const res = await api(`/projects/${p1.id}/milestones/${a.body.id}/promote`, { method: 'POST', token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body).toBe(200);
    expect((await api(`/projects/${p1.id}/milestones/${a.body.id}`, { token: owner.token })).status).toBe(404);
    expect((await api(`/projects/${p2.id}/milestones/${b.body.id}`, { token: owner.token })).status).toBe(404);
    const inGroup = await api(`/groups/${g.id}/milestones?title=${encodeURIComponent(title)}`, { token: owner.token });
    expect(inGroup.body).toHaveLength(1);
    expect(inGroup.body[0]).toMatchObject({ group_id: g.id, iid: 1, title, description: 'desc', due_date: '2030-03-03', state: 'active' });
  });

  it('refuses projects outside groups (403) and unknown milestones (404)', async () => {
    const personal = await mkProject(owner.token);
    const m = await mk(`/projects/${personal.id}/milestones`, { title: unique('pp') });
    expect((await api(`/projects/${personal.id}/milestones/${m.body.id}/promote`, { method: 'POST', token: owner.token })).status).toBe(403);
    expect((await api(`/projects/${personal.id}/milestones/${m.body.id}`, { token: owner.token })).status).toBe(200);
    const nf = await api(`/projects/${project.id}/milestones/999999999/promote`, { method: 'POST', token: owner.token });
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ message: '404 Not found' });
  });
});

describe('group milestones', () => {
  it('creates with group_id and a group web_url, iids per group; lists with ancestors and descendants', async () => {
    const g = await mkGroup(owner.token, group.id);
    const a = await mk(`/groups/${g.id}/milestones`, { title: unique('ga') });
    expect(a.status).toBe(201);
    expect(Object.keys(a.body)).toEqual(FIELDS_GROUP);
    expect(a.body).toMatchObject({ iid: 1, group_id: g.id });
    expect(a.body.web_url).toMatch(new RegExp(`/groups/${g.full_path}/-/milestones/1$`));
    const b = await mk(`/groups/${g.id}/milestones`, { title: unique('gb') }, reporter.token);
    expect(b.body.iid).toBe(2);
    const parentM = await mk(`/groups/${group.id}/milestones`, { title: unique('gp') });
    const p = await mkProject(owner.token, g.id);
    const pm = await mk(`/projects/${p.id}/milestones`, { title: unique('pm') });

    const own = await api(`/groups/${g.id}/milestones`, { token: guest.token });
    expect(own.body.map((m: any) => m.id).sort()).toEqual([a.body.id, b.body.id].sort());
    const anc = await api(`/groups/${g.id}/milestones?include_ancestors=true&per_page=100`, { token: guest.token });
    expect(anc.body.map((m: any) => m.id)).toContain(parentM.body.id);
    const desc = await api(`/groups/${group.id}/milestones?include_descendants=true&per_page=100`, { token: guest.token });
    expect(desc.body.map((m: any) => m.id)).toEqual(expect.arrayContaining([a.body.id, pm.body.id, parentM.body.id]));

    // A group milestone title must not clash with a project milestone below it.
    const clash = await mk(`/groups/${g.id}/milestones`, { title: pm.body.title });
    expect(clash.status).toBe(400);
    expect(clash.body.message).toBe('Failed to create milestone {:title=>["already being used for another group or project milestone."]}');

    const upd = await api(`/groups/${g.id}/milestones/${a.body.id}`, { method: 'PUT', token: reporter.token, body: { state_event: 'close' } });
    expect(upd.status).toBe(200);
    expect(upd.body.state).toBe('closed');
    expect((await api(`/groups/${g.id}/milestones/${a.body.id}`, { token: guest.token })).body.state).toBe('closed');
    expect((await api(`/groups/${g.id}/milestones/${a.body.id}`, { method: 'DELETE', token: guest.token })).status).toBe(403);
    expect((await api(`/groups/${g.id}/milestones/${a.body.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`/groups/${g.id}/milestones/${a.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it('group and project of other users are 404, anonymous 401', async () => {
    const stranger = await createUser();
    expect((await api(`/groups/${group.id}/milestones`, { token: stranger.token })).status).toBe(404);
    expect((await api(`/projects/${project.id}/milestones`, { token: stranger.token })).status).toBe(404);
    expect((await api(`/groups/${group.id}/milestones`)).status).toBe(401);
    expect((await api(`/groups/${group.id}/milestones`, { token: rootToken })).status).toBe(200);
  });
});
