/**
 * Settings are one JSON row and a D1 row holds 2,000,000 bytes: long texts that would not fit
 * together are refused before the write (a 400 naming the size) instead of failing in storage.
 * The PUT here is refused, so no setting another file reads changes.
 */
import { describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';

describe('PUT /application/settings', () => {
  it('refuses texts that together exceed the settings row and stores none of them', async () => {
    const before = (await api('/application/settings', { token: rootToken })).body;
    const res = await api('/application/settings', { method: 'PUT', token: rootToken, body: { sign_in_text: 's'.repeat(1_000_000), help_page_text: 'h'.repeat(1_000_000) } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.message)).toEqual(['base']);
    expect(res.body.message.base).toHaveLength(1);
    expect(res.body.message.base[0]).toMatch(/^Application settings are too large to store \(1\.9\d MB\)\. The maximum size is 1\.81 MB\.$/);
    const after = (await api('/application/settings', { token: rootToken })).body;
    expect(after.sign_in_text).toBe(before.sign_in_text);
    expect(after.help_page_text).toBe(before.help_page_text);
  });
});
