/** GET /users/:id/memberships and GET /user/activities (GitLab lib/api/users.rb; entities membership.rb, user_activity.rb). */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

describe('GET /users/:user_id/memberships', () => {
  it("lists a user's project and group memberships with the source's name, filtered by type", async () => {
    const [owner, member] = await Promise.all([createUser(), createUser()]);
    const path = unique('grp');
    const group = (await api('/groups', { token: owner.token, body: { name: `Group ${path}`, path } })).body;
    const project = (await api('/projects', { token: owner.token, body: { name: `Proj ${path}`, path: 'p' } })).body;
    expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 30 } })).status).toBe(201);
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 20 } })).status).toBe(201);

    const all = await api(`/users/${member.id}/memberships`, { token: rootToken });
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      { source_id: group.id, source_name: `Group ${path}`, source_type: 'Namespace', access_level: 30 },
      { source_id: project.id, source_name: `Proj ${path}`, source_type: 'Project', access_level: 20 },
    ]);
    expect(all.headers.get('x-total')).toBe('2');
    expect((await api(`/users/${member.id}/memberships?type=Project`, { token: rootToken })).body).toEqual([all.body[1]]);
    expect((await api(`/users/${member.id}/memberships?type=Namespace`, { token: rootToken })).body).toEqual([all.body[0]]);
    const page = await api(`/users/${member.id}/memberships?per_page=1&page=2`, { token: rootToken });
    expect(page.body).toEqual([all.body[1]]);
    expect(await api(`/users/${member.id}/memberships?type=Group`, { token: rootToken }).then((r) => [r.status, r.body])).toEqual([400, { error: 'type does not have a valid value' }]);
  });

  it('is for administrators only, before the lookup; a missing user is 404 User Not Found', async () => {
    const u = await createUser();
    expect((await api(`/users/${u.id}/memberships`)).status).toBe(401);
    expect(await api(`/users/${u.id}/memberships`, { token: u.token }).then((r) => [r.status, r.body])).toEqual([403, { message: '403 Forbidden' }]);
    expect(await api('/users/999999999/memberships', { token: rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 User Not Found' }]);
  });
});

describe('GET /user/activities', () => {
  it('is for administrators only', async () => {
    const u = await createUser();
    expect((await api('/user/activities')).status).toBe(401);
    expect((await api('/user/activities', { token: u.token })).status).toBe(403);
  });

  it('lists users active since `from`, oldest activity first, as {username, last_activity_on, last_activity_at}', async () => {
    const res = await api('/user/activities?from=2000-01-01', { token: rootToken });
    expect(res.status).toBe(200);
    for (const a of res.body) {
      expect(Object.keys(a)).toEqual(['username', 'last_activity_on', 'last_activity_at']);
      expect(a.last_activity_at).toBe(a.last_activity_on);
    }
    const days = res.body.map((a: { last_activity_on: string }) => a.last_activity_on);
    expect(days).toEqual([...days].sort());
    // Nobody's activity lies in the future.
    expect((await api('/user/activities?from=2999-01-01', { token: rootToken })).body).toEqual([]);
    expect(await api('/user/activities?from=yesterday', { token: rootToken }).then((r) => [r.status, r.body])).toEqual([400, { error: 'from is invalid' }]);
  });

  it("records a user's API use as today's activity (Users::ActivityService), once per day", async () => {
    const u = await createUser();
    expect((await api('/user', { token: u.token })).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const listed = (await api(`/user/activities?from=${today}&per_page=100`, { token: rootToken })).body as { username: string; last_activity_on: string }[];
    // Pages are oldest first and everyone active today ties on the day: look the user up across pages.
    let found = listed.find((a) => a.username === u.username);
    for (let page = 2; !found && page < 50; page++) {
      const more = (await api(`/user/activities?from=${today}&per_page=100&page=${page}`, { token: rootToken })).body as typeof listed;
      if (!more.length) break;
      found = more.find((a) => a.username === u.username);
    }
    expect(found).toEqual({ username: u.username, last_activity_on: today, last_activity_at: today });
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.last_activity_on).toBe(today);
  });
});
