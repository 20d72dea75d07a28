/**
 * One file written through the repository files API (lib/api/files.rb -> Files::CreateService,
 * UpdateService, DeleteService, all Commits::CreateService): GitLab's checks in its order, then one
 * commit through the commit writer, with the push's consequences (push.ts hooks) in its batch.
 * A write costs one round trip of reads and one batch.
 */
import { sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { repoBranches } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, forbidden, validationFailed } from '../platform/errors';
import { checkText, MAX_TEXT_SIZE, NAME_MAX } from '../platform/text-limits';
import { withReadMemo } from '../platform/read-memo';
import { settingsOf } from '../settings/settings';
import { buildCommit, type CommitAction, CommitError, isValidBranchName, storeCommit } from './commit-writer';
import { branchSha, commitAt, lastCommitForPathAt, manifestRows, refSha } from './history-reads';
import { canPushCode, canPushToBranch, defaultBranchProtectionStatements, primeProtectedBranches, projectProtectedBranchReads } from './protected-branches';
import { pushReads, pushStatements } from './push';
import { rememberManifest } from './repository-store';
import { apiMessage, readableRepoWith } from './repository-support';

export interface FileWrite {
  /** The project's id or full path, as in the URL. */
  id: string;
  branch: string;
  /** Files::BaseService: `start_branch || branch`. */
  startBranch?: string;
  message: string;
  authorName?: string;
  authorEmail?: string;
  /** The change, and a `chmod` when `execute_filemode` is given (Repository#update_file). */
  actions: CommitAction[];
  /** Files::UpdateService: the file must not have changed since this commit (`last_commit_id`). */
  lastCommitId?: string;
}

const COMMIT_TEXT = { commit_message: { max: MAX_TEXT_SIZE }, author_name: { max: NAME_MAX }, author_email: { max: NAME_MAX } };

/**
 * Ruby's Base64.decode64 (`unpack1('m')`), which Files::BaseService applies to `encoding=base64`:
 * characters outside the alphabet are skipped and decoding stops at padding, so GitLab never
 * refuses a body as bad base64; it stores what the lenient decoding yields.
 */
