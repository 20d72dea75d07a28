/**
 * search_rate_limit / search_rate_limit_unauthenticated, changed through PUT /application/settings:
 * issue and merge request lists with `search` count against them (validate_search_rate_limit!),
 * per user or per client address; 429 with the ApplicationRateLimiter body past the threshold.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const tooMany = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };

describe('search_rate_limit', () => {
  it('limits searches per user and per address to the stored threshold; lists without search are not counted', async () => {
    const before = (await api('/application/settings', { token: rootToken })).body;
    const [user, other] = await Promise.all([createUser(), createUser()]);
    const p = await api('/projects', { token: user.token, body: { name: unique('srl'), visibility: 'public' } });
    expect(p.status).toBe(201);
    const put = await api('/application/settings', { method: 'PUT', token: rootToken, body: { search_rate_limit: 2, search_rate_limit_unauthenticated: 1 } });
    expect([put.status, put.body.search_rate_limit, put.body.search_rate_limit_unauthenticated]).toEqual([200, 2, 1]);
    try {
      const issues = (token?: string) => api(`/projects/${p.body.id}/issues?search=x`, { token, headers: { 'X-Forwarded-For': '198.51.100.7' } });
      expect((await issues(user.token)).status).toBe(200);
      expect((await api(`/projects/${p.body.id}/merge_requests?search=x`, { token: user.token })).status).toBe(200);
      const third = await issues(user.token);
      expect([third.status, third.body]).toEqual([429, tooMany]);
      // Not counted: a list without search, and another user's own counter.
      expect((await api(`/projects/${p.body.id}/issues`, { token: user.token })).status).toBe(200);
      expect((await issues(other.token)).status).toBe(200);
      // Anonymous searches: one per address.
      expect((await issues()).status).toBe(200);
      expect((await issues()).status).toBe(429);
    } finally {
      await api('/application/settings', {
        method: 'PUT',
        token: rootToken,
        body: { search_rate_limit: before.search_rate_limit, search_rate_limit_unauthenticated: before.search_rate_limit_unauthenticated },
      });
    }
  });
});
