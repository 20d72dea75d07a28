/**
 * CODEOWNERS parsing and matching (ee/lib/gitlab/code_owners/file.rb, section_parser.rb,
 * reference_extractor.rb). Path matching is checked against Ruby's own File.fnmatch? with the
 * flags GitLab uses (fixture recorded with Ruby), so it fails if the port drifts from Ruby.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SECTION, entriesForPath, entriesForPaths, fnmatch, isOptionalSection, normalizePattern, ownerReferences, parseCodeOwners } from '../../src/approvals/code-owners';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/fnmatch-ruby.json', import.meta.url), 'utf8')) as { cases: [string, string, boolean][] };

describe('fnmatch', () => {
  it('answers as Ruby File.fnmatch? with FNM_DOTMATCH | FNM_PATHNAME on recorded cases', () => {
    expect(fixture.cases.length).toBeGreaterThan(500);
    expect(fixture.cases.filter((c) => c[2]).length).toBeGreaterThan(50);
    for (const [pattern, path, expected] of fixture.cases) expect([pattern, path, fnmatch(pattern, path)]).toEqual([pattern, path, expected]);
  });
});

describe('normalizePattern', () => {
  it('anchors, spans directories and unescapes as File#normalize_pattern', () => {
    expect(normalizePattern('*')).toBe('/**/*');
    expect(normalizePattern('*.rb')).toBe('/**/*.rb');
    expect(normalizePattern('/docs/')).toBe('/docs/**/*');
    expect(normalizePattern('docs/')).toBe('/**/docs/**/*');
    expect(normalizePattern('/README.md')).toBe('/README.md');
    expect(normalizePattern('\\#file')).toBe('/**/#file');
    expect(normalizePattern('path\\ with\\ spaces')).toBe('/**/path with spaces');
  });
});

describe('parseCodeOwners', () => {
  const file = parseCodeOwners(
    [
      '# a comment',
      '* @everyone',
      '*.rb @ruby-team',
      '/docs/ docs@example.com',
      '\\#hash @hasher',
      'path\\ with\\ spaces/ @spacey',
      '',
      '[Backend][2] @backend-default',
      'app/',
      '*.rb @backend @other',
      '^[Optional] @opt',
      '*.md',
      '[backend]',
      '/lib/ @lib',
      '!*.lock',
    ].join('\n'),
  );

  it('reads sections with approvals, default owners, optional flags and case-insensitive merging', () => {
    expect([...file.sections.keys()]).toEqual([DEFAULT_SECTION, 'Backend', 'Optional']);
    const backend = [...file.sections.get('Backend')!.values()];
    expect(backend.map((e) => [e.pattern, e.ownerLine, e.approvalsRequired, e.optional, e.exclusion])).toEqual([
      ['app/', '@backend-default', 2, false, false],
      ['*.rb', '@backend @other', 2, false, false],
      // `[backend]` joins the Backend section, with its own (absent) count and owners.
      ['/lib/', '@lib', 0, false, false],
      ['*.lock', '', 0, false, true],
    ]);
    expect(isOptionalSection(file, 'Optional')).toBe(true);
    expect(isOptionalSection(file, 'Backend')).toBe(false);
    expect(isOptionalSection(file, 'Missing')).toBe(false);
  });

  it('gives each section the last matching pattern of a path', () => {
    expect(entriesForPath(file, 'app/models/user.rb').map((e) => [e.section, e.pattern])).toEqual([
      [DEFAULT_SECTION, '*.rb'],
      ['Backend', '*.rb'],
    ]);
    expect(entriesForPath(file, 'docs/index.md').map((e) => [e.section, e.pattern])).toEqual([
      [DEFAULT_SECTION, '/docs/'],
      ['Optional', '*.md'],
    ]);
    expect(entriesForPath(file, '#hash').map((e) => e.pattern)).toEqual(['\\#hash']);
    expect(entriesForPath(file, 'a/path with spaces/x').map((e) => e.pattern)).toEqual(['path\\ with\\ spaces/']);
  });

  it('takes an excluded path out of its section only', () => {
    expect(entriesForPath(file, 'lib/Gemfile.lock').map((e) => [e.section, e.pattern])).toEqual([[DEFAULT_SECTION, '*']]);
  });

  it('lists each entry once for many paths', () => {
    expect(entriesForPaths(file, ['a.rb', 'b.rb', 'c.txt']).map((e) => [e.section, e.pattern])).toEqual([
      [DEFAULT_SECTION, '*.rb'],
      ['Backend', '*.rb'],
      [DEFAULT_SECTION, '*'],
    ]);
  });

  it('treats a line starting with a bracketed word as a section header, as GitLab does', () => {
    const f = parseCodeOwners('[abc].txt @user\nx @y');
    expect([...f.sections.keys()]).toEqual([DEFAULT_SECTION, 'abc']);
    expect([...f.sections.get('abc')!.values()].map((e) => e.pattern)).toEqual(['x']);
  });

  it('keeps the first place of a repeated pattern with the later owners (a Ruby Hash)', () => {
    const f = parseCodeOwners('*.rb @a\n*.md @b\n*.rb @c');
    expect([...f.sections.get(DEFAULT_SECTION)!.values()].map((e) => [e.pattern, e.ownerLine])).toEqual([
      ['*.rb', '@c'],
      ['*.md', '@b'],
    ]);
    // The repeated pattern keeps its early place, so a later pattern matching the same path wins over it.
    const g = parseCodeOwners('*.rb @a\n* @b\n*.rb @c');
    expect(entriesForPath(g, 'x.rb').map((e) => e.ownerLine)).toEqual(['@b']);
    expect(entriesForPath(f, 'x.rb').map((e) => e.ownerLine)).toEqual(['@c']);
  });
});

describe('ownerReferences', () => {
  it('extracts @names (users and group paths) and emails, not roles or addresses as names', () => {
    expect(ownerReferences('@Alice @group/sub-group dev@Example.com @@developer')).toEqual({ names: ['alice', 'group/sub-group'], emails: ['dev@example.com'] });
    expect(ownerReferences('')).toEqual({ names: [], emails: [] });
  });
});
