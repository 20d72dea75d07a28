/**
 * The `search` filter of the issue lists (GitLab Issuable.full_search), answered from the trigram
 * index `issues_search` where that is cheaper than comparing rows (searchCondition).
 */
import { type SQL, sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import { issues } from '../db/schema';
import { indexable, indexedSearchSql, parseSearch, rowSearchSql, type SearchTable, searchExpression } from '../issuables/trigram-search';
import { int } from './issue-filters';

export { searchTerms } from '../issuables/trigram-search';

const table: SearchTable = { index: 'issues_search', id: issues.id, title: issues.title, description: issues.description };

export interface SearchCondition {
  where: SQL;
  /**
   * How a list uses it. `driven`: few index matches, they drive page and count (rowid lookups).
   * `count`: they drive the count, while the page walks the list's own order testing membership
   * in the (bounded) match set, stopping at LIMIT. `rows`: compared row by row, no index.
   */
  plan: 'driven' | 'count' | 'rows';
  /** Nothing can match (no issue of the project matched the index). */
  none?: boolean;
}

/** Index matches up to which they drive the page too. */
const SEARCH_DRIVE_MAX = 1000;
/**
 * A project's matches (read by the probe, searchProbeQuery) up to which they drive the page:
 * each is an issue row read per statement of the page's batch, while more are cheaper tested
 * as a list while the page walks the project's own order.
 */
const PROJECT_MATCHES_DRIVE_MAX = 200;
/**
 * Index matches (instance-wide) above which a search of ASCII words is compared row by row
 * instead: the index then has to produce more rowids than the list's own walk reads (on the
 * benchmark's 20,000-issue project a word in 90% of 100,000 issues took ~55 ms from the index,
 * while the walk finds a page in 1 ms and the bounded count scans ~10 ms).
 */
export const SEARCH_INDEX_MAX = 5000;

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
export async function searchCondition(
  db: Db,
  search: string,
  inParam: string | undefined,
  probed?: number,
  projectMatches?: string | null,
): Promise<SearchCondition | undefined> {
  const parsed = parseSearch(search, inParam);
  if (!parsed) return undefined;
  // Too short for trigrams, or NUL: compared row by row (GitLab does the same, LOWER(col) = 'ab').
  if (!indexable(parsed)) return { where: rowSearchSql(table, parsed), plan: 'rows' };
  // The project's matches, read with the probe: the same rows as the index match (the issues of
  // the project among them), as one JSON parameter, so no statement of the page's batch asks the
  // index again (each did: ~1 ms per statement for a word in a few thousand issues).
  if (parsed.words.length && typeof projectMatches === 'string' && probed !== undefined && probed <= SEARCH_INDEX_MAX) {
    const n = (JSON.parse(projectMatches) as unknown[]).length;
    if (!n) return { where: sql`0`, plan: 'driven', none: true };
    return { where: sql`${issues.id} IN (SELECT value FROM json_each(${projectMatches}))`, plan: n <= PROJECT_MATCHES_DRIVE_MAX ? 'driven' : 'count' };
  }
  const expr = searchExpression(parsed);
  const matches = probed ?? Number((await probeQuery(db, expr))[0]?.n ?? 0);
  if (matches > SEARCH_INDEX_MAX && /^[\x00-\x7f]*$/.test(parsed.query)) return { where: rowSearchSql(table, parsed), plan: 'rows' };
  return { where: indexedSearchSql(table, parsed, expr), plan: matches <= SEARCH_DRIVE_MAX ? 'driven' : 'count' };
}

/** The bounded probe: index matches, counted up to SEARCH_INDEX_MAX + 1. */
const probeQuery = (db: Db, expr: string) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(db.select({ one: sql`1` }).from(issuesSearch).where(sql`issues_search MATCH ${expr}`).limit(SEARCH_INDEX_MAX + 1).as('t'));

/** The FTS5 table of drizzle/0009_issues_search.sql, declared for the probe only (not in db/schema: drizzle-kit cannot create it). */
const issuesSearch = sqliteTable('issues_search', { rowid: integer('rowid') });

/**
 * searchCondition's probe as an unexecuted query (undefined when the search needs none), for a
 * route to send in a batch it makes anyway (the parent lookup) and pass its `n` back as
 * `probed` (FinderInput.searchMatches): the search then costs no round trip of its own. Given
 * the project (`projectId`, SQL), it also reads the project's matches as a JSON array (`ids`,
 * null above SEARCH_INDEX_MAX matches), searchCondition's `projectMatches`.
 */
export function searchProbeQuery(db: Db, search: string | undefined, inParam: string | undefined, projectId?: SQL) {
  const parsed = search ? parseSearch(search, inParam) : undefined;
  if (!parsed || !indexable(parsed)) return undefined;
  const expr = searchExpression(parsed);
  if (!projectId) return probeQuery(db, expr);
  const m = db
    .select({ id: sql<number>`rowid`.as('id') })
    .from(issuesSearch)
    .where(sql`issues_search MATCH ${expr}`)
    .limit(SEARCH_INDEX_MAX + 1)
    .as('m');
  // Written qualified: Drizzle renders a sub-select's aliased column unqualified ("id"), which the join makes ambiguous.
  const mId = sql<number>`"m"."id"`;
  return db
    .select({
      n: sql<number>`count(*)`.as('n'),
      ids: sql<string | null>`CASE WHEN count(*) <= ${int(SEARCH_INDEX_MAX)} THEN json_group_array(${mId}) FILTER (WHERE ${issues.projectId} = ${projectId}) END`.as('ids'),
    })
    .from(m)
    .leftJoin(issues, eq(issues.id, mId));
}
