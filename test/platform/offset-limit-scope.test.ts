/**
 * Which project lists carry GitLab's offset pagination cap (platform/pagination.ts checkOffsetLimit):
 * only those paged by paginate_with_strategies (projects.rb `present_projects`: /projects and
 * /users/:id/projects). A group's projects are paged by plain `paginate` (groups.rb
 * `find_group_projects`), so a page past 50,000 rows there is just an empty page.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const capMessage =
  'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.';

describe('offset pagination cap by list', () => {
  it("refuses page 2,501 of a user's projects but pages a group's projects without a cap", async () => {
    const user = await createUser();
    const own = await api('/projects', { token: user.token, body: { name: unique('own') } });
    expect(own.status).toBe(201);
    const mine = await api(`/users/${user.id}/projects?page=2501`, { token: user.token });
    expect(mine.status).toBe(405);
    expect(mine.body).toEqual({ error: capMessage });
    // The same page within the cap is an ordinary (empty) page.
    expect((await api(`/users/${user.id}/projects?page=2500`, { token: user.token })).status).toBe(200);

    const path = unique('grp');
    const group = await api('/groups', { token: rootToken, body: { name: path, path } });
    expect(group.status).toBe(201);
    const inGroup = await api('/projects', { token: rootToken, body: { name: unique('gp'), namespace_id: group.body.id } });
    expect(inGroup.status).toBe(201);
    const deep = await api(`/groups/${group.body.id}/projects?page=2501`, { token: rootToken });
    expect(deep.status).toBe(200);
    expect(deep.body).toEqual([]);
    const first = await api(`/groups/${group.body.id}/projects`, { token: rootToken });
    expect(first.body.map((p: { id: number }) => p.id)).toEqual([inGroup.body.id]);
  });
});
