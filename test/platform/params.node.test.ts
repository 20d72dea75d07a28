import { describe, expect, it } from 'vitest';
import { parseQueryString } from '../../src/platform/params';

describe('parseQueryString (Rack nested params)', () => {
  it('reads repeated array keys, hashes and arrays of hashes', () => {
    expect(parseQueryString('labels[]=a&labels[]=b&not[labels]=x&name[0][key]=k1&name[0][value]=v1&name[1][key]=k2')).toEqual({
      labels: ['a', 'b'],
      not: { labels: 'x' },
      name: [{ key: 'k1', value: 'v1' }, { key: 'k2' }],
    });
  });
  it('decodes percent escapes and plus signs like a form body', () => {
    expect(parseQueryString('search=a+b%2Bc&created_after=2020-01-01T00%3A00%3A00%2B02%3A00')).toEqual({
      search: 'a b+c',
      created_after: '2020-01-01T00:00:00+02:00',
    });
  });
  it('keeps nested arrays inside hashes (`not[labels][]=`)', () => {
    expect(parseQueryString('not[labels][]=a&not[labels][]=b&custom_attributes[team]=core')).toEqual({
      not: { labels: ['a', 'b'] },
      custom_attributes: { team: 'core' },
    });
  });
  it('keeps the last value of a repeated scalar key, as Rack does', () => {
    expect(parseQueryString('page=1&page=3')).toEqual({ page: '3' });
  });
  it('refuses a malformed escape with a 400, not a crash', () => {
    expect(() => parseQueryString('a=%E0%A4%A')).toThrowError(expect.objectContaining({ status: 400 }));
  });
});

describe('parameter names that are Object.prototype members', () => {
  it('keeps `__proto__[x]` and `constructor[prototype][x]` as ordinary keys and leaves Object.prototype alone', () => {
    const out = parseQueryString('__proto__[polluted]=yes&constructor[prototype][polluted]=yes&a[][__proto__]=1&toString[]=2');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(out.constructor).toEqual({ prototype: { polluted: 'yes' } });
    expect(out.toString).toEqual(['2']);
  });
});
