/**
 * The merge request part of the benchmark dataset (performance.md 4.3: 10k merge requests with ~20k
 * approvals and a 3-rule approval configuration; 3,609 of them in the GPT-sized project), written
 * with direct SQL like the rest of seed.ts.
 *
 * Merge requests read their HEAD, merge base and changed files from the repository tables on every
 * read (services/merge-requests.ts liveState), so each project with merge requests gets a small
 * repository: a `main` of MAIN_COMMITS commits over FILES, and one commit per merge request on its own
 * branch, forked from some commit of `main`. Commit and tree ids are sha1 digests of seed data, not git
 * objects, and no file contents are written: the measured endpoints read manifests (repo_commit_files),
 * never blobs.
 */
import { createHash } from 'node:crypto';
import { factsOf } from '../../src/repository/merge-facts';
import { patchIdOf } from '../../src/repository/patch-id';
import { diffManifests } from '../../src/repository/diffs';
import type { Manifest } from '../../src/repository/repository-store';
import type { Rng } from './rng';

export interface MrSeedProject {
  id: number;
  /** Top-level or subgroup namespace of a group project, null for a personal one. */
  groupId: number | null;
  users: number[];
  labels: number[];
  milestones: number[];
}

export interface MrSeedInput {
  r: Rng;
  insert: (table: string, row: Record<string, unknown>) => void;
  projects: MrSeedProject[];
  /** The GPT-sized project (gets `gptMergeRequests`), and the S5 approvers' ids (developers there, authors of nothing). */
  gptProjectId: number;
  approverIds: number[];
  total: number;
  gpt: number;
  approveCount: number;
  now: number;
  span: number;
  sentence: (r: Rng, lo: number, hi: number) => string;
}

export interface MrSeedResult {
  /** Open merge requests of the GPT project for S5, with their HEAD sha. */
  approve: { iid: number; sha: string }[];
  /** Merge request counts per project (iids run 1..n). */
  perProject: { id: number; mergeRequests: number }[];
}

const FILES = ['README.md', 'Gemfile', 'app/models/user.rb', 'app/models/project.rb', 'app/services/merge.rb', 'lib/api/issues.rb', 'lib/api/merge_requests.rb', 'spec/models/user_spec.rb', 'config/routes.rb', 'doc/index.md'];
const MAIN_COMMITS = 12;
const DAY = 86_400_000;

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
/** A commit's files as the repository reads them (repo_commit_files rows below: mode and size included). */
const manifestOf = (files: Map<string, string>): Manifest => new Map([...files].map(([path, blob]) => [path, { blobSha: blob, mode: '100644', size: 200 + (blob.charCodeAt(0) % 50) * 40 }]));

/**
 * The merge facts a push to the source branch stores on the row (src/merge-requests/refresh.ts), for
 * a merge request whose branch is still there: its merge base with main is the commit it was forked
 * from, and main's head is the target head.
 */
function storedFacts(mainHead: string, head: string, base: string, mainFiles: Map<string, string>, baseFiles: Map<string, string>, files: Map<string, string>) {
  const [b, t, s] = [manifestOf(baseFiles), manifestOf(mainFiles), manifestOf(files)];
  const facts = factsOf(base, { projectId: 0, targetHead: mainHead, head }, b, t, s);
  return {
    merge_facts_for: `${mainHead}:${head}`,
    merge_base_sha: facts.base,
    merge_conflict: facts.conflict,
    changed_files_count: facts.changes,
    merge_patch_id_sha: patchIdOf(diffManifests(b, s)),
  };
}

