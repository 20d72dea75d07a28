/**
 * Issuable.full_search (Gitlab::SQL::Pattern) over an FTS5 trigram index kept in step with its
 * table by triggers (drizzle/0009_issues_search.sql, drizzle/0017_merge_requests_search.sql).
 * Shared by the issue lists (issues/issue-search.ts, which also picks a plan by match count) and
 * the merge request lists (merge-requests/finder.ts).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

/** An issuable table and its trigram index (an FTS5 table whose rowid is the table's id). */
export interface SearchTable {
  index: 'issues_search' | 'merge_requests_search';
  id: SQLiteColumn;
  title: SQLiteColumn;
  description: SQLiteColumn;
}

/** A search as Gitlab::SQL::Pattern reads it. */
export interface ParsedSearch {
  /** The query squished (Rails' String#squish). */
  query: string;
  /** `in=`: title and/or description; anything else (or nothing) means both. */
  columns: ('title' | 'description')[];
  /** Terms of 3+ characters (select_fuzzy_terms): all must appear in one column. */
  words: string[];
}

const MIN_CHARS_FOR_PARTIAL_MATCHING = 3;

/** Split like Gitlab::SQL::Pattern.split_query_to_search_terms: quoted phrases stay together. */
export function searchTerms(query: string): string[] {
  const quoted: string[] = [];
  const rest = query.replace(/(?<=^| )"[^"]+"(?= |$)/g, (q) => {
    quoted.push(q.slice(1, -1));
    return '';
  });
  return [...rest.split(/\s+/).filter(Boolean), ...quoted];
}

export function parseSearch(search: string, inParam: string | undefined): ParsedSearch | undefined {
  const query = search.trim().replace(/\s+/g, ' ');
  if (!query) return undefined;
  const named = (inParam ?? '').split(',').map((s) => s.trim()).filter((s): s is 'title' | 'description' => s === 'title' || s === 'description');
  const columns = named.length ? [...new Set(named)] : (['title', 'description'] as const).slice();
  const words = searchTerms(query).filter((w) => [...w].length >= MIN_CHARS_FOR_PARTIAL_MATCHING);
  return { query, columns, words };
}

/** An FTS5 string literal: everything inside double quotes is literal (no operator, prefix or column syntax), `"` is doubled. */
const ftsString = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Whether the index can answer: a trigram index cannot look up fewer than 3 characters, and an
 * FTS5 query ends at a NUL (GitLab answers 400 to NUL before any finder runs; HandleNullBytes).
 */
export const indexable = (s: ParsedSearch) => !s.query.includes('\u0000') && (s.words.length > 0 || [...s.query].length >= MIN_CHARS_FOR_PARTIAL_MATCHING);

/**
 * The FTS5 expression of an indexable search: every word (or, with no word of 3+ characters, the
 * whole query) in one of the columns. A quoted FTS5 string of 3+ characters matches exactly the
 * rows containing it, case-insensitively (SQLite's Unicode folding, like ILIKE), so
 * `{title} : ("a" AND "b")` is `title ILIKE '%a%' AND title ILIKE '%b%'`.
 */
export function searchExpression(s: ParsedSearch): string {
  const all = (s.words.length ? s.words : [s.query]).map(ftsString).join(' AND ');
  // One term in either column is the plain query (about half the work of two column filters).
  if (s.columns.length === 2 && s.words.length <= 1) return all;
  return s.columns.map((c) => `{${c}} : (${all})`).join(' OR ');
}

/** The rows of `t` whose index entry matches an FTS5 expression. */
const indexMatch = (t: SearchTable, expr: string) => sql`${t.id} IN (SELECT rowid FROM ${sql.raw(t.index)} WHERE ${sql.raw(t.index)} MATCH ${expr})`;

/**
 * The search answered from the index (`indexable(s)` must hold). With only short words (`ab cd`)
 * GitLab wants the whole query to equal a column case-insensitively: the column contains it
 * (index) and is exactly as long, so the two are equal up to case folding.
 */
export function indexedSearchSql(t: SearchTable, s: ParsedSearch, expr = searchExpression(s)): SQL {
  if (s.words.length) return indexMatch(t, expr);
  const length = [...s.query].length;
  const exact = s.columns.map((c) => sql`(length(${t[c]}) = ${sql.raw(String(length))} AND ${indexMatch(t, `{${c}} : ${ftsString(s.query)}`)})`);
  return sql`(${indexMatch(t, expr)} AND (${sql.join(exact, sql` OR `)}))`;
}

/**
 * The same search compared row by row: `instr(lower(col), lower(word))` for every word, or the
 * whole query equal to the column (`lower_exact_match`). SQLite's lower() folds ASCII only, so
 * this serves what the index cannot (1-2 characters, NUL) and ASCII queries.
 */
export function rowSearchSql(t: SearchTable, s: ParsedSearch): SQL {
  const patterns = s.words.length <= MAX_LIKE_WORDS ? s.words.map(likePattern) : [];
  const parts = s.columns.map((name) => {
    const col = t[name];
    if (!s.words.length) return sql`lower(${col}) = lower(${s.query})`;
    // LIKE folds ASCII case exactly as lower() does and scans the text in place (lower() copies
    // it first): a third of the cost on a count that reads every issue of a project (issue 13).
    if (patterns.length && patterns.every((p) => p !== null)) return sql`(${sql.join(patterns.map((p) => sql`${col} LIKE ${p} ESCAPE '\\'`), sql` AND `)})`;
    return sql`(${col} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify(s.words)}) w WHERE instr(lower(${col}), lower(w.value)) = 0))`;
  });
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/** Words up to which rowSearchSql binds a LIKE pattern each (beyond, one JSON parameter keeps D1's 100 bound values). */
const MAX_LIKE_WORDS = 4;

/**
 * `%word%` with LIKE's wildcards and the escape character escaped, or null when longer than D1's
 * 50-byte LIKE pattern limit (SQLITE_LIMIT_LIKE_PATTERN_LENGTH).
 */
function likePattern(word: string): string | null {
  const pattern = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return new TextEncoder().encode(pattern).length <= 50 ? pattern : null;
}

/** The search as one condition, from the index whenever it can answer. */
export function fullSearchSql(t: SearchTable, s: ParsedSearch): SQL {
  return indexable(s) ? indexedSearchSql(t, s) : rowSearchSql(t, s);
}
