/** Request ids (platform/request.ts) come from a pooled random buffer (crypto.ts randomIdHex): still random, distinct and of one length across refills. */
import { describe, expect, it } from 'vitest';
import { randomIdHex } from '../../src/platform/crypto';

describe('randomIdHex', () => {
  it('gives distinct hex ids of the asked length, past several refills of its pool', () => {
    const ids = Array.from({ length: 2000 }, () => randomIdHex(13));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit turns up in every position: the bytes are not stuck.
    for (let i = 0; i < 26; i++) expect(new Set(ids.map((id) => id[i])).size).toBe(16);
  });
});
