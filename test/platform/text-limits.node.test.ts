/** Units: the text-cap helpers, GitLab's human sizes, and git's branch-name rules. */
import { describe, expect, it } from 'vitest';
import { checkText, humanSize, tooBig, tooLong } from '../../src/platform/text-limits';
import { isValidBranchName } from '../../src/platform/git-ref';

describe('tooLong', () => {
  it('counts characters as Ruby does (code points, not UTF-16 units)', () => {
    expect(tooLong('😀'.repeat(255), 255)).toBeNull();
    expect(tooLong('😀'.repeat(256), 255)).toBe('is too long (maximum is 255 characters)');
  });
});

describe('humanSize / tooBig', () => {
  it('formats as number_to_human_size', () => {
    expect(humanSize(1)).toBe('1 Byte');
    expect(humanSize(1000)).toBe('1000 Bytes');
    expect(humanSize(512 * 1024)).toBe('512 KB');
    expect(humanSize(1536 * 1024)).toBe('1.5 MB');
    expect(humanSize(600_000)).toBe('586 KB');
  });

  it('measures UTF-8 bytes', () => {
    expect(tooBig('é'.repeat(512), 1024)).toBeNull();
    expect(tooBig('é'.repeat(513), 1024)).toBe('is too long (1 KB). The maximum size is 1 KB.');
  });
});

describe('checkText', () => {
  it('skips absent fields and collects messages by attribute', () => {
    expect(checkText({}, { a: undefined, b: null, c: 'ok' }, { a: { max: 1 }, b: { max: 1 }, c: { max: 2 } })).toEqual({});
    expect(checkText({}, { a: 'xx' }, { a: { max: 1 } })).toEqual({ a: ['is too long (maximum is 1 characters)'] });
  });
});

describe('isValidBranchName', () => {
  it.each(['main', 'release/v1.0', 'feat-x', 'a/b/c', 'ü'])('accepts %j', (name) => expect(isValidBranchName(name)).toBe(true));
  it.each(['', 'x y', 'a..b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', 'a\u0000', '-a', '/a', 'a/', 'a.', 'a.lock', 'a/.b', '@', 'a@{1}', 'HEAD', 'a//b', 'x'.repeat(256)])(
    'refuses %j',
    (name) => expect(isValidBranchName(name)).toBe(false),
  );
});
