/** Labels API: project and group labels, priorities, subscriptions, promotion (GitLab lib/api/labels.rb, group_labels.rb). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let group: { id: number; full_path: string; name: string };
let sub: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let personal: { id: number };

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

beforeAll(async () => {
  [owner, reporter, guest] = await Promise.all([createUser(), createUser(), createUser()]);
  group = await mkGroup(owner.token);
  sub = await mkGroup(owner.token, group.id);
  project = await mkProject(owner.token, sub.id);
  personal = await mkProject(owner.token);
  for (const [u, level] of [[reporter, 20], [guest, 10]] as const) {
    const res = await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    expect(res.status).toBe(201);
  }
});

const mkLabel = async (path: string, body: Record<string, unknown>, token = owner.token) => api(path, { token, body });

describe('POST /projects/:id/labels', () => {
  it('creates a label with GitLab field order, text colour and priority', async () => {
    const name = unique('bug');
    const res = await mkLabel(`/projects/${project.id}/labels`, { name, color: '#FFAABB', description: 'A <b>bug</b> & more', priority: 3 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'description', 'description_html', 'text_color', 'color', 'subscribed', 'priority', 'is_project_label']);
    expect(res.body).toMatchObject({ name, color: '#FFAABB', description: 'A bug & more', description_html: 'A bug &amp; more', text_color: '#333333', subscribed: false, priority: 3, is_project_label: true });
    const back = await api(`/projects/${project.id}/labels/${res.body.id}`, { token: reporter.token });
    expect(back.status).toBe(200);
    expect(back.body).toEqual(res.body);
    const byName = await api(`/projects/${project.id}/labels/${encodeURIComponent(name)}`, { token: reporter.token });
    expect(byName.body.id).toBe(res.body.id);
  });

  it('converts colour names, computes white text on dark colours, and accepts form bodies', async () => {
    const res = await api(`/projects/${project.id}/labels`, { token: owner.token, form: { name: unique('n'), color: 'navy' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ color: '#000080', text_color: '#FFFFFF', description: null, description_html: '', priority: null });
    const emoji = await mkLabel(`/projects/${project.id}/labels`, { name: unique('e'), color: '#000000', description: 'say "hi" :thumbsup: it\'s' });
    expect(emoji.body.description_html).toMatch(/^say &quot;hi&quot; <gl-emoji title="thumbs up" data-name="\+1"[^>]*>👍<\/gl-emoji> it's$/);
    const short = await mkLabel(`/projects/${project.id}/labels`, { name: unique('s'), color: '#fff' });
    expect(short.body).toMatchObject({ color: '#fff', text_color: '#333333' });
  });

  it('validates colour and title with model messages', async () => {
    const bad = await mkLabel(`/projects/${project.id}/labels`, { name: unique('x'), color: 'notacolor' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { color: ['must be a valid color code'] } });
    const comma = await mkLabel(`/projects/${project.id}/labels`, { name: 'a,b', color: '#000000' });
    expect(comma.status).toBe(400);
    expect(comma.body).toEqual({ message: { title: ['is invalid'] } });
    const negative = await mkLabel(`/projects/${project.id}/labels`, { name: 'negprio', color: '#000000', priority: -1 });
    expect(negative.status).toBe(400);
    expect(negative.body).toEqual({ message: { priority: ['must be greater than or equal to 0'] } });
    expect((await api(`/projects/${project.id}/labels/negprio`, { token: owner.token })).status).toBe(404);
    const missing = await mkLabel(`/projects/${project.id}/labels`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing, color is missing' });
    const list = await api(`/projects/${project.id}/labels?search=a%2Cb`, { token: owner.token });
    expect(list.body).toEqual([]);
  });

  it('answers 409 for a title taken in the project or an ancestor group', async () => {
    const name = unique('dup');
    expect((await mkLabel(`/projects/${project.id}/labels`, { name, color: '#000000' })).status).toBe(201);
    const again = await mkLabel(`/projects/${project.id}/labels`, { name, color: '#000000' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Label already exists' });
    const gname = unique('gdup');
    expect((await mkLabel(`/groups/${group.id}/labels`, { name: gname, color: '#000000' })).status).toBe(201);
    const inProject = await mkLabel(`/projects/${project.id}/labels`, { name: gname, color: '#000000' });
    expect(inProject.status).toBe(409);
  });

  it('concurrent creators of one title: one 201, the rest 409, never 500', async () => {
    const name = unique('race');
    const results = await Promise.all(Array.from({ length: 4 }, () => mkLabel(`/projects/${project.id}/labels`, { name, color: '#000000', priority: 1 })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body).toEqual({ message: 'Label already exists' });
    const list = await api(`/projects/${project.id}/labels?search=${name}`, { token: owner.token });
    expect(list.body).toHaveLength(1);
  });

  it('needs planner/reporter or above: a guest gets 403, nothing is written', async () => {
    const name = unique('g');
    const res = await mkLabel(`/projects/${project.id}/labels`, { name, color: '#000000' }, guest.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/projects/${project.id}/labels/${name}`, { token: owner.token })).status).toBe(404);
    expect((await mkLabel(`/projects/${project.id}/labels`, { name, color: '#000000' }, reporter.token)).status).toBe(201);
  });
});

describe('GET /projects/:id/labels', () => {
  it('lists own and ancestor group labels sorted by title, include_ancestor_groups=false drops group labels', async () => {
    const p = await mkProject(owner.token, sub.id);
    const top = await mkLabel(`/groups/${group.id}/labels`, { name: `zz-${unique('t')}`, color: '#111111' });
    const mid = await mkLabel(`/groups/${sub.id}/labels`, { name: `mm-${unique('m')}`, color: '#222222' });
    const own = await mkLabel(`/projects/${p.id}/labels`, { name: `aa-${unique('o')}`, color: '#333333' });
    const res = await api(`/projects/${p.id}/labels?per_page=100`, { token: guest.token });
    expect(res.status).toBe(200);
    const names: string[] = res.body.map((l: any) => l.name);
    expect(names).toContain(top.body.name);
    expect(names).toContain(mid.body.name);
    expect(names).toContain(own.body.name);
    expect([...names].sort()).toEqual(names);
    const groupLabel = res.body.find((l: any) => l.id === top.body.id);
    expect(groupLabel.is_project_label).toBe(false);
    const onlyOwn = await api(`/projects/${p.id}/labels?include_ancestor_groups=false`, { token: guest.token });
    expect(onlyOwn.body.map((l: any) => l.name)).toEqual(expect.arrayContaining([own.body.name, mid.body.name]));
    expect(onlyOwn.body.map((l: any) => l.name)).not.toContain(top.body.name);
    expect(res.headers.get('x-total')).toBe(String(res.body.length));
  });

  it('searches title and description, paginates', async () => {
    const p = await mkProject(owner.token);
    const word = unique('needle');
    await mkLabel(`/projects/${p.id}/labels`, { name: `x-${word}`, color: '#000000' });
    await mkLabel(`/projects/${p.id}/labels`, { name: unique('y'), color: '#000000', description: `has ${word.toUpperCase()}` });
    await mkLabel(`/projects/${p.id}/labels`, { name: unique('z'), color: '#000000' });
    const res = await api(`/projects/${p.id}/labels?search=${word}`, { token: owner.token });
    expect(res.body).toHaveLength(2);
    const page = await api(`/projects/${p.id}/labels?per_page=2&page=2`, { token: owner.token });
    expect(page.body).toHaveLength(1);
    expect(page.headers.get('x-total')).toBe('3');
    expect(page.headers.get('link')).toContain('include_ancestor_groups=true');
    const long = await api(`/projects/${p.id}/labels?search=${'q'.repeat(300)}`, { token: owner.token });
    expect(long.status).toBe(200);
    expect(long.body).toEqual([]);
  });

  it('filters by archived', async () => {
    const p = await mkProject(owner.token);
    const kept = await mkLabel(`/projects/${p.id}/labels`, { name: unique('k'), color: '#000000' });
    const old = await mkLabel(`/projects/${p.id}/labels`, { name: unique('a'), color: '#000000', archived: true });
    const archived = await api(`/projects/${p.id}/labels?archived=true`, { token: owner.token });
    expect(archived.body.map((l: any) => l.id)).toEqual([old.body.id]);
    const active = await api(`/projects/${p.id}/labels?archived=false`, { token: owner.token });
    expect(active.body.map((l: any) => l.id)).toEqual([kept.body.id]);
    await api(`/projects/${p.id}/labels/${old.body.id}`, { method: 'PUT', token: owner.token, body: { archived: false } });
    expect((await api(`/projects/${p.id}/labels?archived=false`, { token: owner.token })).body).toHaveLength(2);
  });

  it('with_counts adds the three counts before subscribed', async () => {
    const p = await mkProject(owner.token);
    await mkLabel(`/projects/${p.id}/labels`, { name: unique('c'), color: '#000000' });
    const res = await api(`/projects/${p.id}/labels?with_counts=true`, { token: owner.token });
    expect(Object.keys(res.body[0])).toEqual([
      'id', 'name', 'description', 'description_html', 'text_color', 'color',
      'open_issues_count', 'closed_issues_count', 'open_merge_requests_count', 'subscribed', 'priority', 'is_project_label',
    ]);
    expect(res.body[0]).toMatchObject({ open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0 });
  });

  it('requires sign-in and answers 404 for unknown labels', async () => {
    const anon = await api(`/projects/${project.id}/labels`);
    expect(anon.status).toBe(401);
    const nf = await api(`/projects/${project.id}/labels/${unique('none')}`, { token: owner.token });
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ message: '404 Label Not Found' });
  });
});

describe('PUT /projects/:id/labels/:name', () => {
  it('renames, recolours, sets and removes the priority', async () => {
    const l = await mkLabel(`/projects/${project.id}/labels`, { name: unique('u'), color: '#000000' });
    const newName = unique('renamed');
    const res = await api(`/projects/${project.id}/labels/${l.body.id}`, { method: 'PUT', token: reporter.token, body: { new_name: newName, color: 'red', priority: 7 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: l.body.id, name: newName, color: '#FF0000', priority: 7 });
    const cleared = await api(`/projects/${project.id}/labels/${encodeURIComponent(newName)}`, { method: 'PUT', token: reporter.token, body: { priority: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.priority).toBeNull();
    const back = await api(`/projects/${project.id}/labels/${l.body.id}`, { token: reporter.token });
    expect(back.body).toMatchObject({ name: newName, priority: null, color: '#FF0000' });
    const desc = await api(`/projects/${project.id}/labels/${l.body.id}`, { method: 'PUT', token: reporter.token, body: { description: 'some' } });
    expect(desc.body.description).toBe('some');
    const blank = await api(`/projects/${project.id}/labels/${l.body.id}`, { method: 'PUT', token: reporter.token, body: { description: '' } });
    expect(blank.body).toMatchObject({ description: '', description_html: '' });
    const blankName = await api(`/projects/${project.id}/labels/${l.body.id}`, { method: 'PUT', token: reporter.token, body: { new_name: '' } });
    expect(blankName.status).toBe(400);
    expect(blankName.body).toEqual({ message: { title: ["can't be blank", 'is invalid'] } });
  });

  it('refuses an empty update, a taken title and a bad colour', async () => {
    const a = await mkLabel(`/projects/${project.id}/labels`, { name: unique('a'), color: '#000000' });
    const b = await mkLabel(`/projects/${project.id}/labels`, { name: unique('b'), color: '#000000' });
    const none = await api(`/projects/${project.id}/labels/${a.body.id}`, { method: 'PUT', token: owner.token, body: {} });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'new_name, color, description, priority, archived are missing, at least one parameter must be provided' });
    const taken = await api(`/projects/${project.id}/labels/${a.body.id}`, { method: 'PUT', token: owner.token, body: { new_name: b.body.name } });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ message: { title: ['has already been taken'] } });
    const color = await api(`/projects/${project.id}/labels/${a.body.id}`, { method: 'PUT', token: owner.token, body: { color: '#12' } });
    expect(color.status).toBe(400);
    expect(color.body).toEqual({ message: { color: ['must be a valid color code'] } });
    expect((await api(`/projects/${project.id}/labels/${a.body.id}`, { token: owner.token })).body.name).toBe(a.body.name);
  });

  it('the deprecated PUT /projects/:id/labels addresses the label by label_id or name', async () => {
    const a = await mkLabel(`/projects/${project.id}/labels`, { name: unique('dep'), color: '#000000' });
    const res = await api(`/projects/${project.id}/labels`, { method: 'PUT', token: owner.token, body: { label_id: a.body.id, description: 'updated' } });
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('updated');
    const both = await api(`/projects/${project.id}/labels`, { method: 'PUT', token: owner.token, body: { label_id: a.body.id, name: a.body.name, description: 'x' } });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'label_id, name are mutually exclusive' });
  });

  it('a guest gets 403 before the lookup', async () => {
    const res = await api(`/projects/${project.id}/labels/${unique('nolabel')}`, { method: 'PUT', token: guest.token, body: { color: '#000000' } });
    expect(res.status).toBe(403);
  });
});

describe('DELETE /projects/:id/labels/:name', () => {
  it('deletes (204) and the label is gone; guests get 403', async () => {
    const a = await mkLabel(`/projects/${project.id}/labels`, { name: unique('del'), color: '#000000', priority: 1 });
    const denied = await api(`/projects/${project.id}/labels/${a.body.id}`, { method: 'DELETE', token: guest.token });
    expect(denied.status).toBe(403);
    const res = await api(`/projects/${project.id}/labels/${encodeURIComponent(a.body.name)}`, { method: 'DELETE', token: reporter.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api(`/projects/${project.id}/labels/${a.body.id}`, { token: owner.token })).status).toBe(404);
    const legacy = await mkLabel(`/projects/${project.id}/labels`, { name: unique('del2'), color: '#000000' });
    const res2 = await api(`/projects/${project.id}/labels?name=${encodeURIComponent(legacy.body.name)}`, { method: 'DELETE', token: owner.token });
    expect(res2.status).toBe(204);
  });

  it('honours If-Unmodified-Since (412)', async () => {
    const a = await mkLabel(`/projects/${project.id}/labels`, { name: unique('cond'), color: '#000000' });
    const res = await api(`/projects/${project.id}/labels/${a.body.id}`, { method: 'DELETE', token: owner.token, headers: { 'If-Unmodified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' } });
    expect(res.status).toBe(412);
    expect((await api(`/projects/${project.id}/labels/${a.body.id}`, { token: owner.token })).status).toBe(200);
  });
});

describe('label subscriptions', () => {
  it('subscribes (201), repeats answer 304, unsubscribes', async () => {
    const a = await mkLabel(`/projects/${project.id}/labels`, { name: unique('sub'), color: '#000000' });
    const res = await api(`/projects/${project.id}/labels/${a.body.id}/subscribe`, { method: 'POST', token: guest.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: a.body.id, subscribed: true, is_project_label: true });
    expect((await api(`/projects/${project.id}/labels/${a.body.id}`, { token: guest.token })).body.subscribed).toBe(true);
    expect((await api(`/projects/${project.id}/labels/${a.body.id}`, { token: owner.token })).body.subscribed).toBe(false);
    const again = await api(`/projects/${project.id}/labels/${a.body.id}/subscribe`, { method: 'POST', token: guest.token });
    expect(again.status).toBe(304);
    const un = await api(`/projects/${project.id}/labels/${encodeURIComponent(a.body.name)}/unsubscribe`, { method: 'POST', token: guest.token });
    expect(un.status).toBe(201);
    expect(un.body.subscribed).toBe(false);
    expect((await api(`/projects/${project.id}/labels/${a.body.id}/unsubscribe`, { method: 'POST', token: guest.token })).status).toBe(304);
  });

  it('group label subscriptions through the group', async () => {
    const l = await mkLabel(`/groups/${group.id}/labels`, { name: unique('gs'), color: '#000000' });
    const res = await api(`/groups/${group.id}/labels/${l.body.id}/subscribe`, { method: 'POST', token: guest.token });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'description', 'description_html', 'text_color', 'color', 'subscribed']);
    expect(res.body.subscribed).toBe(true);
    // Label#subscribed?(user) without a project shows through project views too.
    const viaProject = await api(`/projects/${project.id}/labels/${l.body.id}`, { token: guest.token });
    expect(viaProject.body.subscribed).toBe(true);
  });
});

describe('group labels', () => {
  it('creates, lists with ancestors/descendants, updates and deletes', async () => {
    const parentLabel = await mkLabel(`/groups/${group.id}/labels`, { name: unique('gp'), color: '#000000' });
    const subLabel = await mkLabel(`/groups/${sub.id}/labels`, { name: unique('gc'), color: '#ABCDEF', description: 'sub' });
    expect(subLabel.status).toBe(201);
    expect(Object.keys(subLabel.body)).toEqual(['id', 'name', 'description', 'description_html', 'text_color', 'color', 'subscribed']);
    const subList = await api(`/groups/${sub.id}/labels?per_page=100`, { token: guest.token });
    expect(subList.body.map((l: any) => l.id)).toEqual(expect.arrayContaining([parentLabel.body.id, subLabel.body.id]));
    const noAnc = await api(`/groups/${sub.id}/labels?include_ancestor_groups=false&per_page=100`, { token: guest.token });
    expect(noAnc.body.map((l: any) => l.id)).not.toContain(parentLabel.body.id);
    const top = await api(`/groups/${group.id}/labels?per_page=100`, { token: guest.token });
    expect(top.body.map((l: any) => l.id)).not.toContain(subLabel.body.id);
    const desc = await api(`/groups/${group.id}/labels?include_descendant_groups=true&per_page=100`, { token: guest.token });
    expect(desc.body.map((l: any) => l.id)).toContain(subLabel.body.id);

    const pl = await mkLabel(`/projects/${project.id}/labels`, { name: unique('plg'), color: '#000000' });
    const withProjects = await api(`/groups/${sub.id}/labels?only_group_labels=false&per_page=100`, { token: owner.token });
    expect(withProjects.body.map((l: any) => l.id)).toContain(pl.body.id);

    const upd = await api(`/groups/${sub.id}/labels/${subLabel.body.id}`, { method: 'PUT', token: reporter.token, body: { new_name: `${subLabel.body.name}-x` } });
    expect(upd.status).toBe(200);
    expect(upd.body.name).toBe(`${subLabel.body.name}-x`);
    const denied = await api(`/groups/${sub.id}/labels/${subLabel.body.id}`, { method: 'PUT', token: guest.token, body: { color: '#000000' } });
    expect(denied.status).toBe(403);
    const empty = await api(`/groups/${sub.id}/labels/${subLabel.body.id}`, { method: 'PUT', token: owner.token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: 'new_name, color, description, archived are missing, at least one parameter must be provided' });
    const del = await api(`/groups/${sub.id}/labels/${subLabel.body.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(204);
    expect((await api(`/groups/${sub.id}/labels/${subLabel.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it('a group label of the project group can be updated through the project by a group planner+', async () => {
    const l = await mkLabel(`/groups/${sub.id}/labels`, { name: unique('gpu'), color: '#000000' });
    const res = await api(`/projects/${project.id}/labels/${l.body.id}`, { method: 'PUT', token: reporter.token, body: { description: 'via project' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: 'via project', is_project_label: false });
  });
});

describe('PUT /projects/:id/labels/:name/promote', () => {
  it('turns a project label into a group label keeping its id; same-titled labels in sibling projects merge', async () => {
    const other = await mkProject(owner.token, group.id);
    const name = unique('promo');
    const a = await mkLabel(`/projects/${project.id}/labels`, { name, color: '#000000', priority: 2 });
    const b = await mkLabel(`/projects/${other.id}/labels`, { name, color: '#FFFFFF' });
    // project sits in `sub`: the label goes to `sub`; `other` sits in `group` (not under sub) and keeps its label.
    const res = await api(`/projects/${project.id}/labels/${a.body.id}/promote`, { method: 'PUT', token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'description', 'description_html', 'text_color', 'color', 'subscribed']);
    expect(res.body.id).toBe(a.body.id);
    const inGroup = await api(`/groups/${sub.id}/labels/${a.body.id}`, { token: owner.token });
    expect(inGroup.status).toBe(200);
    const viaProject = await api(`/projects/${project.id}/labels/${a.body.id}`, { token: owner.token });
    expect(viaProject.body).toMatchObject({ is_project_label: false, priority: 2 });
    expect((await api(`/projects/${other.id}/labels/${b.body.id}`, { token: owner.token })).status).toBe(200);
  });

  it('merges project labels of the same title in the group subtree', async () => {
    const p2 = await mkProject(owner.token, sub.id);
    const name = unique('merge');
    const a = await mkLabel(`/projects/${project.id}/labels`, { name, color: '#000000' });
    const b = await mkLabel(`/projects/${p2.id}/labels`, { name, color: '#FFFFFF' });
    const res = await api(`/projects/${project.id}/labels/${encodeURIComponent(name)}/promote`, { method: 'PUT', token: owner.token });
    expect(res.status).toBe(200);
    expect((await api(`/projects/${p2.id}/labels/${b.body.id}`, { token: owner.token })).status).toBe(404);
    const seen = await api(`/projects/${p2.id}/labels/${encodeURIComponent(name)}`, { token: owner.token });
    expect(seen.body).toMatchObject({ id: a.body.id, is_project_label: false });
  });

  it('refuses personal projects (400) and group labels (400), and guests (403)', async () => {
    const pl = await mkLabel(`/projects/${personal.id}/labels`, { name: unique('pp'), color: '#000000' });
    const res = await api(`/projects/${personal.id}/labels/${pl.body.id}/promote`, { method: 'PUT', token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Failed to promote project label to group label' });
    const gl = await mkLabel(`/groups/${sub.id}/labels`, { name: unique('gl'), color: '#000000' });
    const res2 = await api(`/projects/${project.id}/labels/${gl.body.id}/promote`, { method: 'PUT', token: owner.token });
    expect(res2.status).toBe(400);
    const a = await mkLabel(`/projects/${project.id}/labels`, { name: unique('gg'), color: '#000000' });
    const res3 = await api(`/projects/${project.id}/labels/${a.body.id}/promote`, { method: 'PUT', token: guest.token });
    expect(res3.status).toBe(403);
    expect((await api(`/projects/${project.id}/labels/${a.body.id}`, { token: owner.token })).body.is_project_label).toBe(true);
  });
});

describe('administrators', () => {
  it('root manages labels of any project', async () => {
    const res = await mkLabel(`/projects/${project.id}/labels`, { name: unique('root'), color: '#000000' }, rootToken);
    expect(res.status).toBe(201);
  });
});
