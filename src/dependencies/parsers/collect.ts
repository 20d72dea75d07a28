/**
 * What the parsers of MORE_FORMATS (more-formats.ts) share: matching a file by its basename at any
 * depth, and collecting (name, version) pairs once each, in file order.
 */
import type { ParsedDependency } from './types';

/**
 * `matches` for a format whose files have fixed names: the basename (after the last `/`) must be one
 * of them exactly, so `api/Gemfile.lock` matches and `Gemfile.lock.bak` or `old-Gemfile.lock` do not.
 */
export function basenameIn(...names: string[]): (path: string) => boolean {
  const set = new Set(names);
  return (path) => set.has(path.slice(path.lastIndexOf('/') + 1));
}

/** Collects dependencies, dropping exact (name, version) repeats and anything empty. */
export class Collected {
  private readonly seen = new Set<string>();
  readonly list: ParsedDependency[] = [];

  add(name: unknown, version: unknown): void {
    if (typeof name !== 'string' || typeof version !== 'string') return;
    const n = name.trim();
    const v = version.trim();
    if (!n || !v) return;
    const key = `${n}\u0000${v}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push({ name: n, version: v });
  }
}

/**
 * Runs a parser body and returns what it collected, even when the body throws halfway: one broken
 * lockfile must not fail the push that committed it (types.ts), and what was read before the break
 * is still true.
 */
export function collect(read: (out: Collected) => void): ParsedDependency[] {
  const out = new Collected();
  try {
    read(out);
  } catch {
    // Malformed input: keep what was read.
  }
  return out.list;
}

/** A plain object (not an array, not null), for walking JSON of unknown shape. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The lines of a text file, whatever its line endings. */
export function lines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** JSON.parse that answers undefined instead of throwing, and ignores a leading byte-order mark (Visual Studio writes one). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
}
