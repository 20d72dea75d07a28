/**
 * Rows of a statement built once (prepared.ts), mapped by a mapper compiled once with it.
 *
 * Why: Drizzle maps every value of every row through `mapResultRow`, which asks `is(field, Column)`
 * (a prototype walk when it fails) and walks the field's path per value; with the SQL text cached,
 * that mapping was the largest part of Drizzle's remaining CPU on a list (issue 13 profile). The
 * decoders and paths are resolved here once per statement; a row then costs its assignments. Same
 * result as drizzle-orm 0.45's libsql and d1 `mapAllResult` + `mapResultRow` (nested paths, and a
 * left-joined table whose columns are all null becomes null). D1's batch hands rows over as objects
 * keyed by column name: they are read back in key order, as Drizzle's d1ToRawMapping does (so the
 * same columns are lost when names repeat: alias them, aliased-columns.ts).
 */
import { Column, getTableName, is, SQL } from 'drizzle-orm';

interface Field {
  path: string[];
  field: unknown;
}
interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}
interface MappableQuery {
  fields?: Field[];
  customResultMapper?: unknown;
  joinsNotNullableMap?: Record<string, boolean>;
  mapAllResult(rows: unknown, isFromBatch?: boolean): unknown;
}

/** mapResultRow's choice of decoder: the column itself, an SQL's, a subquery's or an aliased SQL's (`decoder` is Drizzle-internal). */
const decoderOf = (field: unknown): Decoder => {
  if (is(field, Column)) return field as unknown as Decoder;
  type WithDecoder = { decoder: Decoder };
  if (is(field, SQL)) return (field as unknown as WithDecoder).decoder;
  const f = field as { _?: { sql: WithDecoder }; sql?: WithDecoder };
  return (f._?.sql ?? f.sql)!.decoder;
};

/** Drizzle's prepared queries whose `mapAllResult` is replaced, by entity kind. */
const MAPPED = new Set(['LibSQLPreparedQuery', 'D1PreparedQuery']);

/** Gives a libSQL or D1 prepared select a compiled `mapAllResult`; anything else is returned as it is. */
export function withRowMapper<Q>(query: Q): Q {
  const q = query as unknown as MappableQuery & { constructor: { name?: string } };
  const kind = (q.constructor as { [k: symbol]: unknown })[Symbol.for('drizzle:entityKind')] as string;
  if (!q.fields || q.customResultMapper || !MAPPED.has(kind)) return query;
  const columns = q.fields.map(({ path, field }) => ({
    path,
    decoder: decoderOf(field),
    // Left joins: which table a two-level path's column belongs to (mapResultRow's nullifyMap).
    table: q.joinsNotNullableMap && is(field, Column) && path.length === 2 ? getTableName((field as Column).table) : null,
  }));
  const joins = q.joinsNotNullableMap;
  const mapRow = (row: ArrayLike<unknown>) => {
    const result: Record<string, unknown> = {};
    const nullify: Record<string, string | false> = {};
    let nullable = false;
    for (let i = 0; i < columns.length; i++) {
      const { path, decoder, table } = columns[i];
      let raw = row[i];
      if (raw instanceof ArrayBuffer) raw = Buffer.from(raw);
      const value = raw === null ? null : decoder.mapFromDriverValue(raw);
      let node = result;
      for (let k = 0; k < path.length - 1; k++) node = (node[path[k]] ??= {}) as Record<string, unknown>;
      node[path[path.length - 1]] = value;
      if (table !== null) {
        const name = path[0];
        nullable = true;
        if (!(name in nullify)) nullify[name] = value === null ? table : false;
        else if (typeof nullify[name] === 'string' && nullify[name] !== table) nullify[name] = false;
      }
    }
    if (nullable && joins) for (const [name, table] of Object.entries(nullify)) if (typeof table === 'string' && !joins[table]) result[name] = null;
    return result;
  };
  q.mapAllResult =
    kind === 'D1PreparedQuery'
      ? (rows, isFromBatch) =>
          isFromBatch ? (rows as { results: Record<string, unknown>[] }).results.map((r) => mapRow(Object.values(r))) : (rows as ArrayLike<unknown>[]).map(mapRow)
      : (rows, isFromBatch) => ((isFromBatch ? (rows as { rows: ArrayLike<unknown>[] }).rows : (rows as ArrayLike<unknown>[])) as ArrayLike<unknown>[]).map(mapRow);
  return query;
}
