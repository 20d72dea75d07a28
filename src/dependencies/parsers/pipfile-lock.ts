/**
 * Pipfile.lock (Python, Pipenv): JSON with `default` and `develop` maps of name to
 * `{version: "==2.31.0", hashes, markers, index}`. Development packages count, as GitLab lists them.
 * Entries without a `==` version (git, path or editable checkouts) pin no release and are skipped.
 */
import { basenameIn, collect, isRecord, parseJson } from './collect';
import type { LockfileFormat } from './types';

export const pipfileLock: LockfileFormat = {
  packageManager: 'pipenv',
  matches: basenameIn('Pipfile.lock'),
  parse: (text) =>
    collect((out) => {
      const doc = parseJson(text);
      if (!isRecord(doc)) return;
      for (const section of ['default', 'develop']) {
        const map = doc[section];
        if (!isRecord(map)) continue;
        for (const [name, entry] of Object.entries(map)) {
          if (!isRecord(entry) || typeof entry.version !== 'string') continue;
          const m = /^===?\s*(\S+)$/.exec(entry.version.trim());
          if (m) out.add(name, m[1]);
        }
      }
    }),
};
