/**
 * LIMIT/OFFSET values written into D1 statements' text (src/db/literal-limits.ts): the SQLite in
 * workerd recompiles a statement on every run when its LIMIT is a bound parameter.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { literalLimits } from '../../src/db/literal-limits';
import { sessionRouter } from '../../src/db/d1-sessions';

const DB = (env as unknown as { DB: D1Database }).DB;

describe('literal LIMIT and OFFSET on D1', () => {
  it('writes integer LIMIT and OFFSET values into the text and drops their parameters', () => {
    expect(literalLimits('select * from t where a = ? order by b limit ? offset ?', [7, 20, 40])).toEqual(['select * from t where a = ? order by b limit 20 offset 40', [7]]);
    // Inside sub-selects, in any case, with any white space before the parameter.
    expect(literalLimits('select x from u where id in (select id from t where p = ? LIMIT\n  ?) and q = ?', [1, 5, 'z'])).toEqual([
      'select x from u where id in (select id from t where p = ? LIMIT\n  5) and q = ?',
      [1, 'z'],
    ]);
  });

  it('leaves other parameters, quoted text, comments and non-integer values alone', () => {
    const quoted = `select 'limit ?' as a, "offset ?" as b, ? as c -- limit ?\nfrom t /* offset ? */ limit ?`;
    expect(literalLimits(quoted, ['x', 3])).toEqual([`select 'limit ?' as a, "offset ?" as b, ? as c -- limit ?\nfrom t /* offset ? */ limit 3`, ['x']]);
    expect(literalLimits('select * from t limit ?', ['3; drop table t'])).toEqual(['select * from t limit ?', ['3; drop table t']]);
    expect(literalLimits('select * from t limit ?', [2.5])).toEqual(['select * from t limit ?', [2.5]]);
    expect(literalLimits('select * from t where a = ?', [1])).toEqual(['select * from t where a = ?', [1]]);
    // Numbered or named parameters: the statement is left as it is.
    expect(literalLimits('select * from t where a = ?1 limit ?2', [1, 2])).toEqual(['select * from t where a = ?1 limit ?2', [1, 2]]);
    expect(literalLimits('select * from t where a = :a limit ?', [1, 2])).toEqual(['select * from t where a = :a limit ?', [1, 2]]);
  });

  it('gives the same rows through the session router as the bound statement does', async () => {
    const router = sessionRouter(DB);
    const text = "with recursive r(x) as (select 1 union all select x + 1 from r where x < ?) select x, 'limit ?' as s from r order by x limit ? offset ?";
    const routed = await router.prepare(text).bind(10, 3, 4).all<{ x: number; s: string }>();
    const bound = await DB.prepare(text).bind(10, 3, 4).all<{ x: number; s: string }>();
    expect(routed.results).toEqual([
      { x: 5, s: 'limit ?' },
      { x: 6, s: 'limit ?' },
      { x: 7, s: 'limit ?' },
    ]);
    expect(routed.results).toEqual(bound.results);
    const [batched] = await router.batch<{ x: number }>([router.prepare('select 1 as x union all select 2 union all select 3 limit ?').bind(2)]);
    expect(batched.results).toEqual([{ x: 1 }, { x: 2 }]);
  });
});
