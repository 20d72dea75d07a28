/**
 * Push events from the push extension point (repository/push.ts): the commits API, a merge and a
 * rebase are pushes. The commits travel in the event row (at most 20, newest first, as
 * Gitlab::DataBuilder::Push keeps them), so the payload needs no repository reads later.
 */
import type { PushHook } from '../repository/push';
import { recordHookEvent } from './outbox';

const PUSH_COMMITS_LIMIT = 20;
const BLANK_SHA = '0000000000000000000000000000000000000000';

export const recordPushEvent: PushHook = async (c, push) => {
  const head = push.commits[push.commits.length - 1];
  if (!head) return [];
  const commits = push.commits
    .slice(-PUSH_COMMITS_LIMIT)
    .reverse()
    .map((x) => ({ sha: x.sha, message: x.message, authoredAt: x.authoredAt, authorName: x.authorName, authorEmail: x.authorEmail }));
  return recordHookEvent(c, {
    kind: 'push',
    projectId: push.projectId,
    actorId: push.user.id,
    data: { before: push.oldSha ?? BLANK_SHA, after: head.sha, ref: `refs/heads/${push.branch}`, commits, total_commits_count: push.commits.length },
  });
};
