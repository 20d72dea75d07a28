/**
 * go.mod (Go modules): the `require` directives, single-line or in a `require ( … )` block. Indirect
 * requirements (`// indirect`) are dependencies too and are kept. Simple `replace` directives are
 * honoured as Go applies them: `old [v] => new v` reports the replacement module and version (only
 * for the required version when the left side names one); `old [v] => ../local/dir` means the code
 * comes from the repository itself, not from a published version, so the requirement is dropped.
 * `exclude`, `retract`, `module`, `go` and `toolchain` pin nothing.
 */
import { basenameIn, collect, lines } from './collect';
import type { LockfileFormat } from './types';

interface Replacement {
  version?: string;
  to: { path: string; version?: string };
}

/** Splits a directive's arguments, dropping the trailing `//` comment and the quotes Go allows. */
function words(s: string): string[] {
  const comment = s.indexOf('//');
  const body = comment >= 0 ? s.slice(0, comment) : s;
  return body
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/^"(.*)"$/, '$1').replace(/^`(.*)`$/, '$1'));
}

/** `old [v] => new [v]`, or undefined when the line is not a replacement Go would accept. */
function replacement(args: string): [string, Replacement] | undefined {
  const arrow = args.indexOf('=>');
  if (arrow < 0) return undefined;
  const left = words(args.slice(0, arrow));
  const right = words(args.slice(arrow + 2));
  if (left.length < 1 || left.length > 2 || right.length < 1 || right.length > 2) return undefined;
  return [left[0], { version: left[1], to: { path: right[0], version: right[1] } }];
}

export const goMod: LockfileFormat = {
  packageManager: 'go',
  matches: basenameIn('go.mod'),
  parse: (text) =>
    collect((out) => {
      const required: [string, string][] = [];
      const replaced = new Map<string, Replacement[]>();
      let block: string | undefined;
      for (const raw of lines(text)) {
        const line = raw.trim();
        if (block) {
          if (line.startsWith(')')) {
            block = undefined;
            continue;
          }
          handle(block, line);
          continue;
        }
        const m = /^(require|replace|exclude|retract)\s*(\(?)(.*)$/.exec(line);
        if (!m) continue;
        if (m[2] === '(' && words(m[3]).length === 0) block = m[1];
        else handle(m[1], m[2] + m[3]);
      }

      function handle(verb: string, args: string) {
        if (verb === 'require') {
          const w = words(args);
          if (w.length === 2 && w[1].startsWith('v')) required.push([w[0], w[1]]);
        } else if (verb === 'replace') {
          const r = replacement(args);
          if (r) replaced.set(r[0], [...(replaced.get(r[0]) ?? []), r[1]]);
        }
      }

      for (const [path, version] of required) {
        const rules = replaced.get(path) ?? [];
        // A replacement of this exact version wins over one of every version, as in Go.
        const rule = rules.find((r) => r.version === version) ?? rules.find((r) => r.version === undefined);
        if (!rule) out.add(path, version);
        else if (rule.to.version) out.add(rule.to.path, rule.to.version);
        // Otherwise a directory replacement: no published version is used.
      }
    }),
};
