/**
 * The test-mode check of selects sent in a D1 batch (src/db/batch-column-check.ts): which result
 * column names D1's object-keyed rows would map to the wrong fields. The check itself runs in every
 * workerd test; this pins down what it refuses.
 */
import { describe, expect, it } from 'vitest';
import { unsafeColumnNames } from '../../src/db/batch-column-check';

describe('unsafeColumnNames', () => {
  it('names a column name that appears twice (projects.id and namespaces.id)', () => {
    expect(unsafeColumnNames(['id', 'name', 'id', 'path'])).toEqual(['id']);
  });
  it('names an integer-like name among others (an unnamed sql`0` moves to the front of the row)', () => {
    expect(unsafeColumnNames(['id', '0'])).toEqual(['0']);
    expect(unsafeColumnNames(['id', '01', 'x1'])).toEqual([]);
  });
  it('accepts distinct names, and a lone integer-like column (nothing to move ahead of)', () => {
    expect(unsafeColumnNames(['id', 'ns_id', 'name'])).toEqual([]);
    expect(unsafeColumnNames(['1'])).toEqual([]);
  });
});
