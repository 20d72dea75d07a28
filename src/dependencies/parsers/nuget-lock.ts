/**
 * packages.lock.json (.NET, NuGet): `dependencies` maps each target framework (`net8.0`,
 * `net8.0/linux-x64`, …) to package ids with their `resolved` version. The same package usually
 * appears under every framework; it is listed once per version. `Project` entries are other
 * projects of the same solution (no `resolved` version) and are skipped.
 */
import { basenameIn, collect, isRecord, parseJson } from './collect';
import type { LockfileFormat } from './types';

export const nugetLock: LockfileFormat = {
  packageManager: 'nuget',
  matches: basenameIn('packages.lock.json'),
  parse: (text) =>
    collect((out) => {
      const doc = parseJson(text);
      if (!isRecord(doc) || !isRecord(doc.dependencies)) return;
      for (const framework of Object.values(doc.dependencies)) {
        if (!isRecord(framework)) continue;
        for (const [id, entry] of Object.entries(framework))
          if (isRecord(entry) && entry.type !== 'Project') out.add(id, entry.resolved);
      }
    }),
};
