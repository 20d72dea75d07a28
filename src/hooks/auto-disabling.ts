/**
 * WebHooks::AutoDisabling: after 3 failures in a row a hook backs off (disabled_until, 1 minute
 * doubling up to a day), on the 40th it is disabled for good; a success resets it. Each attempt
 * counts as GitLab counts each execution.
 */
import { sql, type SQL } from 'drizzle-orm';

export const TEMPORARILY_DISABLED_FAILURE_THRESHOLD = 3;
export const PERMANENTLY_DISABLED_FAILURE_THRESHOLD = 39;
const INITIAL_BACKOFF = 60_000;
const MAX_BACKOFF = 86_400_000;

type Hook = { recentFailures: number; disabledUntil: number | null };

export function temporarilyDisabled(h: Hook, now: number): boolean {
  return h.disabledUntil != null && h.disabledUntil >= now && h.recentFailures > TEMPORARILY_DISABLED_FAILURE_THRESHOLD && h.recentFailures <= PERMANENTLY_DISABLED_FAILURE_THRESHOLD;
}

export const permanentlyDisabled = (h: Hook) => h.recentFailures > PERMANENTLY_DISABLED_FAILURE_THRESHOLD;

export const executable = (h: Hook, now: number) => !temporarilyDisabled(h, now) && !permanentlyDisabled(h);

export function alertStatus(h: Hook, now: number): 'executable' | 'temporarily_disabled' | 'disabled' {
  if (temporarilyDisabled(h, now)) return 'temporarily_disabled';
  if (permanentlyDisabled(h)) return 'disabled';
  return 'executable';
}

/** The `executable` scope over `web_hooks h`. */
export const executableSql = (now: number): SQL =>
  sql`((h.recent_failures <= ${TEMPORARILY_DISABLED_FAILURE_THRESHOLD} OR (h.disabled_until IS NOT NULL AND h.disabled_until < ${now})) AND h.recent_failures <= ${PERMANENTLY_DISABLED_FAILURE_THRESHOLD})`;

/** backoff!: the next failure count and, past the grace failures, how long the hook rests. */
export function backoff(h: Hook, now: number): { recentFailures: number; disabledUntil: number | null } | null {
  if (!executable(h, now)) return null;
  const failures = Math.min(Math.max(h.recentFailures + 1, 1), PERMANENTLY_DISABLED_FAILURE_THRESHOLD + 1);
  if (failures <= TEMPORARILY_DISABLED_FAILURE_THRESHOLD) return { recentFailures: failures, disabledUntil: h.disabledUntil };
  const exponent = h.recentFailures - TEMPORARILY_DISABLED_FAILURE_THRESHOLD;
  const wait = Math.min(Math.max(INITIAL_BACKOFF * 2 ** exponent, INITIAL_BACKOFF), MAX_BACKOFF);
  return { recentFailures: failures, disabledUntil: now + wait };
}
