/** Entities::Commit, CommitDetail, CommitStats and Branch (lib/api/entities/commit*.rb, branch.rb), in GitLab's field order. */
import type { CommitRow } from './repository';

/** Commit dates as GitLab renders them (time zone of the commit, here always UTC: "+00:00"). */
export const commitDate = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/** Commit#title: the first line of the message. */
const titleOf = (message: string) => message.split('\n')[0].replace(/\r$/, '');

export function commitEntity(c: CommitRow, x: { base: string; projectFullPath: string }) {
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

export const commitStats = (c: CommitRow) => ({ additions: c.additions, deletions: c.deletions, total: c.additions + c.deletions });

export function commitDetail(c: CommitRow, x: { base: string; projectFullPath: string; stats: boolean }) {
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

export function branchEntity(name: string, commit: CommitRow, f: BranchFacts, x: { base: string; projectFullPath: string }) {
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
