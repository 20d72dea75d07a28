/**
 * go.sum (Go modules): one `module version hash` line per checksum. A module usually has two lines,
 * `v1.8.0 h1:…` for its code and `v1.8.0/go.mod h1:…` for its go.mod file; both name the same
 * version, so the `/go.mod` suffix is dropped and the pair counts once. Versions keep Go's own form
 * (`v1.8.0`, pseudo-versions, `+incompatible`), as GitLab lists them.
 */
import { basenameIn, collect, lines } from './collect';
import type { LockfileFormat } from './types';

const LINE = /^(\S+)\s+(v\S+?)(?:\/go\.mod)?\s+\S+$/;

export const goSum: LockfileFormat = {
  packageManager: 'go',
  matches: basenameIn('go.sum'),
  parse: (text) =>
    collect((out) => {
      for (const line of lines(text)) {
        const m = LINE.exec(line.trim());
        if (m) out.add(m[1], m[2]);
      }
    }),
};
