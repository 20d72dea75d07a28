/**
 * The diff limits of the application settings (`diff_max_patch_bytes`, `diff_max_files`,
 * `diff_max_lines`) as GitLab applies them:
 * - one file (Gitlab::Git::Diff#too_large?): a patch of diff_max_patch_bytes or more is pruned to ''
 *   with `too_large: true`, wherever diffs are shown;
 * - a collection (Gitlab::Git::DiffCollection, limits from Commit.max_diff_options): it stops at
 *   max_files files, or at the file that brings its lines to max_lines or its bytes to
 *   max_files * 5 KB (that file is dropped), and says it overflowed. When not `expanded`, a patch of
 *   a tenth of diff_max_patch_bytes or more, and every patch after the safe limits (a tenth of the
 *   files and lines), is collapsed (pruned to '', `collapsed: true`) unless the collection has one file.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { settingsOf } from '../settings/settings';
import type { Diff } from './commit-entity';

export interface DiffLimits {
  maxPatchBytes: number;
  maxFiles: number;
  maxLines: number;
}

/** Commit::DIFF_SAFE_LIMIT_FACTOR: the safe limits are a tenth of the hard ones. */
const SAFE_FACTOR = 10;
/** DiffCollection.limits: max_bytes is max_files * 5 KB ("average 5 KB per file"). */
const BYTES_PER_FILE = 5 * 1024;

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback);

/** The limits of this request's settings (settingsOf: cached, no round trip of its own once warm). */
export async function diffLimitsOf(c: Context<AppEnv>): Promise<DiffLimits> {
  const s = await settingsOf(c);
  return { maxPatchBytes: num(s.diff_max_patch_bytes, 204800), maxFiles: num(s.diff_max_files, 1000), maxLines: num(s.diff_max_lines, 50000) };
}

const encoder = new TextEncoder();
/** String#bytesize; the UTF-16 length bounds it (a code unit is at most 3 UTF-8 bytes), so most patches are not encoded. */
export function byteSize(s: string, atLeast?: number): number {
  if (atLeast !== undefined && s.length * 3 < atLeast) return s.length;
  let ascii = true;
  for (let i = 0; i < s.length; i++)
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  return ascii ? s.length : encoder.encode(s).length;
}

/** Gitlab::Git::Util.count_lines. */
export function lineCount(s: string): number {
  if (!s) return 0;
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return s.endsWith('\n') ? n : n + 1;
}

/** Gitlab::Git::Diff#too_large?: the patch reaches diff_max_patch_bytes. */
export const patchTooLarge = (patch: string, maxPatchBytes: number) => patch.length > 0 && byteSize(patch, maxPatchBytes) >= maxPatchBytes;

/** Diff#too_large! on an entity: pruned, `too_large: true`. */
export const tooLargeDiff = (d: Diff): Diff => ({ ...d, diff: '', too_large: true });

/** An entity whose patch is too large for the limits, pruned (archive-stored diffs are checked again on reading). */
export const withPatchLimit = (d: Diff, l: DiffLimits): Diff => (patchTooLarge(d.diff, l.maxPatchBytes) ? tooLargeDiff(d) : d);

export interface CollectOptions {
  /** `expanded` (Diff.new): false collapses big patches and those past the safe limits. */
  expanded: boolean;
  /** `limits` (DiffCollection @enforce_limits): false collects every file, expanded. */
  enforce: boolean;
}

/** DiffCollection#each_serialized_patch over entities already limited one by one: what is kept, and whether it overflowed. */
export function collectDiffs(diffs: readonly Diff[], l: DiffLimits, o: CollectOptions): { diffs: Diff[]; overflow: boolean } {
  const maxBytes = l.maxFiles * BYTES_PER_FILE;
  const safeFiles = Math.floor(l.maxFiles / SAFE_FACTOR);
  const safeLines = Math.floor(l.maxLines / SAFE_FACTOR);
  const safeBytes = safeFiles * BYTES_PER_FILE;
  const safePatchBytes = Math.floor(l.maxPatchBytes / SAFE_FACTOR);
  // DiffCollection#expand_diff?: a single-file collection always shows expanded.
  const expand = diffs.length === 1 || !o.enforce || o.expanded;
  const out: Diff[] = [];
  let lines = 0;
  let bytes = 0;
  for (const [i, original] of diffs.entries()) {
    if (o.enforce && i >= l.maxFiles) return { diffs: out, overflow: true };
    let d = original;
    // Diff#collapsed?: not expanded and at least the safe patch size.
    if (!expand && !d.too_large && d.diff && byteSize(d.diff, safePatchBytes) >= safePatchBytes) d = { ...d, diff: '', collapsed: true };
    // over_safe_limits?: past a tenth of the files, lines or bytes, the rest collapse.
    if (!expand && d.diff && (i >= safeFiles || lines > safeLines || bytes >= safeBytes)) d = { ...d, diff: '', collapsed: true };
    lines += lineCount(d.diff);
    bytes += byteSize(d.diff);
    // The file that reaches the lines or bytes limit is dropped.
    if (o.enforce && (lines >= l.maxLines || bytes >= maxBytes)) return { diffs: out, overflow: true };
    out.push(d);
  }
  return { diffs: out, overflow: false };
}

/**
 * A collection as the API shows it: the files the limits keep, counted on their whole patches (Gitaly's
 * limits, or MergeRequestDiff#save_diffs, which collect expanded); then, unless `expanded`, the big
 * patches and those past the safe limits collapsed as Diff.new does when reading. `raw` (`limits: false`)
 * keeps every file, expanded, and never overflows.
 */
export function limitDiffs(diffs: readonly Diff[], l: DiffLimits, o: { expanded: boolean; raw?: boolean }): { diffs: Diff[]; overflow: boolean } {
  if (o.raw) return { diffs: [...diffs], overflow: false };
  const kept = collectDiffs(diffs, l, { expanded: true, enforce: true });
  return o.expanded ? kept : { diffs: collectDiffs(kept.diffs, l, { expanded: false, enforce: true }).diffs, overflow: kept.overflow };
}
