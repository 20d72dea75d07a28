/**
 * A merge request diff's identity (GitLab MergeRequestDiff#patch_id_sha, from `git patch-id`): the
 * same for two HEADs that change the same files the same way, as a rebase onto an unrelated target
 * change leaves them. Here it hashes the changed paths with their modes and blob ids, so it is
 * stricter than git's (which ignores line numbers): a rebase past target changes to the same files
 * gives a new identity, and approvals tied to the old one stop counting.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { mergeRequests } from '../db/schema';
import { blobId } from './git-objects';
import { diffManifests, type FileChange } from './diffs';
import { memoMergeBase } from './history';
import { memoBranchHead, memoManifest } from './repository-store';

const encoder = new TextEncoder();

export function patchIdOf(changes: FileChange[]): string | null {
  if (!changes.length) return null;
  const rows = changes.map((ch) => [ch.oldPath, ch.newPath, ch.aMode, ch.bMode, ch.oldBlob, ch.newBlob]).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return blobId(encoder.encode(JSON.stringify(rows)));
}

/** The patch id of a merge request at `head`: the changes from the merge base with the target (the recorded base once not open). */
export async function mergeRequestPatchId(c: Context<AppEnv>, mr: typeof mergeRequests.$inferSelect, head: string | null): Promise<string | null> {
  if (!head) return null;
  let base: string | null;
  if (mr.state === 'opened' || mr.state === 'locked') {
    const target = await memoBranchHead(c, mr.projectId, mr.targetBranch);
    base = target ? await memoMergeBase(c, mr.projectId, target, head) : null;
  } else base = mr.baseSha ?? null;
  const [a, b] = await Promise.all([memoManifest(c, mr.projectId, base), memoManifest(c, mr.projectId, head)]);
  return patchIdOf(diffManifests(a, b));
}

/**
 * The patch id stored on the merge request row by the last push to its source branch
 * (merge-requests/refresh.ts), while the heads it was computed for are still the heads; undefined
 * when it must be computed. A null patch id is stored for a diff without changes; a row whose facts
 * predate the column (changes but no patch id) is computed.
 */
export function storedPatchId(mr: typeof mergeRequests.$inferSelect, targetHead: string, head: string): string | null | undefined {
  if (mr.mergeFactsFor !== `${targetHead}:${head}` || mr.mergeBaseSha == null) return undefined;
  if (mr.mergePatchIdSha != null) return mr.mergePatchIdSha;
  return mr.mergeBaseSha === head || mr.changedFilesCount === 0 ? null : undefined;
}
