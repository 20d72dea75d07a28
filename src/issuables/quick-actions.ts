/**
 * Quick actions in note bodies (GitLab Notes::QuickActionsService, Gitlab::QuickActions::Extractor).
 * Only `/promote` is executed; any other slash line stays in the body as text. As the extractor
 * reads them, command names are case-insensitive, start a line, may carry arguments (ignored by
 * /promote), and are not commands inside fenced code blocks or quotes (`>` lines, `>>>` blocks).
 */
const PROMOTE = /^\/promote(?:[ \t]+[^\n]*)?$/i;

export interface QuickActions {
  promote: boolean;
  /** The body without executed command lines, trimmed. */
  remainingBody: string;
}

export function extractQuickActions(body: string): QuickActions {
  let promote = false;
  const kept: string[] = [];
  let fence: string | null = null;
  let quoteBlock = false;
  for (const line of body.split('\n')) {
    const trimmed = line.trimEnd();
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (!quoteBlock && fenceMark && (fence === null || (fenceMark[0] === fence[0] && fenceMark.length >= fence.length))) {
      fence = fence === null ? fenceMark : null;
      kept.push(line);
      continue;
    }
    if (fence === null && /^>>>/.test(trimmed)) {
      quoteBlock = !quoteBlock;
      kept.push(line);
      continue;
    }
    if (fence === null && !quoteBlock && PROMOTE.test(trimmed)) promote = true;
    else kept.push(line);
  }
  return { promote, remainingBody: promote ? kept.join('\n').trim() : body };
}
