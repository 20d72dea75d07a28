/**
 * The `search` filter of the issue lists (GitLab Issuable.full_search), answered from the trigram
 * index `issues_search` where that is cheaper than comparing rows (searchCondition).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { issues } from '../db/schema';
import { int, json } from './issue-filters';

/** Split like Gitlab::SQL::Pattern.split_query_to_search_terms: quoted phrases stay together. */
export function searchTerms(query: string): string[] {
  const quoted: string[] = [];
  const rest = query.replace(/(?<=^| )"[^"]+"(?= |$)/g, (q) => {
    quoted.push(q.slice(1, -1));
    return '';
  });
  return [...rest.split(/\s+/).filter(Boolean), ...quoted];
}

/** An FTS5 string literal: everything inside double quotes is literal, `"` is doubled. */
const ftsString = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Rows of the trigram index `issues_search` (drizzle/0009_issues_search.sql) matching an FTS5 expression. */
const searchIndexMatch = (expr: string) => sql`${issues.id} IN (SELECT rowid FROM issues_search WHERE issues_search MATCH ${expr})`;

export interface SearchCondition {
  where: SQL;
  /**
   * How a list uses it. `driven`: few index matches, they drive page and count (rowid lookups).
   * `count`: they drive the count, while the page walks the list's own order testing membership
   * in the (bounded) match set, stopping at LIMIT. `rows`: compared row by row, no index.
   */
  plan: 'driven' | 'count' | 'rows';
}

/** Index matches up to which they drive the page too. */
const SEARCH_DRIVE_MAX = 1000;
/**
 * Index matches (instance-wide) above which a search of ASCII words is compared row by row
 * instead: the index then has to produce more rowids than the list's own walk reads (on the
 * benchmark's 20,000-issue project a word in 90% of 100,000 issues took ~55 ms from the index,
 * while the walk finds a page in 1 ms and the bounded count scans ~10 ms).
 */
const SEARCH_INDEX_MAX = 5000;

/** `instr(lower(col), lower(word))` for every word: the row-by-row form (ASCII case folding). */
function rowSearchSql(query: string, words: string[], columns: string[]): SQL {
  const parts = columns.map((name) => {
    const col = name === 'title' ? issues.title : issues.description;
    if (!words.length) return sql`lower(${col}) = lower(${query})`;
    return sql`(${col} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(${json(words)}) w WHERE instr(lower(${col}), lower(w.value)) = 0))`;
  });
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/**
 * Issuable.full_search (Gitlab::SQL::Pattern#fuzzy_arel_match): words of 3+ characters must all
 * appear in one column (ILIKE '%word%'), columns are ORed; with no such word the whole query
 * must equal the column case-insensitively (`lower_exact_match`).
 *
 * Words of 3+ characters are looked up in `issues_search`, an FTS5 table with the trigram
 * tokenizer kept in step with `issues` by triggers: a quoted FTS5 string of 3+ characters
 * matches exactly the rows containing it as a substring, so `{title} : ("a" AND "b")` is
 * `title ILIKE '%a%' AND title ILIKE '%b%'` answered from the index, and a search costs its
 * matches instead of every issue of the project. A bounded probe of the index (it stops at
 * SEARCH_INDEX_MAX + 1 matches) picks the plan (SearchCondition.plan).
 *
 * Case-insensitivity: the trigram tokenizer folds case with SQLite's Unicode tables (ASCII and
 * non-ASCII letters alike, Ä = ä, Σ = σ), one code point to one code point, like PostgreSQL
 * ILIKE's lower() in a UTF-8 locale; they differ only where a locale lowercases differently
 * (Turkish dotted İ). The row-by-row forms fold ASCII only (SQLite lower()), so they serve only
 * ASCII queries (where the two agree, but for compatibility letters such as the Kelvin sign K),
 * and queries of 1-2 characters, which trigrams cannot index (compared with lower(), as before).
 */
export async function searchCondition(db: Db, search: string, inParam: string | undefined): Promise<SearchCondition | undefined> {
  const query = search.trim().replace(/\s+/g, ' ');
  if (!query) return undefined;
  let columns = (inParam ?? '').split(',').map((s) => s.trim()).filter((s) => s === 'title' || s === 'description');
  if (!columns.length) columns = ['title', 'description'];
  columns = [...new Set(columns)];
  const words = searchTerms(query).filter((w) => [...w].length >= 3);
  // An FTS5 query ends at a NUL. GitLab answers 400 before any finder runs (HandleNullBytes,
  // mirrored by the list routes); the row form only keeps other callers from failing.
  if (query.includes('\u0000')) return { where: rowSearchSql(query, words, columns), plan: 'rows' };
  const colOf = (name: string) => (name === 'title' ? issues.title : issues.description);
  const length = [...query].length;
  // Too short for trigrams: compared row by row (GitLab does the same, LOWER(col) = 'ab').
  if (!words.length && length < 3) return { where: rowSearchSql(query, [], columns), plan: 'rows' };

  const terms = words.length ? words : [query];
  const all = terms.map(ftsString).join(' AND ');
  // One word in either column is the plain query (about half the work of two column filters).
  const expr = columns.length === 2 && terms.length === 1 ? all : columns.map((c) => `{${c}} : (${all})`).join(' OR ');
  const probe = await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM (SELECT 1 FROM issues_search WHERE issues_search MATCH ${expr} LIMIT ${int(SEARCH_INDEX_MAX + 1)})`);
  const matches = Number(probe?.n ?? 0);
  if (matches > SEARCH_INDEX_MAX && /^[\x00-\x7f]*$/.test(query)) return { where: rowSearchSql(query, words, columns), plan: 'rows' };
  const plan = matches <= SEARCH_DRIVE_MAX ? 'driven' : 'count';
  if (words.length) return { where: searchIndexMatch(expr), plan };
  // The whole query (only short words, e.g. `ab cd`) must equal a column: the column contains it
  // (index) and is exactly as long, so the two are equal up to case folding.
  const exact = columns.map((c) => sql`(length(${colOf(c)}) = ${int(length)} AND ${searchIndexMatch(`{${c}} : ${all}`)})`);
  return { where: sql`(${searchIndexMatch(expr)} AND (${sql.join(exact, sql` OR `)}))`, plan };
}
