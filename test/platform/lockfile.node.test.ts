/**
 * `npm ci` on a fresh clone installs exactly what package-lock.json lists, and refuses a lock that
 * misses a package some platform needs. npm 11 can write a lock with only this machine's native
 * packages (workerd, esbuild, libSQL, rollup…), after which `npm ci` fails on macOS and Windows
 * and even here. This keeps the lock whole: every optional dependency of every locked package,
 * on every platform, has its own entry.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  os?: string[];
}
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

/** Node's module resolution over lock paths: `a/node_modules/b` looks for `a/node_modules/b/node_modules/dep`, then up. */
function resolves(from: string, dep: string): boolean {
  let base = from;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${dep}`]) return true;
    if (!base) return false;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
}

describe('package-lock.json', () => {
  it('is a v3 lock whose root matches package.json', () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(lock.packages[''].dependencies).toEqual(pkg.dependencies);
    expect(lock.packages[''].devDependencies).toEqual(pkg.devDependencies);
  });

  it("holds every platform's optional packages (workerd, esbuild, libSQL, …)", () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) if (!resolves(path, dep)) missing.push(`${path || '(root)'} → ${dep}`);
    }
    expect(missing).toEqual([]);
    // The ones this project cannot run without, on each of Linux, macOS and Windows.
    const platforms = Object.values(lock.packages).flatMap((e) => e.os ?? []);
    for (const os of ['linux', 'darwin', 'win32']) expect(platforms).toContain(os);
    for (const p of ['workerd-linux-64', 'workerd-darwin-arm64', 'workerd-darwin-64', 'workerd-windows-64']) expect(lock.packages[`node_modules/@cloudflare/${p}`]).toBeDefined();
  });
});
