/**
 * package-lock.json (npm): v1 pins a nested `dependencies` tree; v2 carries that tree and the flat
 * `packages` map keyed by install path; v3 only the map. The map wins when present. Its root entry
 * (`""`), workspace folders (paths outside node_modules) and `link` entries (symlinks to those
 * folders) are the project's own code, not dependencies.
 */
import { isRecord, unique } from './shared';
import { fileNamed } from './shared';
import type { LockfileFormat, ParsedDependency } from './types';

function fromPackages(packages: Record<string, unknown>): ParsedDependency[] {
  const out: ParsedDependency[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (!isRecord(entry) || entry.link === true) continue;
    const at = path.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const name = typeof entry.name === 'string' ? entry.name : path.slice(at + 'node_modules/'.length);
    if (name && typeof entry.version === 'string') out.push({ name, version: entry.version });
  }
  return out;
}

function fromTree(deps: Record<string, unknown>, out: ParsedDependency[], depth = 0): void {
  // npm nests at most as deep as node_modules does; a bound keeps a hostile file from recursing forever.
  if (depth > 64) return;
  for (const [name, entry] of Object.entries(deps)) {
    if (!isRecord(entry)) continue;
    if (typeof entry.version === 'string' && !entry.version.startsWith('file:')) out.push({ name, version: entry.version });
    if (isRecord(entry.dependencies)) fromTree(entry.dependencies, out, depth + 1);
  }
}

export function parsePackageLock(text: string): ParsedDependency[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isRecord(doc)) return [];
  if (isRecord(doc.packages)) return unique(fromPackages(doc.packages));
  const out: ParsedDependency[] = [];
  if (isRecord(doc.dependencies)) fromTree(doc.dependencies, out);
  return unique(out);
}

export const packageLock: LockfileFormat = { packageManager: 'npm', matches: fileNamed('package-lock.json'), parse: parsePackageLock };
