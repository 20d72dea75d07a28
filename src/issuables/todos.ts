/**
 * The to-dos issues and merge requests write as part of their own changes (TodoService): GitLab's
 * action numbers and the resolve-on-close update. Listing and marking to-dos is the todos domain.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { todos } from '../db/schema';

/** Todo::ACTION_NAMES (app/models/todo.rb), by GitLab's action numbers. */
export const TODO_ACTIONS: Record<number, string> = {
  1: 'assigned',
  2: 'mentioned',
  3: 'build_failed',
  4: 'marked',
  5: 'approval_required',
  6: 'unmergeable',
  7: 'directly_addressed',
  8: 'merge_train_removed',
  9: 'review_requested',
  10: 'member_access_requested',
  11: 'review_submitted',
  12: 'okr_checkin_requested',
  13: 'added_approver',
  14: 'ssh_key_expired',
  15: 'ssh_key_expiring_soon',
};
export const TODO_ASSIGNED = 1;
export const TODO_MARKED = 4;
export const TODO_REVIEW_REQUESTED = 9;

/**
 * TodoService#resolve_todos_for_target: every pending to-do on the target becomes done (closing an
 * issue does this for all users). An update builder, for the batch of the change that causes it.
 */
export function resolveTodosForTarget(db: Db, targetType: 'Issue' | 'MergeRequest' | 'Epic', targetId: number, now = Date.now(), userId?: number) {
  return db
    .update(todos)
    .set({ state: 'done', updatedAt: now })
    .where(and(eq(todos.targetType, targetType), eq(todos.targetId, targetId), eq(todos.state, 'pending'), userId === undefined ? undefined : eq(todos.userId, userId)));
}
