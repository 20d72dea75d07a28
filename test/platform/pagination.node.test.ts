import { describe, expect, it } from 'vitest';
import { pageRequest, setPaginationHeaders, toQuery } from '../../src/platform/pagination';

/** A minimal stand-in for Hono's context: only what setPaginationHeaders reads and writes. */
function ctx(url: string) {
  const headers: Record<string, string> = {};
  return {
    headers,
    c: { req: { url }, var: { config: { externalUrl: 'https://gl.example.com' } }, header: (k: string, v: string) => (headers[k] = v) } as any,
  };
}

describe('pageRequest (Kaminari clamping)', () => {
  it('defaults to page 1 of 20 and clamps per_page to 100', () => {
    expect(pageRequest({}, undefined)).toMatchObject({ page: 1, perPage: 20, offset: 0 });
    expect(pageRequest({ per_page: 1000 }, '1000')).toMatchObject({ perPage: 100, rawPerPage: '1000' });
    expect(pageRequest({ per_page: -5 }, '-5')).toMatchObject({ perPage: 20 });
    expect(pageRequest({ page: 0 }, undefined)).toMatchObject({ page: 1, offset: 0 });
    expect(pageRequest({ page: 3, per_page: 10 }, '10')).toMatchObject({ page: 3, offset: 20 });
  });
});

describe('toQuery (Rails Hash#to_query)', () => {
  it('sorts pairs, escapes like CGI and nests arrays and hashes', () => {
    expect(toQuery({ state: 'opened', labels: ['a b', 'c'], not: { labels: ['x'] }, id: 5, empty: [] })).toBe(
      'id=5&labels%5B%5D=a+b&labels%5B%5D=c&not%5Blabels%5D%5B%5D=x&state=opened',
    );
  });
});

describe('setPaginationHeaders', () => {
  it('writes X-* headers and prev/next/first/last links in GitLab order', () => {
    const { c, headers } = ctx('http://127.0.0.1:8787/api/v4/users?page=2&per_page=3');
    setPaginationHeaders(c, pageRequest({ page: 2, per_page: 3 }, '3'), { order_by: 'id' }, 10, 3);
    expect(headers).toMatchObject({ 'X-Page': '2', 'X-Per-Page': '3', 'X-Next-Page': '3', 'X-Prev-Page': '1', 'X-Total': '10', 'X-Total-Pages': '4' });
    expect(headers.Link).toBe(
      [
        '<https://gl.example.com/api/v4/users?order_by=id&page=1&per_page=3>; rel="prev"',
        '<https://gl.example.com/api/v4/users?order_by=id&page=3&per_page=3>; rel="next"',
        '<https://gl.example.com/api/v4/users?order_by=id&page=1&per_page=3>; rel="first"',
        '<https://gl.example.com/api/v4/users?order_by=id&page=4&per_page=3>; rel="last"',
      ].join(', '),
    );
  });
  it('gives an empty collection one page and no next or prev', () => {
    const { c, headers } = ctx('http://x/api/v4/users');
    setPaginationHeaders(c, pageRequest({}, undefined), {}, 0, 0);
    expect(headers).toMatchObject({ 'X-Total': '0', 'X-Total-Pages': '1', 'X-Next-Page': '', 'X-Prev-Page': '' });
    expect(headers.Link).toContain('rel="last"');
  });
  it('past the last page: empty next and prev, no prev link, totals kept', () => {
    const { c, headers } = ctx('http://x/api/v4/users?page=9');
    setPaginationHeaders(c, pageRequest({ page: 9 }, undefined), {}, 5, 0);
    expect(headers).toMatchObject({ 'X-Page': '9', 'X-Next-Page': '', 'X-Prev-Page': '', 'X-Total': '5', 'X-Total-Pages': '1' });
    expect(headers.Link).not.toContain('rel="prev"');
    expect(headers.Link).toContain('rel="first"');
  });
  it('above 10,000 rows omits X-Total, X-Total-Pages and the last link but keeps next', () => {
    const { c, headers } = ctx('http://x/api/v4/users');
    setPaginationHeaders(c, pageRequest({}, undefined), {}, null, 20);
    expect(headers).not.toHaveProperty('X-Total');
    expect(headers).not.toHaveProperty('X-Total-Pages');
    expect(headers['X-Next-Page']).toBe('2');
    expect(headers.Link).not.toContain('rel="last"');
  });
  it('repeats the raw per_page in links while clamping X-Per-Page', () => {
    const { c, headers } = ctx('http://x/api/v4/users?per_page=1000');
    setPaginationHeaders(c, pageRequest({ per_page: 1000 }, '1000'), {}, 150, 100);
    expect(headers['X-Per-Page']).toBe('100');
    expect(headers.Link).toContain('per_page=1000');
  });
});
