/**
 * Approval rules the system writes on merge requests:
 * - code owner rules (MergeRequests::SyncCodeOwnerApprovalRules, Gitlab::CodeOwners::Loader,
 *   UsersLoader, GroupsLoader): one `code_owner` rule per CODEOWNERS entry (section, pattern)
 *   owning a path the merge request changes, read from the target branch, with the entry's users
 *   (project members named by username or email) and groups (the project's group or its ancestors
 *   named by full path);
 * - report approver rules (MergeRequests::SyncReportApproverApprovalRules,
 *   ApprovalProjectRule#apply_report_approver_rules_to): the project's report approver rules
 *   (Coverage-Check) copied to the merge request, one per report type. No pipeline reports exist
 *   here, so nothing ever lowers their required approvals (as in GitLab without a pipeline).
 *
 * GitLab writes them when the merge request is created and from a worker after each push. Here the
 * merge request remembers what its rules were built from (`system_rules_synced_for`: the plan, the
 * target branch and its head, the source head), and whoever reads its rules rebuilds them first
 * when that changed, so a creation, a push, a merge into the target branch or a retargeting shows
 * on the next read, and a lost race heals on the one after.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { Db } from '../db/client';
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, mergeRequests, repoCommitFiles } from '../db/schema';
import { planAllows } from '../platform/plan';
import { type CodeOwnerEntry, type CodeOwnersFile, CODEOWNERS_PATHS, entriesForPaths, parseCodeOwners } from './code-owners';
import { codeOwnerRuleStatements } from './code-owner-rules';
import { forgetMemo, memo, peekMemo, primeMemo } from '../platform/read-memo';
import { type LoadedRule } from './rules';
import { mergeRequestRuleReads, mergeRequestRulesFrom } from './state-reads';
import { writeThenRead } from '../db/batch-reads';
import { diffManifests, manifestOf, memoBranchHead, mergeBase, readBlob, storedMergeFacts } from '../repository/repository';
import type { MergeRequestRow } from './state';

/** Licensed features `code_owners` and `report_approver_rules` (Premium: code owner approval, the coverage check). */
export const systemRulesFeature = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');

const decoder = new TextDecoder();

export type CodeOwnerCandidate = typeof repoCommitFiles.$inferSelect;

/** Repository#code_owners_blob: the first of CODEOWNERS, docs/CODEOWNERS, .gitlab/CODEOWNERS at `sha`; a binary file owns nothing. */
export async function codeOwnersFileAt(c: Context<AppEnv>, projectId: number, sha: string | null): Promise<CodeOwnersFile | null> {
  if (!sha) return null;
  // The three candidates in one read (already in the memo when the approval state was read in one batch: state-reads.ts).
  const found = await memo(c, `codeowners-candidates:${projectId}:${sha}`, () =>
    c.var.db.select().from(repoCommitFiles).where(and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha), inArray(repoCommitFiles.path, [...CODEOWNERS_PATHS]))).all(),
  );
  return codeOwnersFileOf(c, projectId, found);
}

/** The CODEOWNERS file among the candidates read at one commit (the blob store holds its bytes). */
async function codeOwnersFileOf(c: Context<AppEnv>, projectId: number, found: CodeOwnerCandidate[]): Promise<CodeOwnersFile | null> {
  for (const path of CODEOWNERS_PATHS) {
    const entry = found.find((f) => f.path === path);
    if (!entry) continue;
    const bytes = await readBlob(c, projectId, entry.blobSha);
    if (!bytes || bytes.subarray(0, 8000).includes(0)) return parseCodeOwners('');
    return parseCodeOwners(decoder.decode(bytes));
  }
  return null;
}

/** Paths a merge request changes between the merge base and its HEAD, old and new names of renames (MergeRequestDiff#modified_paths). */
async function modifiedPaths(db: Db, projectId: number, base: string | null, head: string): Promise<string[]> {
  const [a, b] = await Promise.all([manifestOf(db, projectId, base), manifestOf(db, projectId, head)]);
  return [...new Set(diffManifests(a, b).flatMap((ch) => [ch.oldPath, ch.newPath]))];
}

/** Entries owning the paths changed between `from` and `to` (Gitlab::CodeOwners.entries_since_merge_request_commit for a push). */
export async function entriesForChanges(c: Context<AppEnv>, projectId: number, file: CodeOwnersFile | null, from: string | null, to: string): Promise<CodeOwnerEntry[]> {
  if (!file) return [];
  return entriesForPaths(file, await modifiedPaths(c.var.db, projectId, from, to));
}

/**
 * The project's report approver rules copied to the merge request with their users and groups
 * (`mrId` may be a sub-select: a merge request the same batch creates), in SQL, so the copy needs no
 * read of the project's rules first: one rule per report type, upserted in the project rules' order,
 * its links replaced by its source's.
 */
