/**
 * The title system note marks character changes the way GitLab does (Gitlab::Diff::CharDiff over the
 * diff_match_patch 0.1.0 gem). The fixture pairs and their ranges were produced by that Ruby gem
 * (`diff_main` + `diff_cleanupSemantic`, ranges counted in code points), so these cases fail if the
 * port drifts from Ruby's behaviour.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { charDiffRanges } from '../../src/issuables/char-diff';
import { assigneesNote, titleNote, toSentence } from '../../src/issuables/system-notes';

type Case = [[string, string], [Array<[number, number]>, Array<[number, number]>]];
const cases = JSON.parse(readFileSync(new URL('../fixtures/char-diff-ruby.json', import.meta.url), 'utf8')) as Case[];

describe('charDiffRanges', () => {
  it('matches the Ruby diff_match_patch gem on recorded pairs (astral characters, CR/LF, punctuation)', () => {
    expect(cases.length).toBeGreaterThan(40);
    for (const [[from, to], expected] of cases) expect([from, to, charDiffRanges(from, to)]).toEqual([from, to, expected]);
  });

  it('marks nothing when the old text is empty (InlineDiff#inline_diffs)', () => {
    expect(charDiffRanges('', 'new')).toEqual([[], []]);
  });
});

describe('titleNote', () => {
  it('wraps deleted and inserted runs in {- -} and {+ +}', () => {
    expect(titleNote('Fix the login page', 'Fix the logout button')).toBe('changed title from **Fix the log{-in page-}** to **Fix the log{+out button+}**');
    expect(titleNote('Same', 'Same')).toBe('changed title from **Same** to **Same**');
  });

  it('counts astral characters as one character, as Ruby does', () => {
    expect(titleNote('Ship 🚀 now', 'Ship 🚀 later')).toBe('changed title from **Ship 🚀 {-now-}** to **Ship 🚀 {+later+}**');
  });
});

describe('assignee notes', () => {
  it('joins names as Array#to_sentence', () => {
    expect(toSentence([])).toBe('');
    expect(toSentence(['a'])).toBe('a');
    expect(toSentence(['a', 'b'])).toBe('a and b');
    expect(toSentence(['a', 'b', 'c'])).toBe('a, b, and c');
    expect(assigneesNote(['x', 'y', 'z'], ['w'])).toBe('assigned to @x, @y, and @z and unassigned @w');
    expect(assigneesNote([], [])).toBeNull();
  });
});
