/**
 * The rebase mark (`rebase_jid`) and when it stops counting. GitLab's
 * MergeRequest#rebase_in_progress? is `rebase_jid.present? && Gitlab::SidekiqStatus.running?(rebase_jid)`,
 * and a job's Sidekiq status expires after 30 minutes (SidekiqStatus::DEFAULT_EXPIRATION): a rebase
 * whose job was lost stops blocking the merge request then. The job's id carries the time it was
 * queued so the same rule needs no extra column or read: `merge_request_rebase:<mr id>:<ms>:<uuid>`.
 */
export const REBASE_MARK_TTL_MS = 30 * 60 * 1000;

export const newRebaseJid = (type: string, mergeRequestId: number, now: number) => `${type}:${mergeRequestId}:${now}:${crypto.randomUUID()}`;

/**
 * Whether a mark still means "in progress" at `now`. A mark without a time (written before the
 * time was kept, or by hand) counts as running: it is only cleared by its job, as before.
 */
export function rebaseMarkActive(jid: string | null | undefined, now: number): boolean {
  if (jid == null) return false;
  const queuedAt = Number(jid.split(':')[2]);
  if (!Number.isSafeInteger(queuedAt) || queuedAt <= 0) return true;
  return now - queuedAt < REBASE_MARK_TTL_MS;
}
