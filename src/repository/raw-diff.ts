/**
 * `git diff --full-index base head` as Gitaly's RawDiff prints it (what GET
 * .../merge_requests/:iid/raw_diffs streams through Workhorse): per file the `diff --git` line, the
 * mode lines, the rename and index lines, then `Binary files … differ` or the `---`/`+++` lines
 * and hunks. Renames are git's exact ones (the same blob); paths are printed unquoted.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { changedFiles, type FileChange, unifiedDiff } from './diffs';
import { readBlob } from './repository-store';

const ZERO = '0'.repeat(40);
const decoder = new TextDecoder();
/** git's buffer_is_binary: a NUL byte in the first 8000 bytes. */
const isBinary = (bytes: Uint8Array | null) => bytes != null && bytes.subarray(0, 8000).includes(0);
const mode = (m: string) => m.padStart(6, '0');

export async function gitDiffText(c: Context<AppEnv>, projectId: number, base: string | null, head: string): Promise<string> {
  const changes = await changedFiles(c.var.db, projectId, base, head);
  const parts: string[] = [];
  for (const ch of changes) parts.push(await fileDiff(c, projectId, ch));
  return parts.join('');
}

async function fileDiff(c: Context<AppEnv>, projectId: number, ch: FileChange): Promise<string> {
  const lines = [`diff --git a/${ch.oldPath} b/${ch.newPath}`];
  if (ch.newFile) lines.push(`new file mode ${mode(ch.bMode)}`);
  else if (ch.deletedFile) lines.push(`deleted file mode ${mode(ch.aMode)}`);
  else if (ch.aMode !== ch.bMode) lines.push(`old mode ${mode(ch.aMode)}`, `new mode ${mode(ch.bMode)}`);
  if (ch.renamedFile) lines.push('similarity index 100%', `rename from ${ch.oldPath}`, `rename to ${ch.newPath}`);
  const oldBlob = ch.oldBlob ?? ZERO;
  const newBlob = ch.newBlob ?? ZERO;
  if (oldBlob === newBlob) return `${lines.join('\n')}\n`;
  // fill_metainfo: the mode follows the index line only when it did not change.
  lines.push(`index ${oldBlob}..${newBlob}${!ch.newFile && !ch.deletedFile && ch.aMode === ch.bMode ? ` ${mode(ch.aMode)}` : ''}`);
  const [oldBytes, newBytes] = await Promise.all([ch.oldBlob ? readBlob(c, projectId, ch.oldBlob) : null, ch.newBlob ? readBlob(c, projectId, ch.newBlob) : null]);
  const from = ch.newFile ? '/dev/null' : `a/${ch.oldPath}`;
  const to = ch.deletedFile ? '/dev/null' : `b/${ch.newPath}`;
  if (isBinary(oldBytes) || isBinary(newBytes)) {
    lines.push(`Binary files ${from} and ${to} differ`);
    return `${lines.join('\n')}\n`;
  }
  const hunks = unifiedDiff(oldBytes ? decoder.decode(oldBytes) : '', newBytes ? decoder.decode(newBytes) : '');
  // An empty file added or removed has no hunks, and git prints no ---/+++ lines for it.
  if (!hunks) return `${lines.join('\n')}\n`;
  lines.push(`--- ${from}`, `+++ ${to}`);
  return `${lines.join('\n')}\n${hunks}`;
}
