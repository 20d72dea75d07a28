/**
 * yarn.lock, classic (v1) and berry (v2+), both read by Yarn's own parser (@yarnpkg/parsers
 * parseSyml). An entry's key lists the descriptors it satisfies (`lodash@^4.17.0, lodash@^4.17.21`
 * in v1, `lodash@npm:^4.17.21` in berry); berry also names the resolution. The `__metadata` block
 * and the workspaces themselves (`@workspace:` resolutions, version `0.0.0-use.local`) are not dependencies.
 */
import { parseSyml } from '@yarnpkg/parsers';
import { descriptorName, fileNamed, isRecord, unique } from './shared';
import type { LockfileFormat, ParsedDependency } from './types';

export function parseYarnLock(text: string): ParsedDependency[] {
  let doc: unknown;
  try {
    doc = parseSyml(text);
  } catch {
    return [];
  }
  if (!isRecord(doc)) return [];
  const out: ParsedDependency[] = [];
  for (const [key, entry] of Object.entries(doc)) {
    if (key === '__metadata' || !isRecord(entry) || typeof entry.version !== 'string') continue;
    const resolution = typeof entry.resolution === 'string' ? entry.resolution : '';
    if (key.includes('@workspace:') || resolution.includes('@workspace:') || entry.version === '0.0.0-use.local') continue;
    const first = key.split(',')[0].trim().replace(/^"|"$/g, '');
    const name = descriptorName(resolution || first);
    if (name) out.push({ name, version: entry.version });
  }
  return unique(out);
}

export const yarnLock: LockfileFormat = { packageManager: 'yarn', matches: fileNamed('yarn.lock'), parse: parseYarnLock };
