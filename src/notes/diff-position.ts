/**
 * A merge request DiffNote's position (Gitlab::Diff::Position) checked as DiffNote's validations
 * check it: `positions_complete` (a text position names a line), `verify_supported` (the merge
 * request has complete diff refs) and `set_line_code` + `validates :line_code, presence: true,
 * line_code: true`: the line code is the position's line in the diff of base_sha..head_sha
 * (Gitlab::Diff::File#line_code_for_position, after `unfold_diff_lines` for an unchanged line
 * outside the hunks), and none when a sha is not a commit, the file is not in that diff or the
 * line is not in the file. A missing line code is GitLab's familiar
 * `{:line_code=>["can't be blank", "must be a valid line code"]}`.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { diffManifests, unifiedDiff } from '../repository/repository';
import { type Manifest, readBlob } from '../repository/repository-store';
import type { DiffPosition } from './diff-position-entity';

/** The `position` parameter as Grape coerced it (lines as integers, line_range as given). */
export interface PositionParam {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  position_type: 'text' | 'image';
  old_path?: string;
  new_path?: string;
  old_line?: number;
  new_line?: number;
  line_range?: Record<string, unknown>;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
}

/** Position#to_h of the text and image formatters (the stored and shown form). */
export function positionHash(p: PositionParam): DiffPosition {
  const base = { base_sha: p.base_sha, start_sha: p.start_sha, head_sha: p.head_sha, old_path: p.old_path ?? null, new_path: p.new_path ?? null, position_type: p.position_type };
  if (p.position_type === 'image') return { ...base, width: p.width ?? null, height: p.height ?? null, x: p.x ?? null, y: p.y ?? null };
  return { ...base, old_line: p.old_line ?? null, new_line: p.new_line ?? null, line_range: (p.line_range as DiffPosition['line_range']) ?? null, ignore_whitespace_change: false };
}

/** Gitlab::Git.diff_line_code: the file path's SHA-1, the old and the new line counters. */
export const lineCode = (path: string, oldLine: number, newLine: number) => `${createHash('sha1').update(path).digest('hex')}_${oldLine}_${newLine}`;

/**
 * The line code of a text position in a unified diff (Gitlab::Diff::Parser's counters: an added
 * line carries the old counter, a removed one the new counter), or null. A line both sides share
 * outside the hunks is found as `unfold_diff_lines` finds it: the offset between its two numbers
 * is the one the hunks before it leave.
 */
export function lineCodeIn(diff: string, path: string, oldText: string, newText: string, oldLine: number | null, newLine: number | null): string | null {
  let delta = 0;
  let oldCounter = 0;
  let newCounter = 0;
  for (const line of diff.split('\n')) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (header) {
      const previousEnd = newCounter;
      oldCounter = Number(header[1]);
      newCounter = Number(header[3]);
      // An unchanged line between the previous hunk and this one.
      if (oldLine != null && newLine != null && oldLine >= 1 && newLine >= previousEnd && newLine < newCounter && newLine - oldLine === delta) return lineCode(path, oldLine, newLine);
      delta += Number(header[4] ?? 1) - Number(header[2] ?? 1);
      continue;
    }
    const kind = line[0];
    if (kind === '+') {
      if (oldLine == null && newLine === newCounter) return lineCode(path, oldCounter, newCounter);
      newCounter++;
    } else if (kind === '-') {
      if (newLine == null && oldLine === oldCounter) return lineCode(path, oldCounter, newCounter);
      oldCounter++;
    } else if (kind === ' ') {
      if (oldLine === oldCounter && newLine === newCounter) return lineCode(path, oldCounter, newCounter);
      oldCounter++;
      newCounter++;
    }
  }
  // An unchanged line after the last hunk (or in a file whose diff has none).
  const oldCount = countLines(oldText);
  const newCount = countLines(newText);
  if (oldLine != null && newLine != null && oldLine >= 1 && newLine >= newCounter && newLine <= newCount && oldLine <= oldCount && newLine - oldLine === delta) return lineCode(path, oldLine, newLine);
  return null;
}

const countLines = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

/**
 * DiffNote validation errors of a position on a merge request, keyed as GitLab's `errors.messages`
 * (empty when valid), and the line code a text position resolved to. `known` lists which of the
 * position's shas are commits of the project and `files` the file lists of its base and head
 * (read with the merge request); `supported` is DiffNote#supported? (a commit, or a merge request
 * with complete diff refs).
 */
export async function checkPosition(
  c: Context<AppEnv>,
  projectId: number,
  p: PositionParam,
  known: ReadonlySet<string>,
  supported: boolean,
  files: { base: Manifest; head: Manifest },
): Promise<{ errors: Record<string, string[]>; lineCode: string | null }> {
  const errors: Record<string, string[]> = {};
  if (p.position_type === 'image') {
    if (!supported) errors.noteable = ["doesn't support new-style diff notes"];
    return { errors, lineCode: null };
  }
  const code = await textLineCode(c, projectId, p, known, files);
  if (code == null) errors.line_code = ["can't be blank", 'must be a valid line code'];
  // Gitlab::Diff::Formatters::TextFormatter#complete?: old_line or new_line present.
  if (p.old_line == null && p.new_line == null) errors.position = ['is incomplete'];
  if (!supported) errors.noteable = ["doesn't support new-style diff notes"];
  return { errors, lineCode: code };
}

async function textLineCode(c: Context<AppEnv>, projectId: number, p: PositionParam, known: ReadonlySet<string>, files: { base: Manifest; head: Manifest }): Promise<string | null> {
  if (p.old_line == null && p.new_line == null) return null;
  if (!known.has(p.base_sha) || !known.has(p.head_sha)) return null;
  const paths = [p.old_path, p.new_path].filter((x): x is string => x != null && x !== '');
  if (!paths.length) return null;
  const file = diffManifests(files.base, files.head).find((f) => paths.includes(f.newPath) || paths.includes(f.oldPath));
  if (!file) return null;
  const decoder = new TextDecoder();
  const [oldBytes, newBytes] = await Promise.all([file.oldBlob ? readBlob(c, projectId, file.oldBlob) : null, file.newBlob ? readBlob(c, projectId, file.newBlob) : null]);
  const oldText = oldBytes ? decoder.decode(oldBytes) : '';
  const newText = newBytes ? decoder.decode(newBytes) : '';
  return lineCodeIn(unifiedDiff(oldText, newText), file.newPath, oldText, newText, p.old_line ?? null, p.new_line ?? null);
}
