/**
 * build.sbt.lock (Scala, sbt with the sbt-dependency-lock plugin): JSON whose `dependencies` array
 * holds `{org, name, version, artifacts, configurations}`. Names are `org/name`, as GitLab writes
 * Maven-style names.
 */
import { basenameIn, collect, isRecord, parseJson } from './collect';
import type { LockfileFormat } from './types';

export const sbtLock: LockfileFormat = {
  packageManager: 'sbt',
  matches: basenameIn('build.sbt.lock'),
  parse: (text) =>
    collect((out) => {
      const doc = parseJson(text);
      if (!isRecord(doc) || !Array.isArray(doc.dependencies)) return;
      for (const dep of doc.dependencies) {
        if (!isRecord(dep) || typeof dep.org !== 'string' || typeof dep.name !== 'string') continue;
        if (dep.org.trim() && dep.name.trim()) out.add(`${dep.org.trim()}/${dep.name.trim()}`, dep.version);
      }
    }),
};