function reportApproverStatements(db: Db, mrId: number | SQL, projectId: number, now: number): BatchItem<'sqlite'>[] {
  const sources = sql`(SELECT r.id FROM approval_project_rules r WHERE r.project_id = ${projectId} AND r.rule_type = 'report_approver')`;
  const copies = sql`(SELECT m.id FROM approval_merge_request_rules m WHERE m.merge_request_id = ${mrId} AND m.rule_type = 'report_approver' AND m.approval_project_rule_id IN ${sources})`;
  return [
    db
      .insert(approvalMergeRequestRules)
      // The table's columns in order: id, merge_request_id, name, approvals_required, rule_type, report_type, section, approval_project_rule_id, modified_from_project_rule, created_at, updated_at.
      // (Its WHERE keeps SQLite from reading the upsert's ON as a join's.)
      .select(
        sql`SELECT NULL, ${mrId}, r.name, r.approvals_required, 'report_approver', r.report_type, NULL, r.id, 0, ${now}, ${now}
          FROM approval_project_rules r WHERE r.project_id = ${projectId} AND r.rule_type = 'report_approver' ORDER BY r.id`,
      )
      .onConflictDoUpdate({
        target: [approvalMergeRequestRules.mergeRequestId, approvalMergeRequestRules.reportType],
        targetWhere: sql.raw(`rule_type = 'report_approver'`),
        set: { name: sql`excluded.name`, approvalsRequired: sql`excluded.approvals_required`, approvalProjectRuleId: sql`excluded.approval_project_rule_id`, updatedAt: now },
      }),
    db.delete(approvalMergeRequestRulesUsers).where(sql`${approvalMergeRequestRulesUsers.ruleId} IN ${copies}`),
    db.delete(approvalMergeRequestRulesGroups).where(sql`${approvalMergeRequestRulesGroups.ruleId} IN ${copies}`),
    db
      .insert(approvalMergeRequestRulesUsers)
      .select(sql`SELECT m.id, l.user_id FROM approval_merge_request_rules m JOIN approval_project_rules_users l ON l.approval_project_rule_id = m.approval_project_rule_id WHERE m.id IN ${copies}`)
      .onConflictDoNothing(),
    db
      .insert(approvalMergeRequestRulesGroups)
      .select(sql`SELECT m.id, l.group_id FROM approval_merge_request_rules m JOIN approval_project_rules_groups l ON l.approval_project_rule_id = m.approval_project_rule_id WHERE m.id IN ${copies}`)
      .onConflictDoNothing(),
  ];
}

/** What a merge request's system rules are built from (its `system_rules_synced_for` once built): the plan, the target branch and its head, the source head. */
export const systemRulesKey = (c: Context<AppEnv>, targetBranch: string, targetHead: string | null, head: string | null) => JSON.stringify([systemRulesFeature(c) ? 1 : 0, targetBranch, targetHead, head]);

/**
 * The statements that make the system-written rules of the merge request `mrId` (a sub-select for
 * one the same batch creates) those of the heads: the report approver copies and the code owner
 * rules of the CODEOWNERS file (`file`, read at `targetHead`) owning what changed since the merge
 * base (`base`, asked only when there is a file).
 */
async function rebuildStatements(
  c: Context<AppEnv>,
  mrId: number | SQL,
  projectId: number,
  heads: { targetHead: string | null; head: string | null; file: () => Promise<CodeOwnersFile | null>; base: () => Promise<string | null> },
  now: number,
): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  let entries: CodeOwnerEntry[] = [];
  const reports: BatchItem<'sqlite'>[] = [];
  if (systemRulesFeature(c)) {
    reports.push(...reportApproverStatements(db, mrId, projectId, now));
    // Gitlab::CodeOwners.entries_for_merge_request: none without a CODEOWNERS file on the target branch.
    const { head, targetHead } = heads;
    const file = head && targetHead ? await heads.file() : null;
    if (file && head && targetHead) {
      // The owners are resolved by the statements themselves (code-owner-rules.ts): no read here.
      entries = entriesForPaths(file, await modifiedPaths(db, projectId, await heads.base(), head)).filter((e) => !e.exclusion);
    }
  }
  return [...codeOwnerRuleStatements(db, mrId, projectId, entries, now), ...reports];
}

/**
 * The statements rebuilding the system-written rules of an open merge request when what they were
 * built from changed (merged and closed merge requests keep theirs: SyncCodeOwnerApprovalRules
 * returns when merged, RefreshService syncs open ones), the new sync key with them; null when the
 * rules are current. A write of the merge request's rules may send them at the head of its own
 * batch (merge-request-rules.ts) instead of paying a round trip for them.
 */
export async function systemRulesRebuild(c: Context<AppEnv>, mr: MergeRequestRow): Promise<{ writes: BatchItem<'sqlite'>[]; key: string } | null> {
  if (mr.state !== 'opened') return null;
  const [head, targetHead] = await Promise.all([memoBranchHead(c, mr.sourceProjectId, mr.sourceBranch), memoBranchHead(c, mr.projectId, mr.targetBranch)]);
  return systemRulesRebuildAt(c, mr, { head, targetHead });
}

