/**
 * A page of merge requests in ONE round trip (issue 13: a list costs a fixed number of round trips
 * whatever its page size): the page, its count, everything the presenter shows (presenter-reads.ts)
 * and the approval state of every row (approvals-port.ts `pageReads`) go in one batch, the reads
 * keyed on the page query as a sub-select (finder.ts `mergeRequestPageIds`), so none waits for the
 * page's ids. The read memo opened here carries what the batch read to the presenter and the
 * approval arithmetic.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { namespaces, projects } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { baseUrl, type CountQuery, type PageRequest, paginate, paginateWith } from '../platform/pagination';
import { withReadMemo } from '../platform/read-memo';
import { batchReads } from '../db/batch-reads';
import { cachedQueries, cachedQuery, prepared, renderedOnceIfSelect } from '../db/prepared';
import { MAX_COUNT, setPaginationHeaders } from '../platform/pagination';
import { findReadableProjectWith } from '../projects/projects';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { today } from '../platform/time';
import type { MergeRequestRow } from './merge-request-entity';
import { type MergeRequestApprovals, mergeRequestApprovals } from './approvals-port';
import { mergeRequestCount, mergeRequestPage, mergeRequestPageIds, type MrQuery } from './finder';
import { mergeRequestSimple } from './merge-request-entity';
import { type PresentMrOptions, presentMergeRequests, readOptions } from './merge-request-presenter';
import { flattenReads, idsOfPage, presenterReads } from './presenter-reads';

/** Reads of the parent that ride in the page's batch, and the check (throwing 404/403) that runs on them before anything is presented. */
export interface PageGuard {
  reads: readonly BatchItem<'sqlite'>[];
  check: (results: readonly unknown[]) => void;
}

/**
 * A statement names the page's id set up to SET_USES times (the presenter's users read), each use
 * carrying the page query's bound parameters; D1 allows MAX_PARAMS per statement, OWN_PARAMS kept
 * for the statement's own.
 */
const SET_USES = 6;
const OWN_PARAMS = 10;
const MAX_PARAMS = 100;

