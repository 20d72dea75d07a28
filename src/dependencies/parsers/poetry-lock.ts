/**
 * poetry.lock (Python, Poetry): TOML whose `[[package]]` tables carry `name` and `version`, main and
 * development groups alike (GitLab lists both). Read with smol-toml; a file that is not valid TOML
 * yields nothing, since a half-read TOML document cannot say which table a key belonged to.
 */
import { parse as parseToml } from 'smol-toml';
import { basenameIn, collect, isRecord } from './collect';
import type { LockfileFormat } from './types';

export const poetryLock: LockfileFormat = {
  packageManager: 'poetry',
  matches: basenameIn('poetry.lock'),
  parse: (text) =>
    collect((out) => {
      const doc = parseToml(text);
      const packages = doc.package;
      if (!Array.isArray(packages)) return;
      for (const pkg of packages) if (isRecord(pkg)) out.add(pkg.name, pkg.version);
    }),
};
