/**
 * `destroy_conditionally!` / `check_unmodified_since!` (GitLab lib/api/helpers.rb): a DELETE with
 * `If-Unmodified-Since` older than the resource's `updated_at` answers 412 and deletes nothing.
 */
import type { Context } from 'hono';
import { preconditionFailed } from './errors';

export function checkUnmodifiedSince(c: Context, updatedAtMs: number | null | undefined): void {
  const header = c.req.header('if-unmodified-since');
  if (!header || updatedAtMs == null) return;
  const since = Date.parse(header);
  if (Number.isNaN(since)) return; // GitLab ignores an unparseable date
  // HTTP dates have second precision: compare at that precision.
  if (Math.floor(updatedAtMs / 1000) * 1000 > since) throw preconditionFailed();
}
