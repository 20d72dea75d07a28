/**
 * A project's issue list in the round trip that finds the project (issue 13): the page and its
 * count need the project's id, its namespace's path (label and milestone scope) and whether the
 * caller reads every confidential issue (Planner+), all read by that same lookup. They are taken
 * from what this caller's previous list of the project found (per Db), the page and count built on
 * them go in the lookup's batch, and the route uses their rows only when the lookup finds the same
 * inputs again (sameInputs); else it drops them and plans the list as usual. The second round trip
 * then reads what the entities show by the page's ids (one JSON parameter) instead of re-running
 * the filters in each of its ~10 statements as a sub-select of the page query.
 *
 * The filters the usual plan answers from reads in the lookup's batch (issue-lists-drivers.ts driver
 * ids, a search's project matches) are written as their own sub-selects here: run by the page and
 * the count only, they cost less than the JSON lists each statement of the second round trip
 * parsed. A search's plan is picked by the index matches the last probe of the same search counted
 * (the plan changes which rows are found only above SEARCH_INDEX_MAX: checked against this probe). Lists filtered by usernames keep the usual plan (their ids are read before the query).
 */
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { perDb } from '../platform/isolate-cache';
import { issues } from '../db/schema';
import { ACCESS, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { countUpToQuery, MAX_COUNT, pageRequest } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { renderedOnce } from '../db/prepared';
import { buildIssueQuery, issuePageQuery } from './issue-finder';
import type { IssueListParams } from './issue-lists-params';
import { SEARCH_INDEX_MAX, searchProbeQuery } from './issue-search';

export interface FoundProject {
  project: ProjectRow;
  namespace: NamespaceRow;
  level: number;
}

/** Per Db: what the last project lookup of a list found, by caller and project reference. */
const lastFound = perDb(() => new Map<string, FoundProject>());
const MAX_REMEMBERED = 1000;

const keyOf = (caller: Caller, id: string) => `${caller.user?.id ?? '-'}:${caller.isAdmin ? 1 : 0}:${id}`;

export function remember(c: Context<AppEnv>, caller: Caller, id: string, found: FoundProject) {
  const known = lastFound(c.var.db);
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(keyOf(caller, id), found);
}

/** Per Db: the last probe's index matches of a search (issue-search.ts searchProbeQuery `n`), by its text and `in`. */
const probes = perDb(() => new Map<string, number>());
const probeKey = (p: IssueListParams) => `${p.in ?? ''}\u0000${p.search}`;

export function rememberProbe(c: Context<AppEnv>, p: IssueListParams, matches: number) {
  const known = probes(c.var.db);
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(probeKey(p), matches);
}

/** Whether the lookup found what the speculative page was built on (every input of buildIssueQuery taken from the project). */
export function sameInputs(guess: FoundProject, project: ProjectRow, namespace: NamespaceRow | undefined, level: number): boolean {
  return (
    guess.project.id === project.id &&
    (guess.namespace?.traversalPath ?? null) === (namespace?.traversalPath ?? null) &&
    guess.level >= ACCESS.PLANNER === level >= ACCESS.PLANNER
  );
}

/**
 * Whether the fresh probe count picks the rows the speculative page was planned for: above
 * SEARCH_INDEX_MAX an ASCII search is compared row by row, which folds case differently from the
 * index (searchCondition); below, only how the matches are found differs.
 */
export function samePlan(remembered: number | undefined, fresh: number | undefined): boolean {
  if (remembered === undefined || fresh === undefined) return remembered === fresh;
  return remembered > SEARCH_INDEX_MAX === fresh > SEARCH_INDEX_MAX;
}

/** The page and count (unexecuted, rendered once) built on the last lookup's results, or undefined when there is none or the filters read something first. */
export async function speculativePage(c: Context<AppEnv>, caller: Caller, id: string, p: IssueListParams) {
  const db = c.var.db;
  const guess = lastFound(db).get(keyOf(caller, id));
  if (!guess) return undefined;
  // A search's plan needs its index matches (searchCondition `probed`): the count the last probe of
  // the same search read picks it (the plan changes how the rows are found, never which).
  // The probe itself (its count only) goes along: the route uses the page only if the fresh count
  // picks the same plan (samePlan).
  let searchMatches: number | undefined;
  const probe = p.search ? searchProbeQuery(db, p.search, p.in) : undefined;
  if (probe) {
    searchMatches = probes(db).get(probeKey(p));
    if (searchMatches === undefined) return undefined;
  }
  // userIdsByUsername reads: they would run before the project is found.
  if (p.assignee_username?.length || p.author_username || p.not?.author_username || p.not?.assignee_username?.length) return undefined;
  try {
    const q = await buildIssueQuery(db, { caller, plan: c.var.config.plan, parent: { kind: 'project', project: guess.project, level: guess.level, namespace: guess.namespace }, p, searchMatches });
    if (!q.possible) return undefined;
    const raw = await requestParams(c);
    const req = pageRequest(p, raw.per_page);
    // The same statements listIssues sends for a project list (issuePageQuery without the walk, the bounded count).
    const page = renderedOnce(db, 'issue-page', issuePageQuery(db, q, req.perPage, req.offset, false));
    const count = renderedOnce(db, 'issue-count', countUpToQuery(db, issues, q.countWhere ?? q.where, MAX_COUNT + 1));
    return { parent: guess, page, count, probe, searchMatches };
  } catch {
    // Whatever the usual plan would answer (an error included) it answers after the lookup, as before.
    return undefined;
  }
}
