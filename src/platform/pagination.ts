/**
 * Offset pagination exactly as GitLab answers it (lib/gitlab/pagination/offset_pagination.rb,
 * offset_header_builder.rb; reference 1 §1): page/per_page clamping, the X-* headers, and a Link
 * header whose URLs carry every request parameter (defaults filled in) sorted like Rails' to_query.
 * Totals are counted with LIMIT 10001 and dropped above 10,000 rows.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { renderedOnceIfSelect } from '../db/prepared';
import { requestParams } from './params';
import type { AppEnv } from './context';
import { g } from './validate';
import { grapeError } from './errors';
import { OFFSET_PAGINATION_LIMIT } from './limits';
import { extensionPoint } from './extension';
import type { ParamSpec } from './validate';

export const MAX_COUNT = 10_000;
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** `use :pagination` (lib/api/pagination_params.rb): per_page 0 is refused, other values clamp. */
export const paginationParams = {
  page: g.int().optional(),
  per_page: g.int().refine((n) => n !== 0, { message: 'has a value not allowed' }).optional(),
};

/** The `only_positive_pagination_values` flag, read through features/flags.ts (installed by src/app.ts). */
export const positivePaginationFlag = extensionPoint<{ enabled(c: Context<AppEnv>): Promise<boolean> }>('only_positive_pagination_values');

const grapeInteger = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v) ? Number(v) : undefined;

/**
 * lib/api/pagination_params.rb with `only_positive_pagination_values` on: page and per_page below 1
 * are refused (`<param> does not have a valid value`) instead of clamped. Runs before the route's own
 * validation, for routes that `use :pagination`; the flag is read only when a value is below 1, so a
 * normal page costs nothing.
 */
export async function checkPositivePagination(c: Context<AppEnv>, spec: ParamSpec | undefined, raw: Record<string, unknown>): Promise<void> {
  if (spec?.shape.page !== paginationParams.page) return;
  const bad = (['page', 'per_page'] as const).filter((k) => (grapeInteger(raw[k]) ?? 1) < 1);
  if (!bad.length || !(await positivePaginationFlag.get().enabled(c))) return;
  throw grapeError(bad.map((k) => `${k} does not have a valid value`).join(', '));
}

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
  /** per_page as the client sent it; Link URLs repeat the raw value (offset_header_builder.rb). */
  rawPerPage: unknown;
}

export function pageRequest(p: { page?: number; per_page?: number }, rawPerPage: unknown): PageRequest {
  const page = !p.page || p.page < 1 ? 1 : p.page;
  let perPage = p.per_page ?? DEFAULT_PER_PAGE;
  if (perPage < 1) perPage = DEFAULT_PER_PAGE; // Kaminari ignores negative values
  if (perPage > MAX_PER_PAGE) perPage = MAX_PER_PAGE;
  return { page, perPage, offset: (page - 1) * perPage, rawPerPage: rawPerPage ?? perPage };
}

/**
 * GitLab's offset cap for types that also offer keyset pagination (pagination_strategies.rb
 * `offset_paginator`): `params[:page] * params[:per_page]` (declared defaults 1 and 20, before any
 * clamping) above the plan's `offset_pagination_limit` is a 405 in Grape's `error` shape.
 * GitLab applies it to Project lists and, through `paginate_with_strategies`, to anonymous Group
 * lists; other lists page without it, as in GitLab.
 */
export function checkOffsetLimit(p: { page?: number; per_page?: number }, type: 'Project' | 'Group'): void {
  if ((p.page ?? 1) * (p.per_page ?? DEFAULT_PER_PAGE) > OFFSET_PAGINATION_LIMIT) {
    throw grapeError(
      `Offset pagination has a maximum allowed offset of ${OFFSET_PAGINATION_LIMIT} for requests that return objects of type ${type}. ` +
        'Remaining records can be retrieved using keyset pagination.',
      405,
    );
  }
}

