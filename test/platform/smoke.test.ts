import { describe, expect, it } from 'vitest';
import { fetchApi, rootToken } from '#harness';

describe('GET /user', () => {
  it('answers the bootstrap administrator for the root token', async () => {
    const res = await fetchApi('/api/v4/user', { headers: { 'PRIVATE-TOKEN': rootToken } });
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({ id: 1, username: 'root', is_admin: true, state: 'active' });
  });
  it('answers 401 without credentials', async () => {
    const res = await fetchApi('/api/v4/user');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: '401 Unauthorized' });
  });
});