/** The page as MergeRequestBasic (or MergeRequestSimple for `view=simple`), pagination headers set. */
export async function presentMergeRequestPage(c: Context<AppEnv>, caller: Caller, q: MrQuery, req: PageRequest, linkParams: Record<string, unknown>, o: PresentMrOptions, view?: string, guard?: PageGuard) {
  const db = c.var.db;
  const page = (limit: number, offset: number) => mergeRequestPage(db, q, limit, offset);
  const count = (limit: number) => mergeRequestCount(db, q, limit);
  // A query that can match nothing reads nothing.
  if (!q.possible) {
    if (guard) guard.check(await batchReads(db, guard.reads));
    await paginate(c, req, linkParams, page, count);
    return [];
  }
  // Past the check above the count is a query (a CountQuery), never the impossible case's 0.
  const countQuery = (limit: number) => count(limit) as CountQuery;
  const g = guard?.reads ?? [];
  const check = (results: readonly unknown[]) => guard?.check(results.slice(0, g.length));
  const pageIds = mergeRequestPageIds(db, q, req.perPage, req.offset);
  // Past D1's parameter limit (a request with many string filters), the page is read first and its
  // ids travel as one JSON parameter: one round trip more, for that request only.
  const inline = pageIds.params * SET_USES + OWN_PARAMS <= MAX_PARAMS;
  /** The page and the reads `of` its id set (and its projects' ids), in one batch when inline. */
  const read = async (of: (ids: SQL, projectIds: SQL) => readonly BatchItem<'sqlite'>[]) => {
    const projectsOf = (ids: SQL) => sql`(SELECT m.project_id FROM merge_requests m WHERE m.id IN ${ids})`;
    if (inline) {
      const { rows, reads } = await paginateWith(c, req, linkParams, page, countQuery, [...g, ...of(pageIds.ids, projectsOf(pageIds.ids))] as BatchItem<'sqlite'>[], check);
      return { mrs: rows.map((r) => r.mr), results: (reads as unknown[]).slice(g.length) };
    }
    const { rows } = await paginateWith(c, req, linkParams, page, countQuery, g as BatchItem<'sqlite'>[], check);
    const mrs = rows.map((r) => r.mr);
    const ids = idsOfPage(mrs.map((m) => m.id));
    const list = mrs.length ? of(ids, projectsOf(ids)) : [];
    return { mrs, results: list.length ? ((await db.batch(list as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[]) : list.map(() => []) };
  };
  if (view === 'simple') {
    const { mrs, results } = await read((_, projectIds) => [
      db
        .select({ id: projects.id, path: projects.path, ns: sql<string>`${namespaces.fullPath}`.as('ns_full_path') })
        .from(projects)
        .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
        .where(sql`${projects.id} IN ${projectIds}`),
    ]);
    const fullPaths = new Map(((results[0] ?? []) as { id: number; path: string; ns: string }[]).map((r) => [r.id, `${r.ns}/${r.path}`]));
    const base = baseUrl(c);
    return mrs.map((mr) => mergeRequestSimple(mr, { base, projectFullPath: fullPaths.get(mr.projectId) ?? '' }));
  }
  return withReadMemo(c, async () => {
    let approvals: ReturnType<NonNullable<MergeRequestApprovals['pageReads']>> | undefined;
    let own: ReturnType<typeof flattenReads> | undefined;
    const { mrs, results } = await read((ids, projectIds) => {
      approvals = mergeRequestApprovals.get().pageReads?.(c, ids, projectIds);
      // With the approval reads, the protected branch rows come from them (primed into the memo), not twice.
      own = flattenReads(presenterReads(db, caller, ids, readOptions({ ...o, approvalsPrimed: approvals !== undefined })));
      return [...own.list, ...(approvals?.list ?? [])];
    });
    if (!mrs.length || !own) return [];
    const loaded = own.unflatten(results.slice(0, own.list.length));
    if (approvals) approvals.prime(mrs, results.slice(own.list.length), new Map(loaded.heads.map((h) => [`${h.projectId}:${h.name}`, h.sha])));
    return presentMergeRequests(c, caller, mrs, { ...o, approvalsPrimed: approvals !== undefined }, loaded);
  });
}

/**
 * The project list in two round trips whatever the page size: the project, the caller's level, the
 * page and its count in the first (findReadableProjectWith; `q` was built on the project's id as SQL),
 * then everything the page shows in the second, keyed by the page's ids (presentKnownPage). An
 * empty page reads nothing more. `authorize` throws (403) on the project found before anything is
 * set; the page read beside it is then simply dropped. `renderKey`, when given, names everything that
 * shapes the page and count statements (text and values): they are then rendered once per Db.
 */
export async function presentProjectMergeRequestPage(
  c: Context<AppEnv>,
  caller: Caller,
  projectId: string,
  q: MrQuery,
  req: PageRequest,
  linkParams: Record<string, unknown>,
  o: PresentMrOptions,
  view: string | undefined,
  authorize: (project: ProjectRow, level: number) => void,
  renderKey?: string,
) {
  const db = c.var.db;
  // Rendering the page and count to SQL text cost more CPU than running them: with a `renderKey`
  // (everything that shapes their text and values) they are rendered once per Db.
  const render = () => [renderedOnceIfSelect(db, mergeRequestPage(db, q, req.perPage, req.offset) as never), renderedOnceIfSelect(db, mergeRequestCount(db, q, MAX_COUNT + 1) as CountQuery as never)] as const;
  const found = await findReadableProjectWith(c, caller, projectId, () => (q.possible ? (renderKey === undefined ? render() : prepared(db, `mr-project-page:${renderKey}`, render)) : ([] as const)));
  authorize(found.project, found.level);
  const [rows, n] = (q.possible ? found.reads : [[], [{ n: 0 }]]) as unknown as [{ mr: MergeRequestRow }[], { n: number }[]];
  const total = Number(n[0]?.n ?? 0);
  setPaginationHeaders(c, req, linkParams, total > MAX_COUNT ? null : total, rows.length);
  return presentKnownPage(c, caller, rows.map((r) => r.mr), { ...o, project: found.project }, view, { project: found.project, namespace: found.namespace });
}

/**
 * The group list and `GET /merge_requests` in the project list's shape (issue 13: CPU): the page
 * and its count first, in the round trip that finds the group when `lookup` is given (`q` was then
 * built on the group's id as SQL), then what the page shows, read by the page's ids
 * (presentKnownPage, statements built once per Db). The page-as-sub-select shape
 * (presentMergeRequestPage) ran the page query again inside each of ~25 statements: on dataset M's
 * group list 12.9 ms of CPU a request. `renderKey` as for the project list.
 */
export async function presentPageThenKnown(
  c: Context<AppEnv>,
  caller: Caller,
  q: MrQuery,
  req: PageRequest,
  linkParams: Record<string, unknown>,
  o: PresentMrOptions,
  view: string | undefined,
  renderKey: string | undefined,
  /** Finds the parent with `reads` in its round trip; what it found may add to the presenter's options. */
  lookup?: (reads: readonly BatchItem<'sqlite'>[]) => Promise<{ reads: unknown; options?: Partial<PresentMrOptions> }>,
) {
  const db = c.var.db;
  const render = () => [renderedOnceIfSelect(db, mergeRequestPage(db, q, req.perPage, req.offset) as never), renderedOnceIfSelect(db, mergeRequestCount(db, q, MAX_COUNT + 1) as CountQuery as never)] as const;
  const reads = q.possible ? (renderKey === undefined ? render() : prepared(db, `mr-page:${renderKey}`, render)) : ([] as const);
  const found = lookup ? await lookup(reads) : { reads: reads.length ? await batchReads(db, reads) : [] };
  const [rows, n] = (q.possible ? found.reads : [[], [{ n: 0 }]]) as unknown as [{ mr: MergeRequestRow }[], { n: number }[]];
  const total = Number(n[0]?.n ?? 0);
  setPaginationHeaders(c, req, linkParams, total > MAX_COUNT ? null : total, rows.length);
  return presentKnownPage(c, caller, rows.map((r) => r.mr), { ...o, ...found.options }, view);
}

/** Where the presenter's results sit in a batch built by presentKnownPage, per statement key (the same for every Db). */
const layouts = new Map<string, { ownCount: number; unflatten: ReturnType<typeof flattenReads>['unflatten'] }>();

/** The statements' id sets: JSON arrays bound to the placeholders `ids` and `pids`, so their text never changes. */
const idsParam = sql`(SELECT value FROM json_each(${sql.placeholder('ids')}))`;
const pidsParam = sql`(SELECT value FROM json_each(${sql.placeholder('pids')}))`;

/**
 * Presents merge request rows already read, in one more round trip: what the presenter shows and
 * the approval state of every row, keyed by the rows' ids and projects' ids as two JSON parameters,
 * each statement built once per Db (db/prepared.ts cachedQueries): building SQL text cost more CPU
 * than running it, and each statement re-running the page query as a sub-select cost SQLite more
 * than reading the rows by id (issue 13 profile of `mr_list`).
 */
export async function presentKnownPage(c: Context<AppEnv>, caller: Caller, mrs: MergeRequestRow[], o: PresentMrOptions, view?: string, known?: { project: ProjectRow; namespace: NamespaceRow }) {
  if (!mrs.length) return [];
  // A project's list: every row's project is the one already read (its level matters only to the full entity).
  const one = known && !o.full && mrs.every((m) => m.projectId === known.project.id) ? known : undefined;
  const db = c.var.db;
  const values = { ids: JSON.stringify(mrs.map((m) => m.id)), pids: JSON.stringify([...new Set(mrs.map((m) => m.projectId))]) };
  if (view === 'simple' && one) {
    const base = baseUrl(c);
    return mrs.map((mr) => mergeRequestSimple(mr, { base, projectFullPath: `${one.namespace.fullPath}/${one.project.path}` }));
  }
  if (view === 'simple') {
    const rows = (await cachedQuery(
      db,
      'mr-page-project-paths',
      (d) =>
        d
          .select({ id: projects.id, path: projects.path, ns: sql<string>`${namespaces.fullPath}`.as('ns_full_path') })
          .from(projects)
          .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
          .where(sql`${projects.id} IN ${pidsParam}`),
      values,
    )) as { id: number; path: string; ns: string }[];
    const fullPaths = new Map(rows.map((r) => [r.id, `${r.ns}/${r.path}`]));
    const base = baseUrl(c);
    return mrs.map((mr) => mergeRequestSimple(mr, { base, projectFullPath: fullPaths.get(mr.projectId) ?? '' }));
  }
  return withReadMemo(c, async () => {
    const port = mergeRequestApprovals.get();
    const primed = port.pageReads !== undefined;
    const options = { ...readOptions({ ...o, approvalsPrimed: primed }), projects: !one };
    // What shapes the text beside the two sets: the options, the caller when the full entity writes
    // its id in, and the day (membership expiry, written in by the approval reads).
    const key = `mr-page-reads:${JSON.stringify(options)}:${primed}:${options.full ? (caller.user?.id ?? '-') : ''}:${today()}`;
    const list = cachedQueries(
      db,
      key,
      (d) => {
        const own = flattenReads(presenterReads(d, caller, idsParam, options));
        // Keys name the day: yesterday's layouts go.
        if (layouts.size >= 64) layouts.clear();
        layouts.set(key, { ownCount: own.list.length, unflatten: own.unflatten });
        return [...own.list, ...(port.pageReads?.(c, idsParam, pidsParam).list ?? [])] as readonly BatchItem<'sqlite'>[];
      },
      values,
    );
    const layout = layouts.get(key)!;
    const results = (await db.batch(list as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[];
    const loaded = layout.unflatten(results.slice(0, layout.ownCount));
    if (one) loaded.projects = [{ project: one.project, namespace: one.namespace, level: 0 }];
    if (primed) {
      const heads = new Map(loaded.heads.map((h) => [`${h.projectId}:${h.name}`, h.sha]));
      const approvals = results.slice(layout.ownCount);
      // primePage seeds the memo without building the statements again (they were built once, above).
      if (port.primePage) port.primePage(c, mrs, approvals, heads);
      else port.pageReads!(c, idsParam, pidsParam).prime(mrs, approvals, heads);
    }
    return presentMergeRequests(c, caller, mrs, { ...o, approvalsPrimed: primed }, loaded);
  });
}
