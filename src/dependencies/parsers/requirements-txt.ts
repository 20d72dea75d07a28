/**
 * requirements.txt (Python, pip). Only exact pins (`name==version`, or `===`) say which release is
 * installed, so only those are listed; ranges, wildcards (`==1.*`), bare names, URLs and local paths
 * are skipped. As pip reads the file: `\` joins continued lines, `#` starts a comment at the line's
 * start or after whitespace (not inside a URL's `#egg=`), lines that are options (`-r`, `-c`, `-e`,
 * `--index-url`, …) are not requirements, per-requirement options (`--hash=…`) and environment
 * markers (`; python_version < "3.11"`) follow the pin and are cut off, and extras
 * (`requests[socks]==2.31.0`) are not part of the name. Markers are not evaluated: the pin is listed
 * whichever environment it applies to. Files named by `-r` are not followed (a parser sees one file);
 * the scanner reads each requirements.txt it finds.
 */
import { basenameIn, collect } from './collect';
import type { LockfileFormat } from './types';

const PIN = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*===?\s*([A-Za-z0-9][A-Za-z0-9.+!_-]*)$/;

export const requirementsTxt: LockfileFormat = {
  packageManager: 'pip',
  matches: basenameIn('requirements.txt'),
  parse: (text) =>
    collect((out) => {
      const joined = text.replace(/\\\r?\n/g, ' ');
      for (const raw of joined.split(/\r\n|\r|\n/)) {
        const line = raw.replace(/(^|\s)#.*$/, '').trim();
        if (!line || line.startsWith('-')) continue;
        const requirement = line.split(';')[0].split(/\s-/)[0].trim();
        const m = PIN.exec(requirement);
        if (m) out.add(m[1], m[2]);
      }
    }),
};
