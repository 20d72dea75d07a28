/**
 * The test trigger and resend routes are rate limited as GitLab's are by default: 5 requests a
 * minute per hook parent (project or group) and user, counted once the hook is found (so an
 * unknown hook stays a 404), answered 429 with check_rate_limit!'s body and a Retry-After.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique, withSettings } from '../support';

const LIMITED = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };

describe('webhook test and resend rate limits', () => {
  it('test triggers: five a minute per project and user, then 429; another user still has theirs', async () => {
    const [u, other] = await Promise.all([createUser(), createUser()]);
    const p = (await api('/projects', { token: u.token, body: { name: unique('rl') } })).body;
    expect((await api(`/projects/${p.id}/members`, { token: u.token, body: { user_id: other.id, access_level: 40 } })).status).toBe(201);
    const hook = (await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: 'https://example.com/h', push_events: false } })).body;
    const test = (token: string) => api(`/projects/${p.id}/hooks/${hook.id}/test/issues_events`, { method: 'POST', token });
    // The project has no issue: each counted attempt is GitLab's 422 "Ensure the project has issues."
    for (let i = 0; i < 5; i++) expect((await test(u.token)).status).toBe(422);
    const limited = await test(u.token);
    expect([limited.status, limited.body]).toEqual([429, LIMITED]);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect((await test(other.token)).status).toBe(422);
    // An unknown hook is found missing before anything is counted.
    expect((await api(`/projects/${p.id}/hooks/999999999/test/issues_events`, { method: 'POST', token: u.token })).status).toBe(404);
  });

  it('resend: five a minute per group and user, then 429 before the log is looked up', async () => {
    const u = await createUser();
    const path = unique('rlg');
    const g = (await api('/groups', { token: u.token, body: { name: path, path } })).body;
    const hook = (await api(`/groups/${g.id}/hooks`, { token: u.token, body: { url: 'https://example.com/g', push_events: false } })).body;
    const resend = () => api(`/groups/${g.id}/hooks/${hook.id}/events/999999999/resend`, { method: 'POST', token: u.token });
    for (let i = 0; i < 5; i++) expect((await resend()).status).toBe(404);
    expect(await resend().then((r) => [r.status, r.body])).toEqual([429, LIMITED]);
  });

  it('web_hook_event_resend_limit 0 turns the resend limit off (GitLab 19.3 setting)', async () => {
    const u = await createUser();
    const p = (await api('/projects', { token: u.token, body: { name: unique('rl0') } })).body;
    const hook = (await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: 'https://example.com/z', push_events: false } })).body;
    await withSettings({ web_hook_event_resend_limit: 0 }, async () => {
      for (let i = 0; i < 7; i++) expect((await api(`/projects/${p.id}/hooks/${hook.id}/events/999999999/resend`, { method: 'POST', token: u.token })).status).toBe(404);
    });
  });
});
