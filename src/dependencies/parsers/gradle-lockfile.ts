/**
 * gradle.lockfile (Java and Kotlin, Gradle dependency locking): one `group:artifact:version=conf1,conf2`
 * line per locked module, `#` comments, and a final `empty=conf…` line naming the configurations that
 * resolved nothing (not a module). Names are `group/artifact`, as GitLab writes Maven-style names.
 */
import { basenameIn, collect, lines } from './collect';
import type { LockfileFormat } from './types';

const LINE = /^([^:=\s]+):([^:=\s]+):([^:=\s]+)=/;

export const gradleLockfile: LockfileFormat = {
  packageManager: 'gradle',
  matches: basenameIn('gradle.lockfile'),
  parse: (text) =>
    collect((out) => {
      for (const line of lines(text)) {
        const m = LINE.exec(line.trim());
        if (m) out.add(`${m[1]}/${m[2]}`, m[3]);
      }
    }),
};
