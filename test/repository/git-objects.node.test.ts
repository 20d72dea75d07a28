/** Git object ids match git's own (expected values produced with git hash-object / write-tree / commit-tree). */
import { describe, expect, it } from 'vitest';
import { blobId, commitId, treeId } from '../../src/repository/git-objects';

const text = (s: string) => new TextEncoder().encode(s);

describe('git object ids', () => {
  it('hashes blobs as git hash-object', () => {
    expect(blobId(text(''))).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    expect(blobId(text('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });

  it('hashes nested trees as git write-tree, ordering a directory as name + "/" (src-file before src/)', () => {
    const files = new Map([
      ['src/lib/x.ts', { blobSha: blobId(text('a')), mode: '100644' }],
      ['README.md', { blobSha: blobId(text('hello\n')), mode: '100644' }],
      ['src-file', { blobSha: blobId(text('b')), mode: '100644' }],
      ['run.sh', { blobSha: blobId(text('#!/bin/sh\n')), mode: '100755' }],
    ]);
    expect(files.get('src/lib/x.ts')!.blobSha).toBe('2e65efe2a145dda7ee51d1741299f848e5bf752e');
    expect(treeId(files)).toBe('a2a0b3cae850cbd67fb350f8145bc8d84a7753ba');
  });

  it('hashes commits as git commit-tree (root and child, author and committer apart)', () => {
    const tree = 'a2a0b3cae850cbd67fb350f8145bc8d84a7753ba';
    const author = { name: 'Ann Author', email: 'ann@example.com' };
    const committer = { name: 'Cy Committer', email: 'cy@example.com' };
    const root = commitId(tree, [], { ...author, at: 1700000000_000 }, { ...committer, at: 1700000100_999 }, 'Initial commit');
    expect(root).toBe('94c03a3bd9cdb5fb1adffe836375fe85e9340adc');
    expect(commitId(tree, [root], { ...author, at: 1700000200_000 }, { ...committer, at: 1700000300_000 }, 'Second\n\nbody text\n')).toBe('27d3784565a03a6012c6e208be78bd6b0cd928f9');
  });
});
