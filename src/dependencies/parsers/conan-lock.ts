/**
 * conan.lock (C and C++, Conan). Two shapes:
 * - version 0.4 (Conan 1.x): `graph_lock.nodes` maps node ids to `{ref: "zlib/1.2.11[@user/channel][#rrev]", …}`;
 *   the node with a `path` is the consuming conanfile itself, not a dependency.
 * - version 0.5 (Conan 2.x): `requires`, `build_requires` and `python_requires` arrays of
 *   `name/version[@user/channel][#rrev[%timestamp]]`; every list counts, like development dependencies elsewhere.
 * The name and version are the reference's first two parts (GitLab's conan package URLs carry user
 * and channel as qualifiers, not in the name).
 */
import { basenameIn, collect, isRecord, parseJson, type Collected } from './collect';
import type { LockfileFormat } from './types';

const REF = /^([^/@#:\s]+)\/([^/@#:%\s]+)/;

function addRef(out: Collected, ref: unknown) {
  if (typeof ref !== 'string') return;
  const m = REF.exec(ref.trim());
  if (m) out.add(m[1], m[2]);
}

export const conanLock: LockfileFormat = {
  packageManager: 'conan',
  matches: basenameIn('conan.lock'),
  parse: (text) =>
    collect((out) => {
      const doc = parseJson(text);
      if (!isRecord(doc)) return;
      const nodes = isRecord(doc.graph_lock) ? doc.graph_lock.nodes : undefined;
      if (isRecord(nodes))
        for (const node of Object.values(nodes)) if (isRecord(node) && node.path === undefined) addRef(out, node.ref);
      for (const key of ['requires', 'build_requires', 'python_requires'])
        if (Array.isArray(doc[key])) for (const ref of doc[key] as unknown[]) addRef(out, ref);
    }),
};
