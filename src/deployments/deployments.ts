/**
 * Deployment rules (app/models/deployment.rb, app/finders/deployments_finder.rb): the status
 * machine, the list's filters and orderings with the finder's refusals.
 */
import { and, asc, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { deployments, environments } from '../db/schema';
import { badRequest, validationFailed } from '../platform/errors';

/** The event each requested status fires (Deployment#update_status!), and the states it leaves from. */
const EVENTS: Record<string, { event: string; from: (s: string) => boolean }> = {
  // A blocked deployment waits for its approvals, which unblock it to created (deployment-approvals.ts).
  running: { event: 'run', from: (s) => s === 'created' },
  success: { event: 'succeed', from: (s) => s !== 'success' },
  failed: { event: 'drop', from: (s) => s !== 'failed' },
  canceled: { event: 'cancel', from: (s) => s !== 'canceled' },
  // `create`: only a skipped deployment goes back to created.
  created: { event: 'create', from: (s) => s === 'skipped' },
};
/** Deployment::FINISHED_STATUSES: entering one sets `finished_at`. */
const FINISHED = ['success', 'failed', 'canceled'];

/** state_machines' error for a refused event. */
export const invalidTransition = (status: string) => validationFailed({ status: [`cannot transition via "${EVENTS[status]?.event ?? status}"`] });

/** The columns a transition to `status` changes, or the validation error of an invalid transition. */
export function transition(from: string, status: string, now: number): { status: string; finishedAt?: number; updatedAt: number } {
  const e = EVENTS[status];
  if (!e || !e.from(from)) throw invalidTransition(status);
  return { status, updatedAt: now, ...(FINISHED.includes(status) ? { finishedAt: now } : {}) };
}

export interface ListFilter {
  order_by: 'id' | 'iid' | 'created_at' | 'updated_at' | 'ref' | 'finished_at';
  sort: 'asc' | 'desc';
  updated_after?: number;
  updated_before?: number;
  finished_after?: number;
  finished_before?: number;
  environment?: string;
  status?: string;
}

/** DeploymentsFinder#validate!: the inefficient combinations it refuses (400). */
export function checkFilter(f: ListFilter) {
  const updated = f.updated_after !== undefined || f.updated_before !== undefined;
  const finished = f.finished_after !== undefined || f.finished_before !== undefined;
  if (updated && finished) throw badRequest('Both `updated_at` filter and `finished_at` filter can not be specified');
  if (finished && f.order_by !== 'finished_at') throw badRequest('`finished_at` filter and `finished_at` sorting must be paired');
  if (finished && f.status !== 'success') throw badRequest('`finished_at` filter must be combined with `success` status filter.');
}

export function listWhere(pid: SQL, f: ListFilter): SQL | undefined {
  return and(
    sql`${deployments.projectId} = ${pid}`,
    f.updated_after !== undefined ? gte(deployments.updatedAt, f.updated_after) : undefined,
    f.updated_before !== undefined ? lt(deployments.updatedAt, f.updated_before) : undefined,
    f.finished_after !== undefined ? gte(deployments.finishedAt, f.finished_after) : undefined,
    f.finished_before !== undefined ? lt(deployments.finishedAt, f.finished_before) : undefined,
    f.status ? eq(deployments.status, f.status) : undefined,
    f.environment !== undefined ? sql`${deployments.environmentId} IN (SELECT id FROM ${environments} WHERE ${environments.projectId} = ${pid} AND ${environments.name} = ${f.environment})` : undefined,
  );
}

/** Sorting by `created_at` or `iid` runs as sorting by id; `updated_at` breaks ties by id descending. */
export function listOrder(f: ListFilter): SQL[] {
  const dir = f.sort === 'desc' ? desc : asc;
  switch (f.order_by) {
    case 'updated_at':
      return [dir(deployments.updatedAt), desc(deployments.id)];
    case 'ref':
      return [dir(deployments.ref), dir(deployments.id)];
    case 'finished_at':
      return [dir(deployments.finishedAt), dir(deployments.id)];
    default:
      return [dir(deployments.id)];
  }
}
