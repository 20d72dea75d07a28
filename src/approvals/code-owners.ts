/**
 * CODEOWNERS files as GitLab reads them (ee/lib/gitlab/code_owners.rb, code_owners/file.rb,
 * section_parser.rb, section.rb, entry.rb, reference_extractor.rb): sections with optional `^`,
 * an approvals count `[n]` and default owners; entries whose last matching pattern in each section
 * owns a path (`File.fnmatch?` with FNM_PATHNAME | FNM_DOTMATCH); `!pattern` exclusions. Pure: the
 * rules built from it live in system-rules.ts.
 */

/** Gitlab::CodeOwners::FILE_PATHS, in the order Repository#code_owners_blob tries them (the first found is used). */
export const CODEOWNERS_PATHS = ['CODEOWNERS', 'docs/CODEOWNERS', '.gitlab/CODEOWNERS'] as const;

/** Gitlab::CodeOwners::Section::DEFAULT: the section of entries before any header. */
export const DEFAULT_SECTION = 'codeowners';

export interface CodeOwnerEntry {
  /** The pattern as written (the code owner rule's name). */
  pattern: string;
  /** The owners of the line, or the section's default owners when the line names none. */
  ownerLine: string;
  section: string;
  optional: boolean;
  approvalsRequired: number;
  exclusion: boolean;
}

export interface CodeOwnersFile {
  /** Section name -> normalized pattern -> entry, in file order (a repeated pattern keeps its first place, as a Ruby Hash). */
  sections: Map<string, Map<string, CodeOwnerEntry>>;
}

// SectionParser::HEADER_REGEX. It is anchored at the start only: a line starting with `[x]` is a
// section header even when more text follows (GitLab's own behaviour; escape such patterns).
const HEADER = /^(?<optional>\^)?\[(?<name>.*?)\](?:\[(?<approvals>\d*?)\])?(?<owners>\s+[@\w_.\-/\s+]*)?/;

/** File#get_parsed_data. */
export function parseCodeOwners(text: string): CodeOwnersFile {
  const sections = new Map<string, Map<string, CodeOwnerEntry>>([[DEFAULT_SECTION, new Map()]]);
  let current = { name: DEFAULT_SECTION, optional: false, approvals: 0, defaultOwners: '' };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const header = HEADER.exec(line);
    if (header) {
      const g = header.groups!;
      current = { name: sectionName(g.name, sections), optional: g.optional != null, approvals: Number.parseInt(g.approvals || '0', 10) || 0, defaultOwners: (g.owners ?? '').trim() };
      if (!sections.has(current.name)) sections.set(current.name, new Map());
      continue;
    }
    // line.partition(/(?<!\\)\s+/): the pattern runs to the first unescaped whitespace.
    const split = /(?<!\\)\s+/.exec(line);
    let pattern = split ? line.slice(0, split.index) : line;
    const owners = split ? line.slice(split.index + split[0].length) : '';
    const exclusion = pattern.startsWith('!');
    if (exclusion) pattern = pattern.slice(1);
    sections.get(current.name)!.set(normalizePattern(pattern), {
      pattern,
      ownerLine: exclusion ? '' : owners || current.defaultOwners,
      section: current.name,
      optional: current.optional,
      approvalsRequired: current.approvals,
      exclusion,
    });
  }
  return { sections };
}

/** SectionParser#find_section_name: after the first header, a name matching an earlier section case-insensitively joins it. */
function sectionName(name: string, sections: Map<string, unknown>): string {
  const keys = [...sections.keys()];
  if (keys[keys.length - 1] === DEFAULT_SECTION) return name;
  return keys.find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
}