/** CGI.escape: unreserved characters stay, space becomes `+`. */
export function cgiEscape(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

function toParam(v: unknown): string {
  if (v == null) return '';
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

/** Rails Hash#to_query: nested keys, arrays as `k[]`, empty arrays/hashes dropped, pairs sorted. */
export function toQuery(params: Record<string, unknown>, namespace?: string): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value instanceof Blob) continue;
    const name = namespace ? `${namespace}[${key}]` : key;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      for (const item of value) {
        if (item && typeof item === 'object') parts.push(toQuery(item as Record<string, unknown>, `${name}[]`));
        else parts.push(`${cgiEscape(`${name}[]`)}=${cgiEscape(toParam(item))}`);
      }
    } else if (value && typeof value === 'object' && !(value instanceof Date)) {
      if (Object.keys(value).length === 0) continue;
      parts.push(toQuery(value as Record<string, unknown>, name));
    } else {
      parts.push(`${cgiEscape(name)}=${cgiEscape(toParam(value))}`);
    }
  }
  return parts.filter(Boolean).sort().join('&');
}

/** Base URL for links: the configured external URL, else the request's own origin. */
export function baseUrl(c: Context<AppEnv>): string {
  return c.var.config.externalUrl ?? new URL(c.req.url).origin;
}

export interface PageResult<T> {
  rows: T[];
  total: number | null;
}

/** A count sent in the page's batch: a select of one row `{ n }` (see `countUpToQuery`). */
export type CountQuery = PromiseLike<{ n: number }[]>;

/**
 * Runs a paginated list. `count(limit)` counts at most `limit` rows; `fetch(limit, offset)` loads a page.
 * When both are unexecuted Drizzle queries (not promises), they go to storage in ONE batch, one round
 * trip; a promise (an in-memory page, a page that needs its own reads) runs beside the other.
 * `linkParams` are Grape's `params`: path and query parameters with declared defaults filled in.
 */
export async function paginate<T>(
  c: Context<AppEnv>,
  req: PageRequest,
  linkParams: Record<string, unknown>,
  fetch: (limit: number, offset: number) => PromiseLike<T[]>,
  count: (limit: number) => Promise<number> | CountQuery,
): Promise<T[]> {
  const page = fetch(req.perPage, req.offset);
  const counted = count(MAX_COUNT + 1);
  const [rows, n] =
    page instanceof Promise || counted instanceof Promise
      ? await Promise.all([page, counted])
      : // Each rendered once, and its statement built once per text (db/prepared.ts).
        ((await c.var.db.batch([renderedOnceIfSelect(c.var.db, page), renderedOnceIfSelect(c.var.db, counted)] as unknown as Parameters<Db['batch']>[0])) as unknown as [T[], { n: number }[]]);
  const limitedTotal = typeof n === 'number' ? n : Number(n[0]?.n ?? 0);
  const total = limitedTotal > MAX_COUNT ? null : limitedTotal;
  setPaginationHeaders(c, req, linkParams, total, rows.length);
  return rows;
}

/**
 * `paginate` with the reads the list depends on (its parent: the user, the issue, the merge request)
 * in the SAME batch as the page and its count: one round trip. `check` sees those reads first and
 * throws (404, 403) before any pagination header is set; the page is then simply not used.
 */
export async function paginateWith<T, const R extends readonly BatchItem<'sqlite'>[]>(
  c: Context<AppEnv>,
  req: PageRequest,
  linkParams: Record<string, unknown>,
  page: (limit: number, offset: number) => PromiseLike<T[]>,
  count: (limit: number) => CountQuery,
  reads: R,
  check: (reads: { -readonly [K in keyof R]: Awaited<R[K]> }) => void,
): Promise<{ rows: T[]; reads: { -readonly [K in keyof R]: Awaited<R[K]> } }> {
  const db = c.var.db;
  const results = (await db.batch([...reads, renderedOnceIfSelect(db, page(req.perPage, req.offset)), renderedOnceIfSelect(db, count(MAX_COUNT + 1))] as unknown as Parameters<Db['batch']>[0])) as unknown as unknown[];
  const own = results.slice(0, reads.length) as { -readonly [K in keyof R]: Awaited<R[K]> };
  check(own);
  const rows = results[reads.length] as T[];
  const limitedTotal = Number((results[reads.length + 1] as { n: number }[])[0]?.n ?? 0);
  setPaginationHeaders(c, req, linkParams, limitedTotal > MAX_COUNT ? null : limitedTotal, rows.length);
  return { rows, reads: own };
}

