/** bundle-read.ts against bundles written by git itself: deltified packs, v2 and v3 headers, damage refused. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleError, readBundle } from '../../src/import-export/bundle-read';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'buffer', env: { ...process.env, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'C', GIT_COMMITTER_EMAIL: 'c@example.com' } });

function repoWithHistory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-read-'));
  git(dir, 'init', '-q', '-b', 'main');
  let text = '';
  for (let i = 0; i < 12; i++) {
    // A file that grows a little each commit: git gc stores most versions as deltas.
    text += `line ${i} ${'lorem ipsum dolor sit amet '.repeat(20)}\n`;
    writeFileSync(join(dir, 'big.txt'), text);
    writeFileSync(join(dir, `f${i % 3}.txt`), `v${i}\n`);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', `commit ${i}`);
    if (i === 6) git(dir, 'branch', 'side');
  }
  git(dir, 'tag', '-a', 'v1', '-m', 'annotated');
  git(dir, 'gc', '-q', '--aggressive');
  return dir;
}

describe('readBundle', () => {
  it('reads every object of a deltified pack with the ids and bodies git has', () => {
    const dir = repoWithHistory();
    git(dir, 'bundle', 'create', '-q', 'all.bundle', '--all');
    const bytes = new Uint8Array(readFileSync(join(dir, 'all.bundle')));
    const bundle = readBundle(bytes);
    const refs = git(dir, 'show-ref').toString().trim().split('\n').map((l) => l.split(' '));
    expect(bundle.refs.filter((r) => r.name !== 'HEAD').map((r) => [r.sha, r.name]).sort()).toEqual(refs.sort());
    const all = git(dir, 'rev-list', '--objects', '--all').toString().trim().split('\n').map((l) => l.slice(0, 40));
    expect([...bundle.objects.keys()].sort()).toEqual([...new Set(all)].sort());
    // The pack really held deltas (or the test proves less than it says).
    const verify = git(dir, 'verify-pack', '-v', ...execFileSync('sh', ['-c', 'ls .git/objects/pack/*.idx'], { cwd: dir, encoding: 'utf8' }).trim().split('\n')).toString();
    expect(verify).toMatch(/chain length = [1-9]/);
    for (const [sha, obj] of bundle.objects) {
      expect([sha, obj.type]).toEqual([sha, git(dir, 'cat-file', '-t', sha).toString().trim()]);
      expect(Buffer.from(obj.body).equals(git(dir, 'cat-file', obj.type, sha))).toBe(true);
    }
  });

  it('reads a v3 header and refuses prerequisites, damage and a foreign file', () => {
    const dir = repoWithHistory();
    git(dir, 'bundle', 'create', '-q', '--version=3', 'v3.bundle', 'main');
    expect(readBundle(new Uint8Array(readFileSync(join(dir, 'v3.bundle')))).refs.map((r) => r.name)).toEqual(['refs/heads/main']);
    git(dir, 'bundle', 'create', '-q', 'part.bundle', 'side..main');
    expect(() => readBundle(new Uint8Array(readFileSync(join(dir, 'part.bundle'))))).toThrow(/prerequisites/);
    const good = new Uint8Array(readFileSync(join(dir, 'v3.bundle')));
    const flipped = good.slice();
    flipped[flipped.length - 30] ^= 0xff;
    expect(() => readBundle(flipped)).toThrow(BundleError);
    expect(() => readBundle(good.subarray(0, good.length - 100))).toThrow(BundleError);
    expect(() => readBundle(new TextEncoder().encode('hello\n\nPACK'))).toThrow('Not a git bundle');
    expect(() => readBundle(good, { maxObjectBytes: 100 })).toThrow('too large');
  });
});
