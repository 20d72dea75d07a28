/**
 * Quick actions in note bodies (GitLab Notes::QuickActionsService). Only `/promote` is executed;
 * any other slash line stays in the body as text.
 */
const PROMOTE = /^\/promote[ \t]*$/;

export interface QuickActions {
  promote: boolean;
  /** The body without executed command lines, trimmed. */
  remainingBody: string;
}

export function extractQuickActions(body: string): QuickActions {
  let promote = false;
  const kept: string[] = [];
  for (const line of body.split('\n')) {
    if (PROMOTE.test(line.trimEnd())) promote = true;
    else kept.push(line);
  }
  return { promote, remainingBody: promote ? kept.join('\n').trim() : body };
}
