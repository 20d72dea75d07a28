/**
 * Found by the fuzzer (test/fuzz): an all-digit id beyond JS's safe integers (`1` × 400 is Infinity)
 * reached the database as a bound parameter and failed the query with a 500. Rails finds nothing
 * for an id out of range: GitLab answers the not-found of the lookup.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

const HUGE = '1'.repeat(400);
const UNSAFE = '9007199254740993';
let owner: TestUser;
let project: { id: number };

beforeAll(async () => {
  owner = await createUser();
  project = (await api('/projects', { token: owner.token, body: { name: unique('p') } })).body;
});

describe('ids beyond the safe integers', () => {
  it('name no project, group or namespace (404, not 500)', async () => {
    for (const id of [HUGE, UNSAFE]) {
      expect(await api(`/projects/${id}`, { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      expect(await api(`/projects/${id}/issues/1/time_stats`, { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      expect(await api(`/groups/${id}`, { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
      expect(await api(`/namespaces/${id}`, { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    }
  });

  it('name no namespace to create a project in, and no user to add as a member', async () => {
    expect(await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: HUGE } })).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    expect(await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: HUGE, access_level: 30 } })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
  });

  it('in a keyset cursor, start after no group', async () => {
    const cursor = btoa(JSON.stringify({ name: 'a', id: HUGE, _kd: 'n' }));
    const res = await api(`/groups?pagination=keyset&order_by=name&sort=asc&cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
  });
});