export function setPaginationHeaders(c: Context<AppEnv>, req: PageRequest, linkParams: Record<string, unknown>, total: number | null, pageSize: number) {
  const { page, perPage } = req;
  const totalPages = total == null ? null : Math.max(Math.ceil(total / perPage), 1);
  // Kaminari: next exists while this page is full (without count) or before the last page; out of range has neither.
  const outOfRange = totalPages != null ? page > totalPages : pageSize === 0 && page > 1;
  const nextPage = outOfRange ? null : totalPages != null ? (page < totalPages ? page + 1 : null) : pageSize === perPage ? page + 1 : null;
  const prevPage = outOfRange || page <= 1 ? null : page - 1;

  const url = new URL(c.req.url);
  const origin = baseUrl(c);
  const href = (n: number) => `${origin}${url.pathname}?${toQuery({ ...linkParams, page: n, per_page: req.rawPerPage })}`;
  const links: string[] = [];
  if (prevPage) links.push(`<${href(prevPage)}>; rel="prev"`);
  if (nextPage) links.push(`<${href(nextPage)}>; rel="next"`);
  links.push(`<${href(1)}>; rel="first"`);
  if (totalPages != null) links.push(`<${href(totalPages)}>; rel="last"`);

  c.header('X-Per-Page', String(perPage));
  c.header('X-Page', String(page));
  c.header('X-Next-Page', nextPage ? String(nextPage) : '');
  c.header('X-Prev-Page', prevPage ? String(prevPage) : '');
  c.header('Link', links.join(', '));
  if (total != null) {
    c.header('X-Total', String(total));
    c.header('X-Total-Pages', String(totalPages));
  }
}

/** Link parameters for a list: the request's own params (raw, as received) overlaid with validated defaults. */
export function linkParamsFrom(raw: Record<string, unknown>, defaults: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...defaults, ...raw })) {
    if (k === 'page' || k === 'per_page' || k === 'private_token' || k === 'access_token' || k === 'job_token' || k === 'bearer_token') continue;
    out[k] = v;
  }
  return out;
}

export type PaginationShape = typeof paginationParams;

/** `count(*)` of at most `limit` rows: never an unbounded COUNT over a large table. */
export async function countUpTo(db: Db, table: SQLiteTable, where: SQL | undefined, limit: number): Promise<number> {
  return Number((await countUpToQuery(db, table, where, limit))[0]?.n ?? 0);
}

/** `countUpTo` as an unexecuted query, for `paginate` to send in the page's batch. */
export function countUpToQuery(db: Db, table: SQLiteTable, where: SQL | undefined, limit: number) {
  return db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(table).where(where).limit(limit).as('t'));
}

/**
 * The common list: rows of one table matching `where`, in `orderBy` order, one page of them with
 * GitLab's headers. `defaults` are the declared parameter defaults repeated in Link URLs.
 */
export async function paginateSelect<T extends SQLiteTable>(
  c: Context<AppEnv>,
  p: { page?: number; per_page?: number },
  opts: { table: T; where?: SQL; orderBy: SQL[]; defaults?: Record<string, unknown> },
): Promise<T['$inferSelect'][]> {
  const raw = await requestParams(c);
  const db = c.var.db;
  const table = opts.table as SQLiteTable;
  return paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, opts.defaults ?? {}),
    (limit, offset) => db.select().from(table).where(opts.where).orderBy(...opts.orderBy).limit(limit).offset(offset) as unknown as PromiseLike<T['$inferSelect'][]>,
    (limit) => countUpToQuery(db, table, opts.where, limit),
  );
}
