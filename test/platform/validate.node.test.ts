import { describe, expect, it } from 'vitest';
import { g, params, validateParams } from '../../src/platform/validate';

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return { status: (e as any).status, body: (e as any).body };
  }
  throw new Error('expected a validation error');
};

describe('validateParams (Grape wording)', () => {
  const spec = params(
    {
      title: g.string(),
      state: g.enum(['opened', 'closed']).optional(),
      weight: g.int().optional(),
      confidential: g.bool().optional(),
      labels: g.csv().optional(),
      ids: g.array(g.int()).optional(),
      due: g.date().optional(),
      since: g.datetime().optional(),
    },
    [{ mutuallyExclusive: ['weight', 'state'] }],
  );

  it('coerces strings the way Grape does', () => {
    expect(validateParams(spec, { title: 't', weight: '3', confidential: 'yes', labels: 'a,b', ids: ['1', '2'], due: '2024-02-03', since: '2020-01-01T00:00:00Z' })).toEqual({
      title: 't',
      weight: 3,
      confidential: true,
      labels: ['a', 'b'],
      ids: [1, 2],
      due: '2024-02-03',
      since: Date.UTC(2020, 0, 1),
    });
  });
  it('accepts every boolean word of dry-types and refuses others', () => {
    for (const w of ['1', 'on', 'ON', 't', 'true', 'True', 'y', 'yes']) expect(validateParams(spec, { title: 't', confidential: w }).confidential).toBe(true);
    for (const w of ['0', 'off', 'f', 'false', 'FALSE', 'n', 'no']) expect(validateParams(spec, { title: 't', confidential: w }).confidential).toBe(false);
    expect(errorOf(() => validateParams(spec, { title: 't', confidential: 'maybe' }))).toEqual({ status: 400, body: { error: 'confidential is invalid' } });
  });
  it('names missing, invalid and out-of-set values, joined by ", "', () => {
    expect(errorOf(() => validateParams(spec, { weight: 'x', state: 'merged' }))).toEqual({
      status: 400,
      body: { error: 'title is missing, state does not have a valid value, weight is invalid, weight, state are mutually exclusive' },
    });
  });
  it('treats an empty string for an optional typed param as absent', () => {
    expect(validateParams(spec, { title: 't', weight: '' })).toEqual({ title: 't' });
  });
  it('names nested items with brackets', () => {
    expect(errorOf(() => validateParams(spec, { title: 't', ids: ['1', 'x'] })).body).toEqual({ error: 'ids[1] is invalid' });
  });
  it('refuses impossible dates and datetimes', () => {
    expect(errorOf(() => validateParams(spec, { title: 't', due: '2024-13-45' })).body).toEqual({ error: 'due is invalid' });
    expect(errorOf(() => validateParams(spec, { title: 't', since: 'yesterday' })).body).toEqual({ error: 'since is invalid' });
  });
});
