/**
 * `custom_attributes[key]=value` on the project and group lists (GitLab
 * app/finders/concerns/custom_attributes_filter.rb): every pair must match; callers who may not read
 * custom attributes (non-administrators) get the list unfiltered, as GitLab ignores the parameter.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Caller } from '../platform/context';
import { groupCustomAttributes, projectCustomAttributes } from '../db/schema';

export function customAttributesFilter(caller: Caller, hash: Record<string, unknown> | undefined, kind: 'project' | 'group', id: SQLiteColumn): SQL | undefined {
  if (!caller.isAdmin || !hash) return undefined;
  // Scalar values only: a nested hash (`custom_attributes[a][b]=`) matches nothing GitLab stores.
  const pairs = new Map(Object.entries(hash).map(([k, v]): [string, string | null] => [k, v == null || typeof v !== 'object' ? String(v ?? '') : null]));
  if (!pairs.size) return undefined;
  if ([...pairs.values()].some((v) => v === null)) return sql`0`;
  const [table, owner] = kind === 'project' ? [projectCustomAttributes, sql.raw('a.project_id')] : [groupCustomAttributes, sql.raw('a.group_id')];
  // The pairs travel as one JSON parameter (D1's 100 bound parameters); each is an index lookup on (key, value).
  return sql`${id} IN (SELECT ${owner} FROM json_each(${JSON.stringify([...pairs])}) j
    JOIN ${table} a ON a.key = json_extract(j.value, '$[0]') AND a.value = json_extract(j.value, '$[1]')
    GROUP BY ${owner} HAVING count(*) = ${pairs.size})`;
}
