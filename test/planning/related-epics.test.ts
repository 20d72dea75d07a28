/**
 * Linked epics (issue 16 item 4; spec doc 000 "LinkedEpic"; GitLab ee/lib/api/related_epic_links.rb):
 * linking, the link types from either side, an epic's linked epics, unlinking, every refusal in
 * GitLab's order, and which linked epics a caller may see.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let guest: TestUser;
let planner: TestUser;
let outsider: TestUser;
type Group = { id: number; full_path: string };
let pub: Group;
let sub: Group;
let priv: Group;

async function mkGroup(token: string, body: Record<string, unknown> = {}): Promise<Group> {
  const path = unique('g');
  const res = await api('/groups', { token, body: { name: path, path, visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

async function mkEpic(g: Group, body: Record<string, unknown> = {}, token = owner.token) {
  const res = await api(`/groups/${g.id}/epics`, { token, body: { title: unique('epic'), ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; group_id: number };
}

const related = (g: Group, iid: number) => `/groups/${g.id}/epics/${iid}/related_epics`;
const link = async (from: { iid: number; group_id: number }, to: { iid: number; group_id: number }, linkType?: string, token = owner.token) =>
  api(`/groups/${from.group_id}/epics/${from.iid}/related_epics`, { token, body: { target_group_id: String(to.group_id), target_epic_iid: to.iid, ...(linkType ? { link_type: linkType } : {}) } });

const EPIC_KEYS = [
  'id', 'iid', 'color', 'text_color', 'group_id', 'parent_id', 'parent_iid', 'title', 'description', 'confidential', 'author', 'start_date',
  'start_date_is_fixed', 'start_date_fixed', 'start_date_from_inherited_source', 'start_date_from_milestones', 'end_date', 'due_date',
  'due_date_is_fixed', 'due_date_fixed', 'due_date_from_inherited_source', 'due_date_from_milestones', 'state', 'web_edit_url', 'web_url',
  'references', 'created_at', 'updated_at', 'closed_at', 'labels', 'upvotes', 'downvotes', '_links',
];

beforeAll(async () => {
  [owner, guest, planner, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  pub = await mkGroup(owner.token);
  sub = await mkGroup(owner.token, { parent_id: pub.id });
  priv = await mkGroup(owner.token, { visibility: 'private' });
  for (const [u, level] of [[guest, 10], [planner, 15]] as const) {
    expect((await api(`/groups/${pub.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
});

describe('POST /groups/:id/epics/:epic_iid/related_epics', () => {
  it('links two epics (relates_to by default) and answers the link with both epics', async () => {
    const a = await mkEpic(pub, { labels: 'theme' });
    const b = await mkEpic(sub);
    const res = await link(a, b, undefined, guest.token);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'source_epic', 'target_epic', 'link_type', 'created_at', 'updated_at']);
    expect(res.body).toMatchObject({ link_type: 'relates_to', source_epic: { id: a.id, labels: ['theme'] }, target_epic: { id: b.id, group_id: sub.id } });
    expect(Object.keys(res.body.source_epic)).toEqual(EPIC_KEYS);
    // References are relative to the request's group.
    expect(res.body.source_epic.references.relative).toBe(`&${a.iid}`);
    expect(res.body.target_epic.references.relative).toBe(`${sub.full_path}&${b.iid}`);
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stores is_blocked_by as the reverse blocks, as GitLab does', async () => {
    const a = await mkEpic(pub);
    const c = await mkEpic(pub);
    const res = await link(c, a, 'is_blocked_by');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ source_epic: { id: a.id }, target_epic: { id: c.id }, link_type: 'blocks' });
    const fromA = await api(related(pub, a.iid), { token: owner.token });
    expect(fromA.body.map((e: { id: number; link_type: string }) => [e.id, e.link_type])).toEqual([[c.id, 'blocks']]);
    const fromC = await api(related(pub, c.iid), { token: owner.token });
    expect(fromC.body.map((e: { id: number; link_type: string }) => [e.id, e.link_type])).toEqual([[a.id, 'is_blocked_by']]);
  });

  it('refuses in GitLab order: 401, 404 group, 404 epic, 403, 404 target group, 404 target epic, 403 target, 409, 422', async () => {
    const a = await mkEpic(pub);
    const b = await mkEpic(pub);
    const secret = await mkEpic(pub, { confidential: true });
    const hidden = await mkEpic(priv);
    const stranger = await mkGroup(outsider.token);
    const theirs = await mkEpic(stranger, {}, outsider.token);
    const body = (target: { group: string; iid: number }, extra: Record<string, unknown> = {}) => ({ target_group_id: target.group, target_epic_iid: target.iid, ...extra });
    const post = (g: string | number, iid: number, b: Record<string, unknown>, token: string | null = owner.token) => api(`/groups/${g}/epics/${iid}/related_epics`, { token, body: b });
    const toB = body({ group: String(pub.id), iid: b.iid });

    expect(await post(pub.id, a.iid, toB, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await post(priv.id, hidden.iid, toB, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await post(999999999, 1, toB)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await post(pub.id, 99999, toB)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // A reader of the public group who is no member may not link (admin_epic_link_relation needs Guest).
    expect(await post(pub.id, a.iid, toB, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // A guest may not read a confidential epic, so may not link it.
    expect(await post(pub.id, secret.iid, toB, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await post(pub.id, a.iid, body({ group: '999999999', iid: 1 }))).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await post(pub.id, a.iid, body({ group: String(priv.id), iid: hidden.iid }), guest.token)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await post(pub.id, a.iid, body({ group: pub.full_path, iid: 99999 }))).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // The target's group is readable (public) but the caller is no member of it.
    expect(await post(pub.id, a.iid, body({ group: String(stranger.id), iid: theirs.iid }))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await post(pub.id, a.iid, body({ group: String(pub.id), iid: secret.iid }), guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });

    // The target group by full path; then the same pair again, either way round and with another type.
    expect((await post(pub.id, a.iid, body({ group: pub.full_path, iid: b.iid }))).status).toBe(201);
    expect(await post(pub.id, a.iid, toB)).toMatchObject({ status: 409, body: { message: 'Epic(s) already assigned' } });
    expect(await post(pub.id, b.iid, body({ group: String(pub.id), iid: a.iid }, { link_type: 'blocks' }))).toMatchObject({ status: 409, body: { message: 'Epic(s) already assigned' } });
    expect(await post(pub.id, a.iid, body({ group: String(pub.id), iid: a.iid }))).toMatchObject({ status: 422, body: { message: `&${a.iid} cannot be added: cannot be related to itself` } });
  });

  it('links a pair once when both ways are asked for at the same time', async () => {
    const a = await mkEpic(pub);
    const b = await mkEpic(pub);
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? link(a, b, 'blocks') : link(b, a))));
    expect(all.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of all.filter((x) => x.status === 409)) expect(r.body).toEqual({ message: 'Epic(s) already assigned' });
    expect((await api(related(pub, a.iid))).body).toHaveLength(1);
    // Only the link that landed is noted.
    for (const e of [a, b]) expect((await api(`/groups/${pub.id}/epics/${e.id}/notes`, { token: owner.token })).body.filter((n: { system: boolean }) => n.system)).toHaveLength(1);
  });

  it('notes linking and unlinking on both epics, with references relative to each', async () => {
    const a = await mkEpic(pub);
    const b = await mkEpic(pub);
    const c = await mkEpic(sub);
    const notes = async (e: { id: number; group_id: number }) =>
      ((await api(`/groups/${e.group_id}/epics/${e.id}/notes?sort=asc`, { token: owner.token })).body as { body: string; system: boolean }[]).filter((n) => n.system).map((n) => n.body);
    await link(a, b);
    const blocked = await link(c, a, 'is_blocked_by'); // stored as a blocks c
    expect(await api(`${related(pub, a.iid)}/${blocked.body.id}`, { method: 'DELETE', token: owner.token })).toMatchObject({ status: 200 });
    expect(await notes(a)).toEqual([
      `marked this epic as related to &${b.iid}`,
      `marked this epic as blocking ${sub.full_path}&${c.iid}`,
      `removed the relation with ${sub.full_path}&${c.iid}`,
    ]);
    expect(await notes(b)).toEqual([`marked this epic as related to &${a.iid}`]);
    expect(await notes(c)).toEqual([`marked this epic as blocked by ${pub.full_path}&${a.iid}`, `removed the relation with ${pub.full_path}&${a.iid}`]);
    // A refused link notes nothing.
    expect((await link(b, a)).status).toBe(409);
    expect(await notes(b)).toHaveLength(1);
  });

  it('takes its parameters from the query string too, as @gitbeaker/rest LinkedEpics.create sends them', async () => {
    const a = await mkEpic(pub);
    const b = await mkEpic(sub);
    const res = await api(`${related(pub, a.iid)}?target_group_id=${encodeURIComponent(sub.full_path)}&target_epic_iid=${b.iid}&link_type=blocks`, { method: 'POST', token: owner.token });
    expect(res).toMatchObject({ status: 201, body: { source_epic: { id: a.id }, target_epic: { id: b.id }, link_type: 'blocks' } });
  });

  it('validates its parameters as Grape does', async () => {
    const a = await mkEpic(pub);
    const bad = await api(related(pub, a.iid), { token: owner.token, body: { target_group_id: String(pub.id), target_epic_iid: a.iid, link_type: 'duplicates' } });
    expect(bad).toMatchObject({ status: 400, body: { error: 'link_type does not have a valid value' } });
    expect(await api(related(pub, a.iid), { token: owner.token, body: { target_group_id: String(pub.id) } })).toMatchObject({ status: 400, body: { error: 'target_epic_iid is missing' } });
  });
});

describe('GET /groups/:id/epics/:epic_iid/related_epics', () => {
  it('lists linked epics in link order with the link fields, anonymously on a public group', async () => {
    const a = await mkEpic(pub);
    const [b, c, d] = [await mkEpic(pub), await mkEpic(sub), await mkEpic(pub)];
    const ab = await link(a, b, 'blocks');
    await link(c, a); // a is the target here
    await link(d, a, 'blocks');
    const res = await api(related(pub, a.iid));
    expect(res.status).toBe(200);
    expect(res.body.map((e: { id: number; link_type: string }) => [e.id, e.link_type])).toEqual([
      [b.id, 'blocks'],
      [c.id, 'relates_to'],
      [d.id, 'is_blocked_by'],
    ]);
    expect(Object.keys(res.body[0])).toEqual([...EPIC_KEYS, 'related_epic_link_id', 'link_type', 'link_created_at', 'link_updated_at']);
    expect(res.body[0]).toMatchObject({ related_epic_link_id: ab.body.id, link_created_at: ab.body.created_at, link_updated_at: ab.body.updated_at });
    expect(res.body[1].references.relative).toBe(`${sub.full_path}&${c.iid}`);
    // By the group's full path, and from the other side.
    const fromB = await api(`/groups/${encodeURIComponent(pub.full_path)}/epics/${b.iid}/related_epics`);
    expect(fromB.body.map((e: { id: number; link_type: string }) => [e.id, e.link_type])).toEqual([[a.id, 'is_blocked_by']]);
    expect((await api(related(pub, (await mkEpic(pub)).iid))).body).toEqual([]);
  });

  it('refuses in GitLab order: 404 group, then 403 for an epic that is missing or may not be read', async () => {
    const hidden = await mkEpic(priv);
    const secret = await mkEpic(pub, { confidential: true });
    expect(await api(related(priv, hidden.iid))).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await api(related(priv, hidden.iid), { token: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await api(related(pub, 99999), { token: owner.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(related(pub, secret.iid), { token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await api(related(pub, secret.iid), { token: planner.token })).status).toBe(200);
    expect(await api(`/groups/${pub.id}/epics/abc/related_epics`)).toMatchObject({ status: 400, body: { error: 'epic_iid is invalid' } });
  });

  it('leaves out linked epics the caller may not read: private groups and confidential epics', async () => {
    const a = await mkEpic(pub);
    const hidden = await mkEpic(priv);
    const secret = await mkEpic(pub, { confidential: true });
    const open = await mkEpic(sub);
    for (const other of [hidden, secret, open]) expect((await link(a, other)).status).toBe(201);
    const ids = async (token: string | null) => (await api(related(pub, a.iid), { token })).body.map((e: { id: number }) => e.id);
    expect(await ids(owner.token)).toEqual([hidden.id, secret.id, open.id]);
    expect(await ids(planner.token)).toEqual([secret.id, open.id]);
    expect(await ids(guest.token)).toEqual([open.id]);
    expect(await ids(outsider.token)).toEqual([open.id]);
    expect(await ids(null)).toEqual([open.id]);
    // A member of the private group sees it again.
    expect((await api(`/groups/${priv.id}/members`, { token: owner.token, body: { user_id: outsider.id, access_level: 10 } })).status).toBe(201);
    expect(await ids(outsider.token)).toEqual([hidden.id, open.id]);
  });
});

describe('DELETE /groups/:id/epics/:epic_iid/related_epics/:related_epic_link_id', () => {
  it('unlinks from either side and answers the removed link', async () => {
    const a = await mkEpic(pub);
    const b = await mkEpic(sub);
    const made = await link(a, b, 'blocks');
    const del = await api(`${related(sub, b.iid)}/${made.body.id}`, { method: 'DELETE', token: guest.token });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: made.body.id, source_epic: { id: a.id }, target_epic: { id: b.id }, link_type: 'blocks' });
    expect((await api(related(pub, a.iid))).body).toEqual([]);
    expect(await api(`${related(pub, a.iid)}/${made.body.id}`, { method: 'DELETE', token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('refuses in GitLab order: 401, 404 group, 404 epic, 403, 404 link of another epic, 404 when the other end may not be unlinked', async () => {
    const a = await mkEpic(pub);
    const b = await mkEpic(pub);
    const c = await mkEpic(pub);
    const hidden = await mkEpic(priv);
    const ab = (await link(a, b)).body.id;
    const ah = (await link(a, hidden)).body.id;
    const del = (g: Group | number, iid: number, id: number, token: string | null = owner.token) =>
      api(`/groups/${typeof g === 'number' ? g : g.id}/epics/${iid}/related_epics/${id}`, { method: 'DELETE', token });
    expect(await del(pub, a.iid, ab, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await del(priv, hidden.iid, ah, guest.token)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await del(pub, 99999, ab)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await del(pub, a.iid, ab, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await del(pub, c.iid, ab)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await del(pub, a.iid, 99999999)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // The guest may unlink in this group but is nobody in the private group of the other end.
    expect(await del(pub, a.iid, ah, guest.token)).toMatchObject({ status: 404, body: { message: 'No Related Epic Link found' } });
    expect((await del(pub, a.iid, ah)).status).toBe(200);
  });
});

describe('links go with their epics and groups', () => {
  it('deleting an epic or a group removes its links', async () => {
    const a = await mkEpic(pub);
    const b = await mkEpic(pub);
    const doomedGroup = await mkGroup(owner.token, { parent_id: pub.id });
    const c = await mkEpic(doomedGroup);
    const ab = (await link(a, b)).body.id;
    const ac = (await link(a, c)).body.id;
    expect((await api(`/groups/${pub.id}/epics/${b.iid}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`/groups/${doomedGroup.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect((await api(related(pub, a.iid))).body).toEqual([]);
    // A link left behind would still be found for `a` (and refused for its missing end).
    for (const id of [ab, ac]) expect(await api(`${related(pub, a.iid)}/${id}`, { method: 'DELETE', token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it("a user deleted for good takes their epics' links along; a ghosted user's epics keep theirs", async () => {
    const [gone, ghosted] = await Promise.all([createUser(), createUser()]);
    for (const u of [gone, ghosted]) expect((await api(`/groups/${pub.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 15 } })).status).toBe(201);
    const a = await mkEpic(pub);
    const theirs = await mkEpic(pub, {}, gone.token);
    const kept = await mkEpic(pub, {}, ghosted.token);
    const lost = (await link(a, theirs)).body.id;
    const stays = (await link(a, kept)).body.id;
    expect((await api(`/users/${gone.id}?hard_delete=true`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api(`/users/${ghosted.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api(related(pub, a.iid))).body.map((e: { id: number }) => e.id)).toEqual([kept.id]);
    expect(await api(`${related(pub, a.iid)}/${lost}`, { method: 'DELETE', token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect((await api(`${related(pub, a.iid)}/${stays}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
  });
});
