/**
 * Gemfile.lock (Ruby, Bundler). The gems are the 4-space `name (version)` lines under `specs:` in
 * the GEM, GIT and PATH sections; 6-space lines below them are a gem's own requirements (ranges),
 * and the other sections (PLATFORMS, DEPENDENCIES, CHECKSUMS, RUBY VERSION, BUNDLED WITH) are not
 * resolved gems. A platform-specific gem is written `nokogiri (1.15.4-x86_64-linux)`: as Bundler's
 * own lockfile parser does, the version ends at the first `-` (RubyGems versions never contain one),
 * so the several platform builds of one version are one dependency. `gems.locked` is the same format
 * under Bundler's other file name, and GitLab scans it too.
 */
import { basenameIn, collect, lines } from './collect';
import type { LockfileFormat } from './types';

const SOURCE_SECTIONS = new Set(['GEM', 'GIT', 'PATH']);
const SPEC = /^ {4}([^ (][^ ]*) \(([^)-]+)(?:-[^)]*)?\)$/;

export const gemfileLock: LockfileFormat = {
  packageManager: 'bundler',
  matches: basenameIn('Gemfile.lock', 'gems.locked'),
  parse: (text) =>
    collect((out) => {
      let inSource = false;
      let inSpecs = false;
      for (const line of lines(text)) {
        if (/^\S/.test(line)) {
          // A new top-level section.
          inSource = SOURCE_SECTIONS.has(line.trim());
          inSpecs = false;
        } else if (/^ {2}\S/.test(line)) {
          inSpecs = inSource && line.trim() === 'specs:';
        } else if (inSpecs) {
          const m = SPEC.exec(line.trimEnd());
          if (m) out.add(m[1], m[2]);
        }
      }
    }),
};
