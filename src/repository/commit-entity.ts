/**
 * Entities::Commit, CommitStats, CommitDetail, Branch, Diff and Compare (lib/api/entities/commit*.rb,
 * branch.rb, diff.rb, compare.rb), in GitLab's field order. Pure.
 */
import { z } from 'zod';
import { id, int, obj } from '../platform/response-schemas';
import type { CommitRow } from './repository-store';

/** Commit dates as GitLab renders them (time zone of the commit, here always UTC: "+00:00"). */
export const commitDate = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');
/** What commitDate renders: ISO 8601 with milliseconds and the commit's offset. */
const commitTimestamp = z.iso.datetime({ precision: 3, offset: true });

/** Commit#title: the first line of the message. */
const titleOf = (message: string) => message.split('\n')[0].replace(/\r$/, '');

export const CommitSchema = obj({
  id: z.string(),
  short_id: z.string(),
  created_at: commitTimestamp,
  parent_ids: z.array(z.string()),
  title: z.string(),
  message: z.string(),
  author_name: z.string(),
  author_email: z.string(),
  authored_date: commitTimestamp,
  committer_name: z.string(),
  committer_email: z.string(),
  committed_date: commitTimestamp,
  /** Git trailers by key (Commit#trailers); none are parsed here. */
  trailers: z.record(z.string(), z.string()),
  /** Every value of each trailer key (Commit#extended_trailers); none are parsed here. */
  extended_trailers: z.record(z.string(), z.array(z.string())),
  web_url: z.string(),
}).meta({ id: 'Commit' });
export type Commit = z.infer<typeof CommitSchema>;

export function commitEntity(c: CommitRow, x: { base: string; projectFullPath: string }): Commit {
  return {
    id: c.sha,
    short_id: c.sha.slice(0, 8),
    created_at: commitDate(c.committedAt),
    parent_ids: c.parentShas,
    title: titleOf(c.message),
    message: c.message,
    author_name: c.authorName,
    author_email: c.authorEmail,
    authored_date: commitDate(c.authoredAt),
    committer_name: c.committerName,
    committer_email: c.committerEmail,
    committed_date: commitDate(c.committedAt),
    trailers: {},
    extended_trailers: {},
    web_url: `${x.base}/${x.projectFullPath}/-/commit/${c.sha}`,
  };
}

export const CommitStatsSchema = obj({ additions: int, deletions: int, total: int }).meta({ id: 'CommitStats' });
export type CommitStats = z.infer<typeof CommitStatsSchema>;

export const commitStats = (c: CommitRow): CommitStats => ({ additions: c.additions, deletions: c.deletions, total: c.additions + c.deletions });

export const CommitDetailSchema = CommitSchema.extend({
  /** Left out with `stats=false`. */
  stats: CommitStatsSchema.optional(),
  /** The last pipeline's status; no pipelines run here. */
  status: z.null(),
  project_id: id,
  /** Entities::Ci::PipelineBasic of the last pipeline; no pipelines run here. */
  last_pipeline: z.null(),
}).meta({ id: 'CommitDetail' });
export type CommitDetail = z.infer<typeof CommitDetailSchema>;

export function commitDetail(c: CommitRow, x: { base: string; projectFullPath: string; stats: boolean }): CommitDetail {
  return {
    ...commitEntity(c, x),
    ...(x.stats ? { stats: commitStats(c) } : {}),
    // No pipelines exist: CommitDetail's status and last_pipeline are null.
    status: null,
    project_id: c.projectId,
    last_pipeline: null,
  };
}

export interface BranchFacts {
  merged: boolean;
  protected: boolean;
  developersCanPush: boolean;
  developersCanMerge: boolean;
  canPush: boolean;
  default: boolean;
}

export const BranchSchema = obj({
  name: z.string(),
  commit: CommitSchema,
  merged: z.boolean(),
  protected: z.boolean(),
  developers_can_push: z.boolean(),
  developers_can_merge: z.boolean(),
  can_push: z.boolean(),
  default: z.boolean(),
  web_url: z.string(),
}).meta({ id: 'Branch' });
export type Branch = z.infer<typeof BranchSchema>;

export function branchEntity(name: string, commit: CommitRow, f: BranchFacts, x: { base: string; projectFullPath: string }): Branch {
  return {
    name,
    commit: commitEntity(commit, x),
    merged: f.merged,
    protected: f.protected,
    developers_can_push: f.developersCanPush,
    developers_can_merge: f.developersCanMerge,
    can_push: f.canPush,
    default: f.default,
    web_url: `${x.base}/${x.projectFullPath}/-/tree/${name.split('/').map(encodeURIComponent).join('/')}`,
  };
}

/** Entities::Diff of one changed file (built by diffs.ts `diffEntity`, which reads the blobs). */
export const DiffSchema = obj({
  diff: z.string(),
  collapsed: z.boolean(),
  too_large: z.boolean(),
  new_path: z.string(),
  old_path: z.string(),
  a_mode: z.string(),
  b_mode: z.string(),
  new_file: z.boolean(),
  renamed_file: z.boolean(),
  deleted_file: z.boolean(),
  generated_file: z.boolean(),
}).meta({ id: 'Diff' });
export type Diff = z.infer<typeof DiffSchema>;

export const CompareSchema = obj({
  /** The newest commit of the comparison, null when `to` has nothing `from` lacks. */
  commit: CommitSchema.nullable(),
  commits: z.array(CommitSchema),
  diffs: z.array(DiffSchema),
  compare_timeout: z.boolean(),
  compare_same_ref: z.boolean(),
  web_url: z.string(),
}).meta({ id: 'Compare' });
export type Compare = z.infer<typeof CompareSchema>;

/** Compare: `commits` oldest first (the newest is `commit`), diffs from the merge base (or `from` with `straight`). */
export function compareEntity(commits: CommitRow[], diffs: Diff[], x: { base: string; projectFullPath: string; fromSha: string; toSha: string; overflow?: boolean }): Compare {
  return {
    commit: commits.length ? commitEntity(commits[commits.length - 1], x) : null,
    commits: commits.map((cm) => commitEntity(cm, x)),
    diffs,
    compare_timeout: x.overflow ?? false,
    compare_same_ref: x.fromSha === x.toSha,
    web_url: `${x.base}/${x.projectFullPath}/-/compare/${x.fromSha}...${x.toSha}`,
  };
}