export function rubyDecode64(text: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const out: number[] = [];
  let bits = 0;
  let n = 0;
  for (const ch of text) {
    if (ch === '=') break;
    const v = alphabet.indexOf(ch);
    if (v < 0) continue;
    bits = (bits << 6) | v;
    n += 6;
    if (n >= 8) {
      n -= 8;
      out.push((bits >> n) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

/** Writes the commit; answers GitLab's refusals as ApiErrors. Returns the stored commit's sha. */
export async function writeFile(c: Context<AppEnv>, caller: Caller, w: FileWrite): Promise<string> {
  const db = c.var.db;
  const startBranch = w.startBranch ?? w.branch;
  const path = w.actions[0].file_path;
  let hookReads: ReturnType<typeof pushReads> | undefined;
  // One round trip: the project, whether its repository is empty, the branch and the start branch,
  // the protection rules, the start commit and its files, the last commits of the path (from the
  // start branch and from `last_commit_id`) and what the push hooks read.
  const found = await readableRepoWith(c, caller, w.id, (projectId) => {
    const start = branchSha(projectId, startBranch);
    hookReads = pushReads(db, projectId, w.branch);
    return [
      db.select({ one: sql`1` }).from(repoBranches).where(sql`${repoBranches.projectId} = ${projectId}`).limit(1),
      db
        .select()
        .from(repoBranches)
        .where(sql`${repoBranches.projectId} = ${projectId} AND ${repoBranches.name} IN (${w.branch}, ${startBranch})`),
      ...projectProtectedBranchReads(db, projectId),
      commitAt(db, projectId, start),
      manifestRows(db, projectId, start),
      ...(w.lastCommitId !== undefined ? [lastCommitForPathAt(db, projectId, start, path), lastCommitForPathAt(db, projectId, refSha(projectId, w.lastCommitId), path)] : []),
      ...hookReads.list,
    ] as const;
  });
  const [any, branches, pbRows, pbLevels, [startCommit], startFiles] = found.reads;
  const rest = found.reads.slice(6) as unknown[];
  const lastChecks = w.lastCommitId !== undefined ? (rest.splice(0, 2) as { sha: string | null }[][]) : [];
  const prefetched = hookReads!.take(rest);
  const pid = found.project.id;
  const empty = any.length === 0;
  // files.rb: `user_project` (404 when hidden), then `authorize! :push_code` (a plain 403), before any service check.
  if (!canPushCode(caller, found.level, found.project.archived)) throw forbidden();
  const user = caller.user!;
  // Commits::CreateService#validate!: everything below is the service's error, answered 400.
  const allowed = await withReadMemo(c, async () => {
    primeProtectedBranches(c, pbRows, pbLevels, [{ projectId: pid, name: w.branch }]);
    return canPushToBranch(c, caller, found.level, pid, w.branch, { emptyRepo: empty, archived: found.project.archived });
  });
  if (!allowed) throw apiMessage(400, 'You are not allowed to push into this branch');
  const start = branches.find((b) => b.name === startBranch);
  const target = branches.find((b) => b.name === w.branch);
  if (!empty && !start) throw apiMessage(400, 'You can only create or edit files when you are on a branch');
  const different = startBranch !== w.branch;
  if (!empty && different && target) throw apiMessage(400, `A branch called '${w.branch}' already exists. Switch to that branch in order to make changes`);
  if (!isValidBranchName(w.branch)) throw apiMessage(400, different ? `Something went wrong when we tried to create '${w.branch}' for you: Branch name is invalid` : 'Branch name is invalid');
  // Files::UpdateService#validate!: the path's last commit seen from the branch and from `last_commit_id` differ.
  const [fromBranch, fromGiven] = lastChecks.map((rows) => rows[0]?.sha ?? null);
  if (fromBranch && fromGiven && fromBranch !== fromGiven) throw apiMessage(400, 'You are attempting to update a file that has changed since you started editing it.');
  const textErrors = checkText({}, { commit_message: w.message, author_name: w.authorName, author_email: w.authorEmail }, COMMIT_TEXT);
  if (Object.keys(textErrors).length) throw validationFailed(textErrors);

  const parent = start?.commitSha ?? null;
  let written;
  try {
    written = await buildCommit(c, {
      projectId: pid,
      branch: w.branch,
      parent,
      expectedHead: target?.commitSha ?? null,
      message: w.message,
      author: { name: w.authorName ?? user.name, email: w.authorEmail ?? user.email },
      // Gitaly writes the API user as the committer.
      committer: { name: user.name, email: user.email },
      userId: user.id,
      actions: w.actions,
      ...(parent === null ? { generations: [] } : startCommit?.sha === parent ? { parentRead: { files: rememberManifest(db, pid, parent, startFiles), lastCommits: new Map() }, generations: [startCommit.generation] } : {}),
    });
  } catch (err) {
    if (err instanceof CommitError) throw apiMessage(400, err.message);
    throw err;
  }
  const settings = (await settingsOf(c)) as Record<string, unknown>;
  const defaultBranch = found.project.defaultBranch ?? w.branch;
  const protect = empty && w.branch === defaultBranch ? defaultBranchProtectionStatements(db, found.project, w.branch, settings, { now: written.commit.committedAt }) : [];
  const oldSha = target?.commitSha ?? null;
  const hooks = await pushStatements(c, { projectId: pid, branch: w.branch, oldSha, commits: [written.commit], manifest: written.files, from: parent, user, at: Date.now(), blobs: written.blobs }, prefetched);
  const stored = await storeCommit(c, written, [...protect, ...hooks]);
  // Lost a race with another push to the same branch: Gitaly's answer for a moved ref.
  if (!stored) throw apiMessage(400, `Could not update refs/heads/${w.branch}. Please refresh and try again.`);
  return written.commit.sha;
}

/**
 * The `file_path: true` validator (lib/api/validations/validators/file_path.rb): Gitlab::PathTraversal
 * refuses `.`, `..` and `../` segments (also percent-encoded once more, and a newline), then an
 * absolute path; `raw` allows one leading separator, which it drops.
 */
export function checkFilePath(path: string, opts: { allowInitialSeparator?: boolean } = {}): string {
  const invalid = () => new ApiError(400, { error: 'file_path should be a valid file path' });
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not percent-encoded text: checked as given.
  }
  for (const p of new Set([path, decoded])) if (/^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n/.test(p)) throw invalid();
  const out = opts.allowInitialSeparator ? path.replace(/^\//, '') : path;
  if (out.startsWith('/')) throw invalid();
  return out;
}
