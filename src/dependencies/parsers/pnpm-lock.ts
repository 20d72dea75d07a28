/**
 * pnpm-lock.yaml, read with `yaml`. The `packages` map's keys changed shape with the lockfile version:
 * 5.x `/name/1.0.0` (peer suffix `_peer@2.0.0`), 6.x `/name@1.0.0` (peers in parentheses), 9.x
 * `name@1.0.0` (peers only in `snapshots`, which repeats the packages and is not read). An entry's
 * own `name` and `version` (tarball and git dependencies) win over the key.
 */
import { parse } from 'yaml';
import { descriptorName, fileNamed, isRecord, unique } from './shared';
import type { LockfileFormat, ParsedDependency } from './types';

function fromKey(key: string, major: number): ParsedDependency | null {
  const bare = key.replace(/^\//, '').replace(/\(.*$/, '');
  if (major < 6) {
    const slash = bare.lastIndexOf('/');
    if (slash <= 0) return null;
    return { name: bare.slice(0, slash), version: bare.slice(slash + 1).split('_')[0] };
  }
  const name = descriptorName(bare);
  return name === bare ? null : { name, version: bare.slice(name.length + 1) };
}

export function parsePnpmLock(text: string): ParsedDependency[] {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch {
    return [];
  }
  if (!isRecord(doc) || !isRecord(doc.packages)) return [];
  const major = Number.parseInt(String(doc.lockfileVersion ?? '5'), 10) || 5;
  const out: ParsedDependency[] = [];
  for (const [key, entry] of Object.entries(doc.packages)) {
    const own = isRecord(entry) && typeof entry.name === 'string' && typeof entry.version === 'string' ? { name: entry.name, version: entry.version } : null;
    const dep = own ?? fromKey(key, major);
    if (dep && dep.name && dep.version && !/^(link|file|workspace):/.test(dep.version)) out.push(dep);
  }
  return unique(out);
}

export const pnpmLock: LockfileFormat = { packageManager: 'pnpm', matches: fileNamed('pnpm-lock.yaml'), parse: parsePnpmLock };
