/**
 * Issue 13: label and milestone pages carry what their entities show (subscription, priority,
 * web_url paths) in the page's own statement: the same round trips for a page of one and of many,
 * and one read after the parent's lookup.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('labels and milestones in few round trips', () => {
  it('a project label page shows subscriptions (group label subscribed in the project too) and priorities without per-page reads', async () => {
    const owner = await createUser();
    const gp = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: gp, path: gp } });
    const pr = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: g.body.id } });
    const pid = pr.body.id;
    const a = await api(`/projects/${pid}/labels`, { token: owner.token, body: { name: 'a-bug', color: '#FF0000', priority: 2 } });
    await api(`/projects/${pid}/labels`, { token: owner.token, body: { name: 'b-feature', color: '#00FF00' } });
    const gl = await api(`/groups/${g.body.id}/labels`, { token: owner.token, body: { name: 'c-group', color: '#0000FF' } });
    expect((await api(`/projects/${pid}/labels/${a.body.id}/subscribe`, { method: 'POST', token: owner.token })).status).toBe(201);
    expect((await api(`/projects/${pid}/labels/${gl.body.id}/subscribe`, { method: 'POST', token: owner.token })).status).toBe(201);

    await api(`/projects/${pid}/labels`, { token: owner.token }); // the caller is cached from here on
    const one = await api(`/projects/${pid}/labels?per_page=1`, { token: owner.token });
    const all = await api(`/projects/${pid}/labels?per_page=100`, { token: owner.token });
    expect(all.body.map((l: { name: string; subscribed: boolean; priority: number | null }) => [l.name, l.subscribed, l.priority])).toEqual([
      ['a-bug', true, 2],
      ['b-feature', false, null],
      ['c-group', true, null],
    ]);
    expect(trips(all)).toBe(trips(one));
    expect(trips(all)).toBeLessThanOrEqual(3);
    // A label by id or by title, in one statement; a project label's id that is also another label's title still finds the id.
    const byTitle = await api(`/projects/${pid}/labels/a-bug`, { token: owner.token });
    expect(byTitle.body).toMatchObject({ id: a.body.id, subscribed: true, priority: 2 });
    expect(trips(byTitle)).toBeLessThanOrEqual(3);
    expect((await api(`/projects/${pid}/labels/${gl.body.id}`, { token: owner.token })).body).toMatchObject({ name: 'c-group', subscribed: true, is_project_label: false });
    expect((await api(`/groups/${g.body.id}/labels/c-group`, { token: owner.token })).body).toMatchObject({ id: gl.body.id, subscribed: false });
    expect((await api(`/projects/${pid}/labels/missing`, { token: owner.token })).status).toBe(404);
  });

  it('a milestone page builds web_url for project and ancestor group milestones without reading their parents again', async () => {
    const owner = await createUser();
    const gp = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: gp, path: gp } });
    const pr = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: g.body.id } });
    const pid = pr.body.id;
    const pm = await api(`/projects/${pid}/milestones`, { token: owner.token, body: { title: 'P1' } });
    expect(pm.status).toBe(201);
    expect(pm.body.web_url).toMatch(new RegExp(`/${pr.body.path_with_namespace}/-/milestones/1$`));
    expect(trips(pm)).toBeLessThanOrEqual(4);
    await api(`/projects/${pid}/milestones`, { token: owner.token, body: { title: 'P2' } });
    const gm = await api(`/groups/${g.body.id}/milestones`, { token: owner.token, body: { title: 'G1' } });
    expect(gm.body.web_url).toMatch(new RegExp(`/groups/${gp}/-/milestones/1$`));

    const one = await api(`/projects/${pid}/milestones?include_ancestors=true&per_page=1`, { token: owner.token });
    const all = await api(`/projects/${pid}/milestones?include_ancestors=true&per_page=100`, { token: owner.token });
    expect(all.body).toHaveLength(3);
    const urls = Object.fromEntries(all.body.map((m: { title: string; web_url: string }) => [m.title, m.web_url]));
    expect(urls.P2).toMatch(new RegExp(`/${pr.body.path_with_namespace}/-/milestones/2$`));
    expect(urls.G1).toMatch(new RegExp(`/groups/${gp}/-/milestones/1$`));
    expect(trips(all)).toBe(trips(one));
    expect(trips(all)).toBeLessThanOrEqual(3);

    const updated = await api(`/projects/${pid}/milestones/${pm.body.id}`, { method: 'PUT', token: owner.token, body: { title: 'P1 renamed' } });
    expect(updated.body).toMatchObject({ title: 'P1 renamed', web_url: pm.body.web_url });
    const got = await api(`/projects/${pid}/milestones/${pm.body.id}`, { token: owner.token });
    expect(got.body).toMatchObject({ title: 'P1 renamed', web_url: pm.body.web_url });
    expect(trips(got)).toBeLessThanOrEqual(3);
  });

  it('label counts hang off the page: one batch whatever the page size and however many groups the labels come from', async () => {
    const owner = await createUser();
    const gp = unique('g');
    const top = (await api('/groups', { token: owner.token, body: { name: gp, path: gp } })).body;
    const sp = unique('s');
    const sub = (await api('/groups', { token: owner.token, body: { name: sp, path: sp, parent_id: top.id } })).body;
    const pr = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: sub.id } })).body;
    const sibling = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: top.id } })).body;
    const t = (await api(`/groups/${top.id}/labels`, { token: owner.token, body: { name: 'a-top', color: '#FF0000' } })).body;
    const s1 = (await api(`/groups/${sub.id}/labels`, { token: owner.token, body: { name: 'b-sub', color: '#00FF00' } })).body;
    const own = (await api(`/projects/${pr.id}/labels`, { token: owner.token, body: { name: 'c-own', color: '#0000FF' } })).body;
    const mk = async (pid: number, labels: string, close = false) => {
      const i = (await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('i'), labels } })).body;
      if (close) await api(`/projects/${pid}/issues/${i.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    };
    await mk(pr.id, 'a-top,b-sub,c-own');
    await mk(pr.id, 'a-top', true);
    await mk(sibling.id, 'a-top'); // in top's subtree, outside sub's
    // A project label of the sibling with the title `c-own` does not count for this project's label.
    await mk(sibling.id, 'c-own');

    await api('/user', { token: owner.token }); // the caller is cached from here on
    const one = await api(`/projects/${pr.id}/labels?with_counts=true&per_page=1`, { token: owner.token });
    const all = await api(`/projects/${pr.id}/labels?with_counts=true&per_page=100`, { token: owner.token });
    expect(all.body.map((l: { id: number; open_issues_count: number; closed_issues_count: number }) => [l.id, l.open_issues_count, l.closed_issues_count])).toEqual([
      [t.id, 2, 1],
      [s1.id, 1, 0],
      [own.id, 1, 0],
    ]);
    expect(one.body).toHaveLength(1);
    expect(trips(all)).toBe(trips(one));
    expect(trips(all)).toBeLessThanOrEqual(2);
    const groupView = await api(`/groups/${top.id}/labels?with_counts=true`, { token: owner.token });
    expect(groupView.body.map((l: { id: number; open_issues_count: number }) => [l.id, l.open_issues_count])).toEqual([[t.id, 2]]);
  });
});
