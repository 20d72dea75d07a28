/** What the lockfile parsers share: file-name matching and de-duplication of (name, version) pairs. */
import type { ParsedDependency } from './types';

/** A matcher for a file name at any depth (`package-lock.json`, `web/package-lock.json`). */
export const fileNamed = (name: string) => (path: string) => path === name || path.endsWith(`/${name}`);

/** Each (name, version) once, in first-seen order: a lockfile pins one package in many places. */
export function unique(list: ParsedDependency[]): ParsedDependency[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.name}\u0000${d.version}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The package name of an npm descriptor `name@range` (`@scope/name@npm:^1.0.0` → `@scope/name`). */
export function descriptorName(descriptor: string): string {
  const at = descriptor.indexOf('@', descriptor.startsWith('@') ? 1 : 0);
  return at > 0 ? descriptor.slice(0, at) : descriptor;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
