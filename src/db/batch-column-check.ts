/**
 * Test mode only (VALIDATE_RESPONSES, set by both test suites): refuses a select sent in a D1 batch
 * whose result columns would be mapped to the wrong fields.
 *
 * D1 answers a batch with rows keyed by column name, and Drizzle turns each row back into an array
 * with Object.values (aliased-columns.ts). Two columns with one name (projects.id and namespaces.id)
 * collapse into one, and a name JavaScript enumerates first (an integer-like key such as "0", from an
 * unnamed `sql\`0\``) moves to the front: either way every later value lands in the wrong field, with no
 * error, on D1 only. Such a query passes on libSQL and is easy to write, so the suite checks every
 * batched select's column names the first time its text is seen, outside the round-trip meter.
 */
const INTEGER_LIKE = /^(0|[1-9]\d*)$/;

type D1Like = Pick<D1Database, 'prepare' | 'batch'>;
type Named = D1PreparedStatement & { query?: string };

/** The names that break the mapping, or an empty list. */
export function unsafeColumnNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const bad = new Set<string>();
  for (const n of names) {
    // An integer-like name only moves when there is another column to move ahead of.
    if (seen.has(n) || (INTEGER_LIKE.test(n) && names.length > 1)) bad.add(n);
    seen.add(n);
  }
  return [...bad];
}

export function checkBatchColumns(inner: D1Like): D1Like {
  const checked = new Set<string>();
  return {
    prepare: (query: string) => inner.prepare(query),
    batch: async <T>(statements: D1PreparedStatement[]) => {
      for (const s of statements as Named[]) {
        const query = s.query;
        if (!query || checked.has(query) || !/^\s*select\b/i.test(query)) continue;
        const [names] = (await s.raw({ columnNames: true })) as unknown as [string[]];
        const bad = unsafeColumnNames(names ?? []);
        if (bad.length) throw new Error(`a select in a D1 batch returns the column name(s) ${bad.map((n) => JSON.stringify(n)).join(', ')} more than once or integer-like: D1 maps its rows to the wrong fields; alias them (src/db/aliased-columns.ts). SQL: ${query}`);
        checked.add(query);
      }
      return inner.batch<T>(statements);
    },
  };
}
