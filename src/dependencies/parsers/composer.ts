/**
 * composer.lock (PHP): `packages` and `packages-dev`, each an array of `{name, version, ...}`.
 * Development packages count, as GitLab's dependency scanning lists them by default.
 * Versions stay as Composer writes them (`v6.3.0` for Symfony's tags, `dev-main` for branches).
 */
import { basenameIn, collect, isRecord, parseJson } from './collect';
import type { LockfileFormat } from './types';

export const composerLock: LockfileFormat = {
  packageManager: 'composer',
  matches: basenameIn('composer.lock'),
  parse: (text) =>
    collect((out) => {
      const doc = parseJson(text);
      if (!isRecord(doc)) return;
      for (const section of ['packages', 'packages-dev']) {
        const list = doc[section];
        if (!Array.isArray(list)) continue;
        for (const pkg of list) if (isRecord(pkg)) out.add(pkg.name, pkg.version);
      }
    }),
};