/** File#normalize_pattern: unanchored patterns match at any depth, a trailing `/` owns everything below. */
export function normalizePattern(input: string): string {
  if (input === '*') return '/**/*';
  let pattern = input.replace(/^\\#/, '#').replace(/\\\s+/g, ' ');
  if (!pattern.startsWith('/')) pattern = `/**/${pattern}`;
  if (pattern.endsWith('/')) pattern = `${pattern}**/*`;
  return pattern;
}

const fnmatchCache = new Map<string, RegExp>();

/**
 * Ruby's File.fnmatch?(pattern, path, FNM_PATHNAME | FNM_DOTMATCH): `*`, `?` and brackets never
 * cross `/`, `**​/` spans whole directories (none included), a backslash escapes, braces are literal.
 */
export function fnmatch(pattern: string, path: string): boolean {
  let re = fnmatchCache.get(pattern);
  if (!re) {
    re = new RegExp(`^${fnmatchSource(pattern)}$`, 's');
    if (fnmatchCache.size > 1000) fnmatchCache.clear();
    fnmatchCache.set(pattern, re);
  }
  return re.test(path);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

function fnmatchSource(p: string): string {
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const ch = p[i];
    const segmentStart = i === 0 || p[i - 1] === '/';
    if (ch === '*' && segmentStart && p.startsWith('**/', i)) {
      out += '(?:[^/]*/)*';
      i += 2;
    } else if (ch === '*') {
      while (p[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '\\' && i + 1 < p.length) {
      out += escapeRe(p[++i]);
    } else if (ch === '[') {
      const end = bracketEnd(p, i);
      // Ruby: an unclosed bracket matches nothing, and neither does `[]`.
      if (end < 0) return '(?!)';
      if (end === i + 1) {
        out += '(?!)';
        i = end;
        continue;
      }
      let body = p.slice(i + 1, end);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      let cls = '';
      for (let j = 0; j < body.length; j++) {
        if (body[j] === '\\' && j + 1 < body.length) cls += escapeRe(body[++j]);
        else if (body[j] === '-' && j > 0 && j < body.length - 1) cls += '-';
        else cls += escapeRe(body[j]);
      }
      // A bracket never matches the separator (FNM_PATHNAME).
      out += negate ? `[^/${cls}]` : `(?!/)[${cls}]`;
      i = end;
    } else {
      out += escapeRe(ch);
    }
  }
  return out;
}

function bracketEnd(p: string, start: number): number {
  let j = start + 1;
  if (p[j] === '!' || p[j] === '^') j++;
  for (; j < p.length; j++) {
    if (p[j] === '\\') j++;
    else if (p[j] === ']') return j;
  }
  return -1;
}

/**
 * File#entries_for_path: in each section the last matching pattern owns the path, unless a
 * matching exclusion (`!pattern`) takes the path out of that section.
 */
export function entriesForPath(file: CodeOwnersFile, input: string): CodeOwnerEntry[] {
  const path = input.startsWith('/') ? input : `/${input}`;
  const out: CodeOwnerEntry[] = [];
  for (const entries of file.sections.values()) {
    const matching = [...entries.keys()].reverse().filter((pattern) => fnmatch(pattern, path));
    if (!matching.length) continue;
    const found = matching.map((p) => entries.get(p)!);
    if (found.some((e) => e.exclusion)) continue;
    out.push(found[0]);
  }
  return out;
}

const entryKey = (e: CodeOwnerEntry) => JSON.stringify([e.pattern, e.ownerLine, e.section, e.optional, e.approvalsRequired]);

/** Loader#load_bare_entries_for_paths: the entries owning any of the paths, each once (Entry equality is by its data). */
export function entriesForPaths(file: CodeOwnersFile, paths: string[]): CodeOwnerEntry[] {
  const seen = new Map<string, CodeOwnerEntry>();
  for (const path of paths) for (const e of entriesForPath(file, path)) if (!seen.has(entryKey(e))) seen.set(entryKey(e), e);
  return [...seen.values()];
}

/** File#optional_section?: every entry of the section is optional (a section also listed without `^` stays required). */
export function isOptionalSection(file: CodeOwnersFile, section: string): boolean {
  const entries = [...(file.sections.get(section)?.values() ?? [])];
  return entries.length > 0 && entries.every((e) => e.optional);
}

// ReferenceExtractor: emails, and `@name` references (users or group paths) not preceded by a word
// character or `@` (so `@@role` and `a@b` are not names).
const EMAIL = /[^@\s]{1,100}@[^@\s]{1,255}(?<!\W)/g;
const NAME = /(?<![\w@])@((?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*\/)*[a-zA-Z0-9_.][a-zA-Z0-9_.-]*)/g;

export function ownerReferences(ownerLine: string): { names: string[]; emails: string[] } {
  const emails = [...new Set([...ownerLine.matchAll(EMAIL)].map((m) => m[0].toLowerCase()))];
  const names = [...new Set([...ownerLine.matchAll(NAME)].map((m) => m[1].replace(/[.-]+$/, '').toLowerCase()))].filter(Boolean);
  return { names, emails };
}
