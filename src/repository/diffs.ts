/** What changed between two commits: changed files (renames by identical blobs), unified diffs, line stats, Diff entities. */
import { structuredPatch } from 'diff';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { Db } from '../db/client';
import type { Diff } from './commit-entity';
import { diffLimitsOf, patchTooLarge } from './diff-limits';
import { type Manifest, manifestOf, readBlob } from './repository-store';

export interface FileChange {
  oldPath: string;
  newPath: string;
  oldBlob: string | null;
  newBlob: string | null;
  aMode: string;
  bMode: string;
  newFile: boolean;
  deletedFile: boolean;
  renamedFile: boolean;
}

/** Files that differ between two commits (from null: everything is new); an identical blob deleted and added is a rename. */
export async function changedFiles(db: Db, projectId: number, from: string | null, to: string): Promise<FileChange[]> {
  const [a, b] = await Promise.all([manifestOf(db, projectId, from), manifestOf(db, projectId, to)]);
  return diffManifests(a, b);
}

export function diffManifests(a: Manifest, b: Manifest): FileChange[] {
  const out: FileChange[] = [];
  const added: string[] = [];
  const deleted: string[] = [];
  for (const [path, e] of b) {
    const old = a.get(path);
    if (!old) added.push(path);
    else if (old.blobSha !== e.blobSha || old.mode !== e.mode)
      out.push({ oldPath: path, newPath: path, oldBlob: old.blobSha, newBlob: e.blobSha, aMode: old.mode, bMode: e.mode, newFile: false, deletedFile: false, renamedFile: false });
  }
  for (const path of a.keys()) if (!b.has(path)) deleted.push(path);
  const deletedByBlob = new Map<string, string[]>();
  for (const p of deleted) deletedByBlob.set(a.get(p)!.blobSha, [...(deletedByBlob.get(a.get(p)!.blobSha) ?? []), p]);
  const renamedFrom = new Set<string>();
  for (const path of added) {
    const e = b.get(path)!;
    const from = deletedByBlob.get(e.blobSha)?.find((p) => !renamedFrom.has(p));
    if (from) {
      renamedFrom.add(from);
      out.push({ oldPath: from, newPath: path, oldBlob: e.blobSha, newBlob: e.blobSha, aMode: a.get(from)!.mode, bMode: e.mode, newFile: false, deletedFile: false, renamedFile: true });
    } else out.push({ oldPath: path, newPath: path, oldBlob: null, newBlob: e.blobSha, aMode: '0', bMode: e.mode, newFile: true, deletedFile: false, renamedFile: false });
  }
  for (const path of deleted) {
    if (renamedFrom.has(path)) continue;
    const e = a.get(path)!;
    out.push({ oldPath: path, newPath: path, oldBlob: e.blobSha, newBlob: null, aMode: e.mode, bMode: '0', newFile: false, deletedFile: true, renamedFile: false });
  }
  return out.sort((x, y) => (x.newPath < y.newPath ? -1 : x.newPath > y.newPath ? 1 : 0));
}

export const decoder = new TextDecoder();
export const isBinary = (bytes: Uint8Array) => bytes.subarray(0, 8000).includes(0);

/** git's unified diff body without the file header: hunks with 3 lines of context ("@@ -a,b +c,d @@"). */
export function unifiedDiff(oldText: string, newText: string): string {
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', { context: 3 });
  const range = (start: number, lines: number) => (lines === 0 ? `${start - 1},0` : lines === 1 ? `${start}` : `${start},${lines}`);
  return patch.hunks.map((h) => `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n${h.lines.join('\n')}\n`).join('');
}

/** Lines added and removed between two texts (CommitStats). */
export function lineStats(oldText: string, newText: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const h of structuredPatch('a', 'b', oldText, newText, '', '', { context: 0 }).hunks)
    for (const l of h.lines) {
      if (l.startsWith('+')) additions++;
      else if (l.startsWith('-')) deletions++;
    }
  return { additions, deletions };
}

/** Entities::Diff for each change (GitLab field order). Binary files get an empty diff. */
export async function diffsBetween(c: Context<AppEnv>, projectId: number, from: string | null, to: string): Promise<Diff[]> {
  const changes = await changedFiles(c.var.db, projectId, from, to);
  return Promise.all(changes.map((ch) => diffEntity(c, projectId, ch)));
}

/** `diffsBetween` of file lists already read (the blobs come from the blob store, not storage). */
export const diffsOfManifests = (c: Context<AppEnv>, projectId: number, a: Manifest, b: Manifest): Promise<Diff[]> => Promise.all(diffManifests(a, b).map((ch) => diffEntity(c, projectId, ch)));

/** Entities::Diff of one change; a patch of `diff_max_patch_bytes` or more is pruned, `too_large` (diff-limits.ts). */
export async function diffEntity(c: Context<AppEnv>, projectId: number, ch: FileChange): Promise<Diff> {
  const [oldBytes, newBytes, limits] = await Promise.all([
    ch.oldBlob && ch.oldBlob !== ch.newBlob ? readBlob(c, projectId, ch.oldBlob) : Promise.resolve(null),
    ch.newBlob && ch.oldBlob !== ch.newBlob ? readBlob(c, projectId, ch.newBlob) : Promise.resolve(null),
    diffLimitsOf(c),
  ]);
  const binary = (oldBytes && isBinary(oldBytes)) || (newBytes && isBinary(newBytes));
  const patch = binary || ch.oldBlob === ch.newBlob ? '' : unifiedDiff(oldBytes ? decoder.decode(oldBytes) : '', newBytes ? decoder.decode(newBytes) : '');
  const tooLarge = patchTooLarge(patch, limits.maxPatchBytes);
  return {
    diff: tooLarge ? '' : patch,
    collapsed: false,
    too_large: tooLarge,
    new_path: ch.newPath,
    old_path: ch.oldPath,
    a_mode: ch.aMode,
    b_mode: ch.bMode,
    new_file: ch.newFile,
    renamed_file: ch.renamedFile,
    deleted_file: ch.deletedFile,
    generated_file: false,
  };
}
