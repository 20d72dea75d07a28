/**
 * The shape of src/ (README "Architecture"): files stay small enough to read in one sitting, and
 * every route declares its responses. Imports are checked by `npm run lint:deps`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/platform/config';
import type { Deps } from '../../src/platform/context';

const SRC = join(import.meta.dirname, '../../src');
const MAX_LINES = 450;

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

describe('src/', () => {
  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = [...sourceFiles(SRC)]
      .map((f) => ({ file: relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('declares the responses of every route', () => {
    // The app is only inspected, never called, so its ports are never used.
    const { routes } = createApp({ db: {}, blobs: {}, jobs: {}, rateLimiter: {}, config: loadConfig({}) } as unknown as Deps);
    const undeclared = routes.filter((r) => !r.responses || Object.keys(r.responses).length === 0).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
    // Each route is recorded once (the OpenAPI document and the 405 table read the records).
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });
});
