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
});
