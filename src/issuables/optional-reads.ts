/**
 * Reads a request needs only sometimes, for a batch that takes a plain list (findReadableProjectWith):
 * a skipped slot (`undefined`) sends nothing and answers `undefined`, so a write that names no labels
 * adds no statement to its project's round trip.
 */
import type { BatchItem } from 'drizzle-orm/batch';

type Result<T> = T extends BatchItem<'sqlite'> ? Awaited<T> : undefined;
type Results<Q extends readonly unknown[]> = { -readonly [K in keyof Q]: Result<Q[K]> };

export function optionalReads<const Q extends readonly (BatchItem<'sqlite'> | undefined)[]>(queries: Q) {
  return {
    list: queries.filter((q): q is BatchItem<'sqlite'> => q !== undefined),
    /** The results of `list`, back in the slots of `queries`. */
    unpack(results: readonly unknown[]): Results<Q> {
      let k = 0;
      return queries.map((q) => (q === undefined ? undefined : results[k++])) as Results<Q>;
    },
  };
}
