/**
 * Issue 13: an epic is read with its group, and its entity's extras (group path, author, parent,
 * labels, votes, the caller's subscription) in one batch; a page's extras in one batch too.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('epics in few round trips', () => {
  it('GET one epic: one round trip after authentication, with parent, labels, votes and subscription', async () => {
    const owner = await createUser();
    const reader = await createUser();
    const path = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } });
    const parent = await api(`/groups/${g.body.id}/epics`, { token: owner.token, body: { title: 'Parent' } });
    const child = await api(`/groups/${g.body.id}/epics`, { token: owner.token, body: { title: 'Child', labels: 'theme', parent_id: parent.body.id } });
    expect(child.status).toBe(201);
    await api(`/groups/${g.body.id}/epics/${child.body.iid}/award_emoji`, { token: reader.token, body: { name: 'thumbsup' } });

    await api(`/groups/${g.body.id}/epics/${child.body.iid}`, { token: owner.token }); // the caller is cached from here on
    const mine = await api(`/groups/${g.body.id}/epics/${child.body.iid}`, { token: owner.token });
    expect(mine.body).toMatchObject({ title: 'Child', parent_iid: parent.body.iid, labels: ['theme'], upvotes: 1, downvotes: 0, author: { id: owner.id }, subscribed: true });
    expect(mine.body.web_url).toMatch(new RegExp(`/groups/${path}/-/epics/${child.body.iid}$`));
    expect(trips(mine)).toBeLessThanOrEqual(2);
    // Another reader is not subscribed (not the author, no subscription row).
    expect((await api(`/groups/${encodeURIComponent(path)}/epics/${child.body.iid}`, { token: reader.token })).body).toMatchObject({ iid: child.body.iid, subscribed: false });
    expect((await api(`/groups/${g.body.id}/epics/999`, { token: owner.token })).body).toEqual({ message: '404 Epic Not Found' });

    const one = await api(`/groups/${g.body.id}/epics?per_page=1`, { token: owner.token });
    const all = await api(`/groups/${g.body.id}/epics?per_page=100`, { token: owner.token });
    expect(all.body).toHaveLength(2);
    expect(trips(all)).toBe(trips(one));
  });

  it('a page costs 2 round trips; create and update answer in 2, or 3 with a parent and labels to look up', async () => {
    const owner = await createUser();
    const path = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: path, path } });
    await api('/user', { token: owner.token }); // the caller is cached from here on
    const plain = await api(`/groups/${g.body.id}/epics`, { token: owner.token, body: { title: 'Plain' } });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ title: 'Plain', author: { id: owner.id }, subscribed: true, labels: [] });
    expect(trips(plain)).toBeLessThanOrEqual(2);
    const child = await api(`/groups/${g.body.id}/epics`, { token: owner.token, body: { title: 'Child', labels: 'a,b', parent_id: plain.body.id } });
    expect(child.body).toMatchObject({ title: 'Child', parent_iid: plain.body.iid, labels: ['a', 'b'] });
    expect(trips(child)).toBeLessThanOrEqual(3);

    const edited = await api(`/groups/${g.body.id}/epics/${plain.body.iid}`, { method: 'PUT', token: owner.token, body: { title: 'Edited' } });
    expect(edited.body).toMatchObject({ iid: plain.body.iid, title: 'Edited', subscribed: true });
    expect(trips(edited)).toBeLessThanOrEqual(2);
    const relabelled = await api(`/groups/${g.body.id}/epics/${child.body.iid}`, { method: 'PUT', token: owner.token, body: { add_labels: 'c', remove_labels: 'a', parent_id: 0 } });
    expect(relabelled.body).toMatchObject({ labels: ['b', 'c'], parent_iid: null });
    expect(trips(relabelled)).toBeLessThanOrEqual(3);
    const self = await api(`/groups/${g.body.id}/epics/${child.body.iid}`, { method: 'PUT', token: owner.token, body: { parent_id: child.body.id } });
    expect(self.body).toEqual({ message: '404 Epic Not Found' });

    await api(`/groups/${g.body.id}/epics`, { token: owner.token, body: { title: 'Third', labels: 'c' } });
    const one = await api(`/groups/${g.body.id}/epics?per_page=1`, { token: owner.token });
    const all = await api(`/groups/${g.body.id}/epics?per_page=100`, { token: owner.token });
    expect([one.body.length, all.body.length]).toEqual([1, 3]);
    expect(one.headers.get('x-total')).toBe('3');
    expect(all.body.map((e: { title: string; labels: string[] }) => [e.title, e.labels])).toEqual([
      ['Third', ['c']],
      ['Child', ['b', 'c']],
      ['Edited', []],
    ]);
    expect(trips(all)).toBe(trips(one));
    expect(trips(all)).toBeLessThanOrEqual(2);
  });

  it("an epic's issues: 2 round trips whatever the page size, only the issues the caller may read", async () => {
    const owner = await createUser();
    const reader = await createUser();
    const path = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } });
    const open = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: g.body.id, visibility: 'public' } })).body;
    const closed = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: g.body.id, visibility: 'private' } })).body;
    const e = (await api(`/groups/${g.body.id}/epics`, { token: owner.token, body: { title: 'Container' } })).body;
    const mk = async (pid: number, body: Record<string, unknown>) => (await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('i'), epic_id: e.id, labels: 'x', ...body } })).body;
    const visible = [await mk(open.id, {}), await mk(open.id, { assignee_ids: [owner.id] })];
    const secret = await mk(open.id, { confidential: true });
    const hidden = await mk(closed.id, {});
    const url = `/groups/${g.body.id}/epics/${e.iid}/issues`;

    await api('/user', { token: owner.token }); // the caller is cached from here on
    const one = await api(`${url}?per_page=1`, { token: owner.token });
    const all = await api(`${url}?per_page=100`, { token: owner.token });
    expect(all.body.map((i: { id: number }) => i.id).sort()).toEqual([...visible, secret, hidden].map((i) => i.id).sort());
    expect(one.headers.get('x-total')).toBe('4');
    expect(all.body.find((i: { id: number }) => i.id === visible[1].id)).toMatchObject({ labels: ['x'], assignees: [{ id: owner.id }], epic_iid: e.iid });
    expect(trips(one)).toBe(trips(all));
    expect(trips(all)).toBeLessThanOrEqual(2);

    const asReader = await api(url, { token: reader.token });
    expect(asReader.body.map((i: { id: number }) => i.id).sort()).toEqual(visible.map((i) => i.id).sort());
    expect(asReader.headers.get('x-total')).toBe('2');
  });
});
