/**
 * Issue 13: the issue routes' storage round trips (X-Storage-Round-Trips) on issues that carry
 * everything their entity shows (labels, assignees, a group milestone, comments, award emoji, a
 * closer), so that no read of the entity escapes the batch. The caller's own lookup is one of the
 * counted round trips until callers are cached; the numbers may only go down.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let dev: TestUser;
let group: { id: number };
let project: { id: number };
const iids: number[] = [];

beforeAll(async () => {
  owner = await createUser();
  dev = await createUser();
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'private' } })).body;
  expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
  const milestone = (await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title: unique('m') } })).body;
  for (let i = 0; i < 4; i++) {
    const res = await api(`/projects/${project.id}/issues`, {
      token: owner.token,
      body: { title: `issue ${i}`, labels: `a${i},shared`, assignee_ids: [dev.id], milestone_id: milestone.id, description: '- [x] done\n- [ ] not yet' },
    });
    expect(res.status, res.text).toBe(201);
    iids.push(res.body.iid);
    expect((await api(`/projects/${project.id}/issues/${res.body.iid}/notes`, { token: dev.token, body: { body: `comment ${i}` } })).status).toBe(201);
    expect((await api(`/projects/${project.id}/issues/${res.body.iid}/award_emoji`, { token: dev.token, body: { name: 'thumbsup' } })).status).toBe(201);
  }
  expect((await api(`/projects/${project.id}/issues/${iids[0]}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
}, 60_000);

describe('issue round trips', () => {
  it('a list costs the same for a page of one and of a hundred, with every entity field filled', async () => {
    for (const url of [`/projects/${project.id}/issues`, `/groups/${group.id}/issues`, '/issues?scope=all']) {
      await api(`${url}`, { token: owner.token }); // caches the settings
      const one = await api(`${url}${url.includes('?') ? '&' : '?'}per_page=1`, { token: owner.token });
      const hundred = await api(`${url}${url.includes('?') ? '&' : '?'}per_page=100`, { token: owner.token });
      expect(one.status).toBe(200);
      expect(hundred.body.length).toBeGreaterThanOrEqual(4);
      expect(trips(hundred), url).toBe(trips(one));
      // Project and instance lists: the caller, then one batch (the count first for many-project lists);
      // a group with few projects: its lookup with its readable projects, then one batch.
      expect(trips(hundred), url).toBeLessThanOrEqual(url.startsWith('/groups') ? 2 : 3);
      const mine = hundred.body.filter((i: { project_id: number }) => i.project_id === project.id);
      expect(mine).toHaveLength(4);
      for (const i of mine) {
        expect(i.labels).toContain('shared');
        expect(i.assignees.map((a: { id: number }) => a.id)).toEqual([dev.id]);
        expect(i.milestone.group_id).toBe(group.id);
        expect(i.milestone.web_url).toContain('/groups/');
        expect(i.user_notes_count).toBe(1);
        expect(i.upvotes).toBe(1);
        expect(i.task_completion_status).toEqual({ count: 2, completed_count: 1 });
        expect(i.author.id).toBe(owner.id);
      }
      expect(mine.find((i: { iid: number }) => i.iid === iids[0]).closed_by.id).toBe(owner.id);
    }
  });

  it('a group list pages through the per-project union exactly as one sorted list', async () => {
    const path = unique('g');
    const g = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
    const ps = [];
    // More projects than D1's five terms of a compound SELECT (the union nests its arms).
    for (let k = 0; k < 7; k++) ps.push((await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: g.id } })).body);
    // Interleaved across projects, some closed.
    for (let k = 0; k < 7; k++) {
      const pid = ps[(k * 3) % 7].id;
      const i = (await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: `u${k}` } })).body;
      if (k % 4 === 0) await api(`/projects/${pid}/issues/${i.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    }
    for (const query of ['', 'sort=asc', 'order_by=updated_at', 'state=opened']) {
      const url = `/groups/${g.id}/issues?${query}`;
      const all = await api(`${url}&per_page=100`, { token: owner.token });
      const paged = [];
      for (let page = 1; page <= 4; page++) {
        const res = await api(`${url}&per_page=2&page=${page}`, { token: owner.token });
        expect(trips(res), url).toBeLessThanOrEqual(2);
        expect(res.headers.get('x-total'), url).toBe(String(all.body.length));
        paged.push(...res.body.map((i: { title: string }) => i.title));
      }
      expect(paged, url).toEqual(all.body.map((i: { title: string }) => i.title));
    }
    const titles = async (q: string) => (await api(`/groups/${g.id}/issues?${q}`, { token: owner.token })).body.map((i: { title: string }) => i.title);
    expect(await titles('per_page=100')).toEqual(['u6', 'u5', 'u4', 'u3', 'u2', 'u1', 'u0']);
    expect(await titles('state=opened&sort=asc')).toEqual(['u1', 'u2', 'u3', 'u5', 'u6']);
  });

  it('GET, POST and PUT of an issue, and its notes and award emoji, within the budget', async () => {
    const base = `/projects/${project.id}/issues`;
    await api(base, { token: dev.token }); // caches the settings
    const got = await api(`${base}/${iids[0]}`, { token: dev.token });
    expect(got.status).toBe(200);
    expect(got.body.subscribed).toBe(true); // an assignee (and a commenter)
    expect(got.body.closed_by.id).toBe(owner.id);
    expect(trips(got)).toBeLessThanOrEqual(2);

    const created = await api(base, { token: owner.token, body: { title: 'new', labels: 'shared' } });
    expect(created.status).toBe(201);
    expect(created.body.labels).toEqual(['shared']);
    expect(created.body.subscribed).toBe(true);
    expect(trips(created)).toBeLessThanOrEqual(2); // the labels are read with the project
    const plain = await api(base, { token: owner.token, body: { title: 'plain' } });
    expect(plain.body.author.id).toBe(owner.id);
    expect(trips(plain)).toBeLessThanOrEqual(3);

    const put = await api(`${base}/${plain.body.iid}`, { method: 'PUT', token: owner.token, body: { title: 'renamed' } });
    expect(put.body.title).toBe('renamed');
    expect(trips(put)).toBeLessThanOrEqual(3);

    const notes = await api(`${base}/${iids[1]}/notes?per_page=100`, { token: owner.token });
    expect(notes.body.some((n: { author: { id: number } }) => n.author.id === dev.id)).toBe(true);
    expect(trips(notes)).toBeLessThanOrEqual(3);
    const noteId = notes.body.find((n: { system: boolean }) => !n.system).id;
    const note = await api(`${base}/${iids[1]}/notes/${noteId}`, { token: owner.token });
    expect(note.body.author.id).toBe(dev.id);
    expect(trips(note)).toBeLessThanOrEqual(2);

    const awards = await api(`${base}/${iids[1]}/award_emoji`, { token: owner.token });
    expect(awards.body.map((a: { user: { id: number } }) => a.user.id)).toEqual([dev.id]);
    expect(trips(awards)).toBeLessThanOrEqual(2);
    const award = await api(`${base}/${iids[1]}/award_emoji`, { token: owner.token, body: { name: 'rocket' } });
    expect(award.body.user.id).toBe(owner.id);
    expect(trips(award)).toBeLessThanOrEqual(3);

    const sub = await api(`${base}/${iids[1]}/unsubscribe`, { method: 'POST', token: dev.token });
    expect(sub.status).toBe(201);
    expect(sub.body.subscribed).toBe(false);
    expect(trips(sub)).toBeLessThanOrEqual(3);
    expect((await api(`${base}/${iids[1]}`, { token: dev.token })).body.subscribed).toBe(false);
  });

  it('an issue by global id (administrators) in one read; a deletion in 3 round trips', async () => {
    const base = `/projects/${project.id}/issues`;
    await api('/user', { token: rootToken }); // the caller is cached from here on
    const byProject = await api(`${base}/${iids[2]}`, { token: rootToken });
    const byId = await api(`/issues/${byProject.body.id}`, { token: rootToken });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(byProject.body);
    expect(byId.body.references.short).toBe(`#${iids[2]}`);
    expect(trips(byId)).toBeLessThanOrEqual(2);
    expect((await api('/issues/0', { token: rootToken })).body).toEqual({ message: '404 Not found' });

    const doomed = await api(base, { token: owner.token, body: { title: 'doomed', labels: 'shared', assignee_ids: [dev.id] } });
    await api('/user', { token: owner.token });
    const gone = await api(`${base}/${doomed.body.iid}`, { method: 'DELETE', token: owner.token });
    expect(gone.status).toBe(204);
    expect(trips(gone)).toBeLessThanOrEqual(3);
    expect((await api(`${base}/${doomed.body.iid}`, { token: owner.token })).status).toBe(404);
    expect((await api(`${base}/${doomed.body.iid}`, { method: 'DELETE', token: owner.token })).body).toEqual({ message: '404 Issue Not Found' });
  });

  it('participants, to-dos and user counts within the budget', async () => {
    const base = `/projects/${project.id}/issues`;
    await api(base, { token: dev.token }); // caches the settings
    const participants = await api(`${base}/${iids[2]}/participants`, { token: owner.token });
    expect(participants.body.map((u: { id: number }) => u.id)).toEqual([owner.id, dev.id]);
    expect(trips(participants)).toBeLessThanOrEqual(3);

    // dev has an assignment to-do for each issue: a page of one and of a hundred cost the same.
    const one = await api('/todos?per_page=1', { token: dev.token });
    const hundred = await api('/todos?per_page=100', { token: dev.token });
    expect(hundred.body.length).toBeGreaterThanOrEqual(4);
    expect(hundred.body[0].target.labels).toContain('shared');
    expect(hundred.body[0].project.name_with_namespace).toContain(' / ');
    expect(trips(hundred)).toBe(trips(one));
    expect(trips(hundred)).toBeLessThanOrEqual(3);

    const done = await api(`/todos/${hundred.body[0].id}/mark_as_done`, { method: 'POST', token: dev.token });
    expect(done.body.state).toBe('done');
    expect(trips(done)).toBeLessThanOrEqual(3);

    const counts = await api('/user_counts', { token: dev.token });
    expect(counts.body.assigned_issues).toBe(3); // four assigned, one closed
    expect(trips(counts)).toBeLessThanOrEqual(2);
  });
});
