/**
 * notes_create_limit and notes_create_limit_allowlist, changed through PUT /application/settings:
 * comments on issues count per user and minute (one counter across noteables), 429 past the
 * threshold, and allowlisted usernames (case-insensitive) are never limited. Restored after.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const tooMany = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };

describe('notes_create_limit', () => {
  it('limits issue comments per user across issues; allowlisted users are exempt', async () => {
    const [owner, writer, listed] = await Promise.all([createUser(), createUser(), createUser()]);
    const p = await api('/projects', { token: owner.token, body: { name: unique('ncl'), visibility: 'public' } });
    const [a, b] = await Promise.all(['a', 'b'].map(async (t) => (await api(`/projects/${p.body.id}/issues`, { token: owner.token, body: { title: t } })).body));
    const note = (token: string, iid: number, body: string) => api(`/projects/${p.body.id}/issues/${iid}/notes`, { token, body: { body } });
    const before = (await api('/application/settings', { token: rootToken })).body;
    const put = await api('/application/settings', { method: 'PUT', token: rootToken, body: { notes_create_limit: 1, notes_create_limit_allowlist: [listed.username.toUpperCase()] } });
    expect([put.status, put.body.notes_create_limit]).toEqual([200, 1]);
    try {
      expect((await note(writer.token, a.iid, 'one')).status).toBe(201);
      // Another issue, the same counter.
      const second = await note(writer.token, b.iid, 'two');
      expect([second.status, second.body]).toEqual([429, tooMany]);
      for (const body of ['x', 'y', 'z']) expect((await note(listed.token, a.iid, body)).status).toBe(201);
    } finally {
      await api('/application/settings', {
        method: 'PUT',
        token: rootToken,
        body: { notes_create_limit: before.notes_create_limit, notes_create_limit_allowlist: before.notes_create_limit_allowlist },
      });
    }
    // Nothing was written by the refused call.
    const notes = await api(`/projects/${p.body.id}/issues/${b.iid}/notes`, { token: owner.token });
    expect(notes.body.filter((n: any) => !n.system)).toEqual([]);
    expect((await note(writer.token, b.iid, 'after')).status).toBe(201);
  });
});
