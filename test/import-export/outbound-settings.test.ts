/**
 * allow_local_requests_from_web_hooks_and_services and outbound_local_requests_whitelist, changed
 * through PUT /application/settings, as POST /projects/remote-import shows them on both runtimes:
 * a local address is blocked until the setting (or an allowlist entry for it) lets the request go
 * out. Nothing listens on port 1, so the allowed request fails at the HEAD instead of being blocked.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

describe('outbound guard settings', () => {
  it('lets remote import reach a local address only when allowed or allowlisted', async () => {
    const user = await createUser();
    const remote = () => api('/projects/remote-import', { token: user.token, body: { url: 'https://127.0.0.1:1/export.tar.gz', path: unique('outb') } });
    const blocked = { message: 'File url is blocked: Requests to localhost are not allowed' };
    const before = (await api('/application/settings', { token: rootToken })).body;
    expect(before.allow_local_requests_from_web_hooks_and_services).toBe(false);
    const first = await remote();
    expect([first.status, first.body]).toEqual([400, blocked]);
    const settings = async (body: Record<string, unknown>) => expect((await api('/application/settings', { method: 'PUT', token: rootToken, body })).status).toBe(200);
    try {
      for (const change of [{ allow_local_requests_from_web_hooks_and_services: true }, { allow_local_requests_from_web_hooks_and_services: false, outbound_local_requests_whitelist: ['127.0.0.1'] }]) {
        await settings(change);
        const res = await remote();
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/^Failed to retrive headers: /);
        expect(res.body.message).not.toContain('blocked');
      }
    } finally {
      await settings({
        allow_local_requests_from_web_hooks_and_services: before.allow_local_requests_from_web_hooks_and_services,
        outbound_local_requests_whitelist: before.outbound_local_requests_whitelist,
      });
    }
    const again = await remote();
    expect([again.status, again.body]).toEqual([400, blocked]);
    expect((await api('/projects?owned=true', { token: user.token })).body).toEqual([]);
  });
});
