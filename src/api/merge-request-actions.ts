/** Merge request actions (GitLab lib/api/merge_requests.rb): merge, commits, changes and diffs. */
import type { Router } from '../lib/router';

export function mountMergeRequestActions(_r: Router) {}
