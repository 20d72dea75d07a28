import { describe, expect, it } from 'vitest';
import { api, createToken, createUser } from '../support';

describe('GET /user_counts', () => {
  it('answers the counters in GitLab order (all 0 for a new user)', async () => {
    const u = await createUser();
    const res = await api('/user_counts', { token: u.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['merge_requests', 'assigned_issues', 'assigned_merge_requests', 'review_requested_merge_requests', 'todos']);
    expect(res.body).toEqual({ merge_requests: 0, assigned_issues: 0, assigned_merge_requests: 0, review_requested_merge_requests: 0, todos: 0 });
    expect((await api('/user_counts.json', { token: u.token })).body).toEqual(res.body);
  });

  it('answers 401 without authentication', async () => {
    const res = await api('/user_counts');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });

  it('accepts read_api tokens for the GET', async () => {
    const u = await createUser();
    const token = await createToken(u.id, ['read_api']);
    expect((await api('/user_counts', { token })).status).toBe(200);
  });
});
