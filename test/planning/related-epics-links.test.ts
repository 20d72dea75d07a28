/**
 * GET /groups/:id/related_epic_links (ee/lib/api/related_epic_links.rb): the links of a group and its
 * subgroups, both ends readable, created/updated filters, pagination; and the round trips of the
 * linked-epics routes (issue 13's budget: a GET in 1 once the caller is cached, page size free).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let outsider: TestUser;
type Group = { id: number; full_path: string };

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

async function mkGroup(token: string, body: Record<string, unknown> = {}): Promise<Group> {
  const path = unique('g');
  const res = await api('/groups', { token, body: { name: path, path, visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}
async function mkEpic(g: Group, body: Record<string, unknown> = {}) {
  const res = await api(`/groups/${g.id}/epics`, { token: owner.token, body: { title: unique('epic'), ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; group_id: number };
}
const link = async (from: { iid: number; group_id: number }, to: { iid: number; group_id: number }, linkType = 'relates_to') => {
  const res = await api(`/groups/${from.group_id}/epics/${from.iid}/related_epics`, { token: owner.token, body: { target_group_id: to.group_id, target_epic_iid: to.iid, link_type: linkType } });
  expect(res.status).toBe(201);
  return res.body as { id: number; created_at: string };
};
const ids = (res: { body: { id: number }[] }) => res.body.map((l) => l.id);

beforeAll(async () => {
  [owner, outsider] = await Promise.all([createUser(), createUser()]);
});

describe('GET /groups/:id/related_epic_links', () => {
  it('lists the links of the group and its subgroups in link order, each with both epics', async () => {
    const top = await mkGroup(owner.token);
    const sub = await mkGroup(owner.token, { parent_id: top.id });
    const elsewhere = await mkGroup(owner.token);
    const [a, b] = [await mkEpic(top), await mkEpic(top)];
    const s = await mkEpic(sub);
    const [x, y] = [await mkEpic(elsewhere), await mkEpic(elsewhere)];
    const ab = await link(a, b, 'blocks');
    const sa = await link(s, a);
    const xs = await link(x, s); // only the target is in the tree
    await link(x, y); // nothing to do with `top`
    const res = await api(`/groups/${top.id}/related_epic_links`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([ab.id, sa.id, xs.id]);
    expect(res.headers.get('x-total')).toBe('3');
    expect(Object.keys(res.body[0])).toEqual(['id', 'source_epic', 'target_epic', 'link_type', 'created_at', 'updated_at']);
    expect(res.body[0]).toMatchObject({ source_epic: { id: a.id }, target_epic: { id: b.id }, link_type: 'blocks' });
    expect(res.body[2]).toMatchObject({ source_epic: { id: x.id, group_id: elsewhere.id }, target_epic: { id: s.id } });
    // From the subgroup: only what touches it.
    expect(ids(await api(`/groups/${encodeURIComponent(sub.full_path)}/related_epic_links`))).toEqual([sa.id, xs.id]);
  });

  it('pages, and filters by the links own created and updated times', async () => {
    const g = await mkGroup(owner.token);
    const [a, b, c] = [await mkEpic(g), await mkEpic(g), await mkEpic(g)];
    const first = await link(a, b);
    await new Promise((r) => setTimeout(r, 20));
    const second = await link(a, c);
    const base = `/groups/${g.id}/related_epic_links`;
    const page2 = await api(`${base}?per_page=1&page=2`);
    expect(ids(page2)).toEqual([second.id]);
    expect(page2.headers.get('x-total')).toBe('2');
    expect(page2.headers.get('x-total-pages')).toBe('2');
    expect(page2.headers.get('x-prev-page')).toBe('1');
    const at = encodeURIComponent(second.created_at);
    expect(ids(await api(`${base}?created_after=${at}`))).toEqual([second.id]);
    expect(ids(await api(`${base}?created_before=${encodeURIComponent(first.created_at)}`))).toEqual([first.id]);
    expect(ids(await api(`${base}?updated_after=${at}`))).toEqual([second.id]);
    expect(ids(await api(`${base}?updated_before=${encodeURIComponent(first.created_at)}`))).toEqual([first.id]);
    expect(ids(await api(`${base}?created_after=2999-01-01T00:00:00Z`))).toEqual([]);
    expect(await api(`${base}?created_after=yesterday`)).toMatchObject({ status: 400, body: { error: 'created_after is invalid' } });
  });

  it('lists only links whose two epics the caller may read; 404 for a group it may not see', async () => {
    const g = await mkGroup(owner.token);
    const priv = await mkGroup(owner.token, { visibility: 'private' });
    const [a, b] = [await mkEpic(g), await mkEpic(g)];
    const secret = await mkEpic(g, { confidential: true });
    const hidden = await mkEpic(priv);
    const open = await link(a, b);
    const conf = await link(a, secret);
    const priv1 = await link(hidden, a);
    expect(ids(await api(`/groups/${g.id}/related_epic_links`, { token: owner.token }))).toEqual([open.id, conf.id, priv1.id]);
    const anon = await api(`/groups/${g.id}/related_epic_links`);
    expect(ids(anon)).toEqual([open.id]);
    expect(anon.headers.get('x-total')).toBe('1');
    expect(ids(await api(`/groups/${g.id}/related_epic_links`, { token: outsider.token }))).toEqual([open.id]);
    expect(await api(`/groups/${priv.id}/related_epic_links`, { token: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await api('/groups/999999999/related_epic_links')).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });
});

describe('linked epics in few round trips', () => {
  it('GETs answer in one round trip once the caller is cached, whatever the page size; writes in two', async () => {
    const g = await mkGroup(owner.token);
    const sub = await mkGroup(owner.token, { parent_id: g.id });
    const a = await mkEpic(g, { labels: 'x' });
    const others = [await mkEpic(g), await mkEpic(sub, { labels: 'y' }), await mkEpic(sub)];
    await api('/user', { token: owner.token }); // the caller is cached from here on
    const made = await api(`/groups/${g.id}/epics/${a.iid}/related_epics`, { token: owner.token, body: { target_group_id: sub.id, target_epic_iid: others[1].iid } });
    expect(made.status).toBe(201);
    expect(trips(made)).toBeLessThanOrEqual(2);
    for (const o of [others[0], others[2]]) await link(a, o);
    const list = await api(`/groups/${g.id}/epics/${a.iid}/related_epics`, { token: owner.token });
    expect(list.body).toHaveLength(3);
    expect(trips(list)).toBe(1);
    const one = await api(`/groups/${g.id}/related_epic_links?per_page=1`, { token: owner.token });
    const all = await api(`/groups/${g.id}/related_epic_links?per_page=100`, { token: owner.token });
    expect([one.body.length, all.body.length]).toEqual([1, 3]);
    expect(trips(all)).toBe(trips(one));
    expect(trips(all)).toBe(1);
    const del = await api(`/groups/${g.id}/epics/${a.iid}/related_epics/${made.body.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(200);
    expect(trips(del)).toBeLessThanOrEqual(2);
  });
});
