/**
 * A merge request's `merge_request_diff` from the archive (its merge_request_diff_files and
 * merge_request_diff_commits), kept when the imported repository lacks the merge request's commits:
 * then no version can be computed from base..head, and the archive's is the only one there is.
 * Statements only (the merge request's line writes them in its own batch); each matches nothing
 * when the merge request found its head in the repository (head_sha set), so a version read from
 * the repository is never shadowed by the archive's copy.
 */
import { sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { mergeRequestDiffCommits, mergeRequestDiffFiles, mergeRequestDiffs } from '../db/schema';
import type { Db } from '../db/client';
import { patchTooLarge } from '../repository/diff-limits';

type Row = Record<string, unknown>;
type Stmt = BatchItem<'sqlite'>;

/** MergeRequestDiff::COMMITS_SAFE_SIZE, the commits GitLab keeps of one version. */
const MAX_COMMITS = 1000;
/** The settings' defaults, for a caller that passes none: diff_max_files and diff_max_patch_bytes. */
const DEFAULT_LIMITS = { maxFiles: 1000, maxPatchBytes: 204800 };

const str = (v: unknown, max: number): string | null => (typeof v === 'string' ? v.slice(0, max) : null);
const list = (v: unknown): Row[] => (Array.isArray(v) ? v.filter((x): x is Row => !!x && typeof x === 'object' && !Array.isArray(x)) : []);
const flag = (v: unknown) => (v === true ? 1 : 0);
const mode = (v: unknown) => (typeof v === 'string' && /^[0-7]{1,6}$/.test(v) ? v : '0');
const time = (v: unknown): number | null => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : null;
};

/**
 * `ctx`: the import's storage and new project (import-relations.ts ImportContext), and the settings'
 * diff limits: GitLab collects no more than diff_max_files files for a version (Commit.max_diff_options),
 * and a patch of diff_max_patch_bytes or more is kept `too_large` with no text (Gitlab::Git::Diff#too_large?).
 */
export function archiveDiffStatements(ctx: { db: Db; projectId: number; diffLimits?: { maxFiles: number; maxPatchBytes: number } }, iid: number, diff: Row | null): Stmt[] {
  if (!diff) return [];
  const limits = ctx.diffLimits ?? DEFAULT_LIMITS;
  const files = list(diff.merge_request_diff_files).slice(0, limits.maxFiles);
  const commits = list(diff.merge_request_diff_commits).slice(0, MAX_COMMITS);
  if (!files.length && !commits.length) return [];
  const P = ctx.projectId;
  const state = diff.state === 'empty' || diff.state === 'overflow' ? diff.state : 'collected';
  const realSize = str(diff.real_size, 16);
  // The version: the merge request's, only when the repository gave it no head. Its shas stay
  // null: they name commits this server does not hold.
  const out: Stmt[] = [
    ctx.db.insert(mergeRequestDiffs).select(sql`SELECT NULL, id, ${state}, NULL, NULL, NULL, ${realSize}, NULL, created_at, updated_at FROM merge_requests WHERE project_id = ${P} AND iid = ${iid} AND head_sha IS NULL`),
  ];
  const versionId = sql`(SELECT max(d.id) FROM merge_request_diffs d JOIN merge_requests m ON m.id = d.merge_request_id WHERE m.project_id = ${P} AND m.iid = ${iid} AND m.head_sha IS NULL)`;
  for (const [order, f] of files.entries()) {
    const newPath = str(f.new_path, 4096);
    const oldPath = str(f.old_path, 4096) ?? newPath;
    if (!newPath || !oldPath) continue;
    // No more than the limit's worth of UTF-16 units is kept: past it, the patch is too large in any encoding.
    const text = str(f.utf8_diff ?? f.diff, limits.maxPatchBytes) ?? '';
    const tooLarge = f.too_large === true || patchTooLarge(text, limits.maxPatchBytes);
    out.push(
      ctx.db
        .insert(mergeRequestDiffFiles)
        .select(
          sql`SELECT NULL, id, ${order}, ${oldPath}, ${newPath}, ${mode(f.a_mode)}, ${mode(f.b_mode)}, ${flag(f.new_file)}, ${flag(f.renamed_file)}, ${flag(f.deleted_file)}, ${tooLarge ? 1 : 0}, ${flag(f.binary)}, ${tooLarge ? '' : text} FROM merge_request_diffs WHERE id = ${versionId}`,
        ),
    );
  }
  for (const [order, c] of commits.entries()) {
    const sha = str(c.sha, 64);
    if (!sha || !/^[0-9a-f]{40}$/.test(sha)) continue;
    out.push(
      ctx.db
        .insert(mergeRequestDiffCommits)
        .select(
          sql`SELECT NULL, id, ${order}, ${sha}, ${str(c.message, 100_000) ?? ''}, ${str(c.author_name, 255)}, ${str(c.author_email, 255)}, ${time(c.authored_date)}, ${str(c.committer_name, 255)}, ${str(c.committer_email, 255)}, ${time(c.committed_date)} FROM merge_request_diffs WHERE id = ${versionId}`,
        ),
    );
  }
  return out;
}
