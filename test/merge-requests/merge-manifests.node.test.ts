/** Three-way merges of file manifests (services/repository.ts mergeManifests): what merges cleanly and what conflicts. */
import { describe, expect, it } from 'vitest';
import { type Manifest, mergeManifests } from '../../src/repository/repository';

const m = (files: Record<string, string>): Manifest => new Map(Object.entries(files).map(([path, blob]) => [path, { blobSha: blob, mode: '100644', size: 1 }]));
const flat = (x: Manifest | null) => (x ? Object.fromEntries([...x].map(([p, e]) => [p, e.blobSha])) : null);

describe('mergeManifests', () => {
  it('takes the source’s changes on top of the target’s', () => {
    const base = m({ a: '1', b: '1', c: '1' });
    const target = m({ a: '2', b: '1', c: '1', t: '1' });
    const source = m({ a: '1', b: '3', s: '1' }); // changed b, deleted c, added s
    expect(flat(mergeManifests(base, target, source))).toEqual({ a: '2', b: '3', s: '1', t: '1' });
  });

  it('accepts the same change on both sides', () => {
    expect(flat(mergeManifests(m({ a: '1' }), m({ a: '2' }), m({ a: '2' })))).toEqual({ a: '2' });
  });

  it('conflicts when both sides change a path differently, or one deletes what the other edits', () => {
    expect(mergeManifests(m({ a: '1' }), m({ a: '2' }), m({ a: '3' }))).toBeNull();
    expect(mergeManifests(m({ a: '1' }), m({}), m({ a: '3' }))).toBeNull();
    expect(mergeManifests(m({}), m({ a: '1' }), m({ a: '2' }))).toBeNull();
  });

  it('conflicts when one side adds a file where the other adds a directory', () => {
    expect(mergeManifests(m({}), m({ x: '1' }), m({ 'x/y': '1' }))).toBeNull();
  });
});