/**
 * systemRulesRebuild with the branch heads known (an update reads them in its first batch), and the
 * CODEOWNERS candidates at the target head when read there too (codeOwnersCandidatesRead). `mr` is
 * the merge request as the write will leave it (another target branch, reopened).
 */
export async function systemRulesRebuildAt(
  c: Context<AppEnv>,
  mr: MergeRequestRow,
  heads: { head: string | null; targetHead: string | null },
  candidates?: CodeOwnerCandidate[],
): Promise<{ writes: BatchItem<'sqlite'>[]; key: string } | null> {
  if (mr.state !== 'opened') return null;
  const { targetHead } = heads;
  const head = heads.head ?? mr.headSha ?? null;
  const key = systemRulesKey(c, mr.targetBranch, targetHead, head);
  if (mr.systemRulesSyncedFor === key) return null;
  const db = c.var.db;
  const rebuild = await rebuildStatements(
    c,
    mr.id,
    mr.projectId,
    {
      targetHead,
      head,
      file: () => (candidates ? codeOwnersFileOf(c, mr.projectId, candidates) : codeOwnersFileAt(c, mr.projectId, targetHead)),
      // The merge base the last push stored with the merge request (merge-requests/refresh.ts) when it is for these heads.
      base: async () => storedMergeFacts(mr, targetHead!, head!)?.base ?? (await mergeBase(db, mr.projectId, targetHead!, head!)),
    },
    Date.now(),
  );
  const writes = [
    ...rebuild,
    // Only while it is still open: a merge finalizes the rules as they were.
    db.update(mergeRequests).set({ systemRulesSyncedFor: key }).where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'))),
  ];
  return { writes, key };
}

/** The CODEOWNERS candidates at the head of `targetBranch` (`projectId` SQL; the branch's name, or SQL), for the batch that reads what a merge request write needs. */
export const codeOwnersCandidatesRead = (db: Db, projectId: SQL, targetBranch: string | SQL) =>
  db
    .select()
    .from(repoCommitFiles)
    .where(
      and(
        sql`${repoCommitFiles.projectId} = ${projectId}`,
        sql`${repoCommitFiles.commitSha} = (SELECT b.commit_sha FROM repo_branches b WHERE b.project_id = ${projectId} AND b.name = ${targetBranch})`,
        inArray(repoCommitFiles.path, [...CODEOWNERS_PATHS]),
      ),
    );

/**
 * The system-written rules of a merge request the same batch creates (`mrId` a sub-select), built
 * as a push would build them (MergeRequests::CreateService's after_create sync), and the sync key
 * its row is inserted with, so reading its rules afterwards rebuilds nothing. `candidates` are the
 * CODEOWNERS candidates read at `targetHead` (codeOwnersCandidatesRead).
 */
export async function newMergeRequestSystemRules(
  c: Context<AppEnv>,
  m: { mrId: SQL; projectId: number; targetBranch: string; targetHead: string; head: string; base: string | null; candidates: CodeOwnerCandidate[]; now: number },
): Promise<{ writes: BatchItem<'sqlite'>[]; key: string }> {
  const key = systemRulesKey(c, m.targetBranch, m.targetHead, m.head);
  // Without the features there is nothing to build (nor, on a new merge request, to delete).
  if (!systemRulesFeature(c)) return { writes: [], key };
  const writes = await rebuildStatements(c, m.mrId, m.projectId, { targetHead: m.targetHead, head: m.head, file: () => codeOwnersFileOf(c, m.projectId, m.candidates), base: async () => m.base }, m.now);
  return { writes, key };
}

/** Rebuilds the system-written rules of an open merge request when stale (systemRulesRebuild), in one batch. */
export async function ensureSystemRules(c: Context<AppEnv>, mr: MergeRequestRow): Promise<void> {
  const rebuild = await systemRulesRebuild(c, mr);
  if (!rebuild) return;
  const db = c.var.db;
  // A page being presented may hold the rules read before this rebuild (approval-rules.ts primeApprovalReads):
  // they are replaced by what the batch reads back (the rules with their users, groups and group
  // members) when the project's rules (their sources) are at hand; else the next reader loads them.
  const config = peekMemo<{ projectRules: LoadedRule[] }>(c, `approval-config:${mr.projectId}`);
  if (!config) {
    await db.batch(rebuild.writes as unknown as Parameters<Db['batch']>[0]);
    mr.systemRulesSyncedFor = rebuild.key;
    forgetMemo(c, `mr-rules:${mr.id}`);
    return;
  }
  const reads = await writeThenRead(db, rebuild.writes, mergeRequestRuleReads(db, mr.id));
  mr.systemRulesSyncedFor = rebuild.key;
  forgetMemo(c, `mr-rules:${mr.id}`);
  primeMemo(c, [[`mr-rules:${mr.id}`, mergeRequestRulesFrom(reads, (await config).projectRules)]]);
}
