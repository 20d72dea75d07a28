/**
 * `git blame` over the stored history (Gitlab::Blame#groups, Entities::BlameRange): each line of a
 * file is attributed to the commit that brought it, following the versions of the path from its
 * oldest commit to the ref's, and consecutive lines of one commit form a group. Merges are walked in
 * commit order (the stored history has no rename detection either, as `git blame` without -C).
 */
import { diffArrays } from 'diff';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { Db } from '../db/client';
import { repoCommitFiles } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { obj } from '../platform/response-schemas';
import { commitDate } from './commit-entity';
import { decoder } from './diffs';
import { historyPage } from './history-reads';
import { type CommitRow, readBlob } from './repository-store';

const commitTimestamp = z.iso.datetime({ precision: 3, offset: true });

/** lib/api/entities/blame_range_commit.rb. */
export const BlameRangeCommitSchema = obj({
  id: z.string(),
  parent_ids: z.array(z.string()),
  message: z.string(),
  authored_date: commitTimestamp,
  author_name: z.string(),
  author_email: z.string(),
  committed_date: commitTimestamp,
  committer_name: z.string(),
  committer_email: z.string(),
}).meta({ id: 'BlameRangeCommit' });

/** lib/api/entities/blame_range.rb. */
export const BlameRangeSchema = obj({ commit: BlameRangeCommitSchema, lines: z.array(z.string()) }).meta({ id: 'BlameRange' });
export type BlameRange = z.infer<typeof BlameRangeSchema>;

const blameCommit = (c: CommitRow): BlameRange['commit'] => ({
  id: c.sha,
  parent_ids: c.parentShas,
  message: c.message,
  authored_date: commitDate(c.authoredAt),
  author_name: c.authorName,
  author_email: c.authorEmail,
  committed_date: commitDate(c.committedAt),
  committer_name: c.committerName,
  committer_email: c.committerEmail,
});

/**
 * Reads for the project's batch: the commits of the ref's history that changed the path, and the
 * path's blob in each (none where a commit removed it).
 */
export function blameReads(db: Db, projectId: SQL, ref: string, path: string) {
  const history = historyPage(db, projectId, { ref, path }, -1, 0);
  return [
    history,
    db
      .select({ sha: repoCommitFiles.commitSha, blobSha: repoCommitFiles.blobSha, size: repoCommitFiles.size })
      .from(repoCommitFiles)
      .where(and(sql`${repoCommitFiles.projectId} = ${projectId}`, eq(repoCommitFiles.path, path), sql`${repoCommitFiles.commitSha} IN (SELECT h.sha FROM ${history.as('h')})`)),
  ] as const;
}

/** The lines of a text as git blame counts them (a final newline ends the last line, it opens none). */
const linesOf = (bytes: Uint8Array | null) => {
  if (!bytes || !bytes.byteLength) return [];
  const lines = decoder.decode(bytes).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** The groups of lines `first`..`last` (1-based, inclusive) of the path at the newest commit of `history`. */
export async function blameGroups(c: Context<AppEnv>, projectId: number, history: CommitRow[], blobs: { sha: string; blobSha: string; size: number }[], first: number, last: number): Promise<BlameRange[]> {
  const blobOf = new Map(blobs.map((b) => [b.sha, b]));
  // Oldest first: each version's lines keep their commit where the diff from the previous version matches them.
  const versions = [...history].reverse();
  // A version without the path (removed there) or an empty one has no lines; only the others are fetched.
  const contents = await Promise.all(versions.map((v) => (blobOf.get(v.sha)?.size ? readBlob(c, projectId, blobOf.get(v.sha)!.blobSha) : Promise.resolve(null))));
  let lines: { text: string; commit: CommitRow }[] = [];
  versions.forEach((commit, i) => {
    const next = linesOf(contents[i]);
    const out: typeof lines = [];
    let at = 0;
    for (const part of diffArrays(lines.map((l) => l.text), next)) {
      const n = part.count ?? part.value.length;
      if (part.removed) at += n;
      else if (part.added) for (const text of part.value) out.push({ text, commit });
      else for (let k = 0; k < n; k++) out.push(lines[at++]);
    }
    lines = out;
  });
  const groups: BlameRange[] = [];
  let prev: string | null = null;
  for (const line of lines.slice(first - 1, last)) {
    if (line.commit.sha !== prev) groups.push({ commit: blameCommit(line.commit), lines: [] });
    groups[groups.length - 1].lines.push(line.text);
    prev = line.commit.sha;
  }
  return groups;
}