export function seedMergeRequests(x: MrSeedInput): MrSeedResult {
  const { r, insert } = x;
  // Counts: the GPT project's share, the rest spread unevenly over the other projects.
  const counts = new Map<number, number>();
  const others = x.projects.filter((p) => p.id !== x.gptProjectId);
  const weights = others.map(() => 0.1 + r.next() * r.next() * 3);
  const sum = weights.reduce((a, b) => a + b, 0);
  let left = x.total - x.gpt;
  counts.set(x.gptProjectId, x.gpt);
  others.forEach((p, i) => {
    const n = i === others.length - 1 ? left : Math.min(left, Math.round(((x.total - x.gpt) * weights[i]) / sum));
    counts.set(p.id, n);
    left -= n;
  });

  const approve: MrSeedResult['approve'] = [];
  let mrId = 1;
  let ruleId = 1;
  let noteSeq = 0;
  for (const p of x.projects) {
    const n = counts.get(p.id) ?? 0;
    if (n === 0) continue;
    const people = p.users.length ? p.users : [1];
    const created0 = x.now - x.span;

    // main: a root commit with every file, then one file changed per commit.
    const manifest = new Map(FILES.map((f) => [f, sha1(`blob:${p.id}:${f}:0`)]));
    const main: string[] = [];
    const commit = (sha: string, parent: string | null, generation: number, files: Map<string, string>, at: number, author: number, message: string) => {
      insert('repo_commits', {
        project_id: p.id,
        sha,
        tree_sha: sha1(`tree:${[...files].join()}`),
        parent_shas: JSON.stringify(parent ? [parent] : []),
        generation,
        message,
        author_name: `User ${author}`,
        author_email: `user${author}@example.com`,
        authored_at: at,
        committer_name: `User ${author}`,
        committer_email: `user${author}@example.com`,
        committed_at: at,
        user_id: author,
        additions: r.int(1, 40),
        deletions: r.int(0, 20),
      });
      if (parent) insert('repo_commit_parents', { project_id: p.id, sha, parent_sha: parent, position: 0 });
      for (const [path, blob] of files) insert('repo_commit_files', { project_id: p.id, commit_sha: sha, path, blob_sha: blob, mode: '100644', size: 200 + (blob.charCodeAt(0) % 50) * 40 });
    };
    for (let k = 0; k < MAIN_COMMITS; k++) {
      if (k > 0) {
        const f = FILES[k % FILES.length];
        manifest.set(f, sha1(`blob:${p.id}:${f}:${k}`));
      }
      const sha = sha1(`commit:${p.id}:main:${k}`);
      commit(sha, main[k - 1] ?? null, k + 1, manifest, created0 + k * DAY, people[k % people.length], k === 0 ? 'Initial commit' : `Update ${FILES[k % FILES.length]}`);
      main.push(sha);
    }
    const mainHead = main[main.length - 1];
    const mainManifests = main.map((_, k) => {
      const m = new Map(FILES.map((f) => [f, sha1(`blob:${p.id}:${f}:0`)]));
      for (let j = 1; j <= k; j++) m.set(FILES[j % FILES.length], sha1(`blob:${p.id}:${FILES[j % FILES.length]}:${j}`));
      return m;
    });
    insert('repo_branches', { project_id: p.id, name: 'main', commit_sha: mainHead, created_at: created0, updated_at: created0 + (MAIN_COMMITS - 1) * DAY });
    // The default branch is protected on first push (default_branch_protection: developers merge, maintainers push).
    insert('protected_branches', { id: p.id, project_id: p.id, name: 'main', created_at: created0, updated_at: created0 });
    for (const [kind, level] of [['push', 40], ['merge', 30], ['unprotect', 40]] as const) insert('protected_branch_access_levels', { protected_branch_id: p.id, kind, access_level: level, created_at: created0, updated_at: created0 });

    // Three approval rules, as performance.md 4.3 asks: any approver, a user rule, a group (or user) rule.
    insert('approval_project_rules', { id: ruleId, project_id: p.id, name: 'All Members', approvals_required: 1, rule_type: 'any_approver', created_at: created0, updated_at: created0 });
    ruleId++;
    insert('approval_project_rules', { id: ruleId, project_id: p.id, name: 'Backend', approvals_required: 1, rule_type: 'regular', created_at: created0, updated_at: created0 });
    const backend = r.sample(people, 4);
    if (p.id === x.gptProjectId) backend.push(...x.approverIds.slice(0, 5));
    for (const u of new Set(backend)) insert('approval_project_rules_users', { approval_project_rule_id: ruleId, user_id: u });
    ruleId++;
    insert('approval_project_rules', { id: ruleId, project_id: p.id, name: 'Security', approvals_required: 1, rule_type: 'regular', created_at: created0, updated_at: created0 });
    if (p.groupId != null) insert('approval_project_rules_groups', { approval_project_rule_id: ruleId, group_id: p.groupId });
    else for (const u of r.sample(people, 2)) insert('approval_project_rules_users', { approval_project_rule_id: ruleId, user_id: u });
    ruleId++;

    const times = Array.from({ length: n }, () => x.now - r.next() * (x.span - MAIN_COMMITS * DAY)).sort((a, b) => a - b);
    for (let i = 0; i < n; i++) {
      const iid = i + 1;
      const id = mrId++;
      const created = Math.round(times[i]);
      // S5 uses the newest merge requests of the GPT project: open and not drafts.
      const isApproveSet = p.id === x.gptProjectId && i >= n - x.approveCount;
      const state = isApproveSet ? 'opened' : r.chance(0.55) ? 'merged' : r.chance(0.3) ? 'closed' : 'opened';
      const author = r.pick(people);
      // Forked from a recent commit of main (most are one or two behind).
      const fork = Math.max(0, MAIN_COMMITS - 1 - Math.floor(r.next() * r.next() * MAIN_COMMITS));
      const files = new Map(mainManifests[fork]);
      const branch = `feature/mr-${iid}`;
      files.set(`changes/${iid}.md`, sha1(`blob:${p.id}:mr:${iid}`));
      // A fifth also edit a file of main; when main changed it after the fork, that merge request conflicts.
      if (r.chance(0.2)) {
        const f = r.pick(FILES);
        files.set(f, sha1(`blob:${p.id}:mr:${iid}:${f}`));
      }
      const head = sha1(`commit:${p.id}:mr:${iid}`);
      const title = `${r.chance(0.08) && !isApproveSet ? 'Draft: ' : ''}${x.sentence(r, 3, 9)}`;
      commit(head, main[fork], fork + 2, files, created, author, title);
      if (state !== 'merged') insert('repo_branches', { project_id: p.id, name: branch, commit_sha: head, created_at: created, updated_at: created });

      const updated = Math.min(x.now, created + Math.round(r.next() * r.next() * 30 * DAY));
      const done = state !== 'opened';
      const mergedBy = state === 'merged' ? r.pick(people) : null;
      insert('merge_requests', {
        id,
        project_id: p.id,
        iid,
        source_project_id: p.id,
        source_branch: branch,
        target_branch: 'main',
        title,
        description: x.sentence(r, 8, 30) + '.',
        state,
        draft: title.startsWith('Draft: '),
        author_id: author,
        milestone_id: r.chance(0.4) ? r.pick(p.milestones) : null,
        merge_user_id: mergedBy,
        merged_by_id: mergedBy,
        merged_at: state === 'merged' ? updated : null,
        closed_by_id: state === 'closed' ? r.pick(people) : null,
        closed_at: state === 'closed' ? updated : null,
        merge_commit_sha: state === 'merged' ? sha1(`merge:${p.id}:${iid}`) : null,
        merge_status: 'can_be_merged',
        head_sha: head,
        base_sha: main[fork],
        start_sha: done ? mainHead : main[fork],
        // Already built for the current heads (system-approval-rules.ts syncKey), so reads do not write.
        system_rules_synced_for: state === 'opened' ? JSON.stringify([1, 'main', mainHead, head]) : null,
        // As the push of its branch left them (a merged one's branch is gone: its facts are not read).
        ...(state !== 'merged' ? storedFacts(mainHead, head, main[fork], mainManifests[mainManifests.length - 1], mainManifests[fork], files) : {}),
        created_at: created,
        updated_at: updated,
      });
      insert('merge_request_diffs', { merge_request_id: id, state: 'collected', head_commit_sha: head, base_commit_sha: main[fork], start_commit_sha: main[fork], real_size: String([...files].filter(([f, b]) => mainManifests[fork].get(f) !== b).length), created_at: created, updated_at: created });
      if (r.chance(0.8)) insert('merge_request_assignees', { merge_request_id: id, user_id: author, position: 0, created_at: created });
      r.sample(people.filter((u) => u !== author), r.int(0, 2)).forEach((u, pos) => insert('merge_request_reviewers', { merge_request_id: id, user_id: u, state: 'unreviewed', position: pos, created_at: created }));
      for (const l of r.sample(p.labels, r.int(0, 3))) insert('label_links', { label_id: l, target_type: 'MergeRequest', target_id: id, created_at: created });
      // ~2 approvals per merge request (20k for 10k), at the HEAD they were given for; none from the S5 approvers.
      const approvers = r.sample(people.filter((u) => u !== author), r.int(0, 4));
      for (const u of approvers) insert('approvals', { merge_request_id: id, user_id: u, sha: head, created_at: updated, updated_at: updated });
      const nNotes = r.int(0, 3);
      for (let k = 0; k < nNotes; k++) {
        const at = created + Math.round(((updated - created) * (k + 1)) / (nNotes + 1));
        const system = k === 0;
        insert('notes', {
          noteable_type: 'MergeRequest',
          noteable_id: id,
          project_id: p.id,
          author_id: system ? author : r.pick(people),
          body: system ? 'added 1 commit\n\n<ul><li>' + head.slice(0, 8) + ' - ' + title + '</li></ul>' : `${x.sentence(r, 6, 24)}.`,
          system,
          discussion_id: sha1(`discussion:${++noteSeq}`),
          created_at: at,
          updated_at: at,
        });
      }
      if (isApproveSet) approve.push({ iid, sha: head });
    }
    insert('internal_ids', { usage: 'merge_requests', scope_id: p.id, last_value: n });
  }
  return { approve, perProject: x.projects.filter((p) => (counts.get(p.id) ?? 0) > 0).map((p) => ({ id: p.id, mergeRequests: counts.get(p.id)! })) };
}
