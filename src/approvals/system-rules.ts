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
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { Db } from '../db/client';
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalProjectRules, approvalMergeRequestRulesUsers, mergeRequests, repoCommitFiles } from '../db/schema';
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

/** Repository#code_owners_blob: the first of CODEOWNERS, docs/CODEOWNERS, .gitlab/CODEOWNERS at `sha`; a binary file owns nothing. */
export async function codeOwnersFileAt(c: Context<AppEnv>, projectId: number, sha: string | null): Promise<CodeOwnersFile | null> {
  if (!sha) return null;
  // The three candidates in one read (already in the memo when the approval state was read in one batch: state-reads.ts).
  const found = await memo(c, `codeowners-candidates:${projectId}:${sha}`, () =>
    c.var.db.select().from(repoCommitFiles).where(and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha), inArray(repoCommitFiles.path, [...CODEOWNERS_PATHS]))).all(),
  );
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

/** The project's report approver rules with their users and groups, as statements copying them to the merge request. */
async function reportApproverStatements(c: Context<AppEnv>, mrId: number, projectId: number, now: number): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  // The project's rules as this request already read them (the approval state's batch, state-reads.ts), else read here.
  const config = peekMemo<{ projectRules: Pick<LoadedRule, 'id' | 'name' | 'ruleType' | 'reportType' | 'approvalsRequired'>[] }>(c, `approval-config:${projectId}`);
  const rules = config
    ? (await config).projectRules.filter((r) => r.ruleType === 'report_approver').sort((a, b) => a.id - b.id)
    : await db
        .select()
        .from(approvalProjectRules)
        .where(and(eq(approvalProjectRules.projectId, projectId), eq(approvalProjectRules.ruleType, 'report_approver')))
        .orderBy(approvalProjectRules.id)
        .all();
  const out: BatchItem<'sqlite'>[] = [];
  for (const r of rules) {
    out.push(
      db
        .insert(approvalMergeRequestRules)
        .values({ mergeRequestId: mrId, name: r.name, ruleType: 'report_approver', reportType: r.reportType, approvalsRequired: r.approvalsRequired, approvalProjectRuleId: r.id, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: [approvalMergeRequestRules.mergeRequestId, approvalMergeRequestRules.reportType],
          targetWhere: sql.raw(`rule_type = 'report_approver'`),
          set: { name: r.name, approvalsRequired: r.approvalsRequired, approvalProjectRuleId: r.id, updatedAt: now },
        }),
    );
    const ruleId = sql<number>`(SELECT ${approvalMergeRequestRules.id} FROM ${approvalMergeRequestRules} WHERE ${approvalMergeRequestRules.mergeRequestId} = ${mrId} AND ${approvalMergeRequestRules.ruleType} = 'report_approver' AND ${approvalMergeRequestRules.reportType} = ${r.reportType})`;
    out.push(
      db.delete(approvalMergeRequestRulesUsers).where(eq(approvalMergeRequestRulesUsers.ruleId, ruleId)),
      db.delete(approvalMergeRequestRulesGroups).where(eq(approvalMergeRequestRulesGroups.ruleId, ruleId)),
      db.insert(approvalMergeRequestRulesUsers).select(sql`SELECT ${ruleId}, user_id FROM approval_project_rules_users WHERE approval_project_rule_id = ${r.id}`).onConflictDoNothing(),
      db.insert(approvalMergeRequestRulesGroups).select(sql`SELECT ${ruleId}, group_id FROM approval_project_rules_groups WHERE approval_project_rule_id = ${r.id}`).onConflictDoNothing(),
    );
  }
  return out;
}

/** What the rules of an open merge request depend on. */
async function syncKey(c: Context<AppEnv>, mr: MergeRequestRow): Promise<{ key: string; targetHead: string | null; head: string | null }> {
  const [head, targetHead] = await Promise.all([memoBranchHead(c, mr.sourceProjectId, mr.sourceBranch), memoBranchHead(c, mr.projectId, mr.targetBranch)]);
  const key = JSON.stringify([systemRulesFeature(c) ? 1 : 0, mr.targetBranch, targetHead, head ?? mr.headSha ?? null]);
  return { key, targetHead, head: head ?? mr.headSha ?? null };
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
  const { key, targetHead, head } = await syncKey(c, mr);
  if (mr.systemRulesSyncedFor === key) return null;
  const db = c.var.db;
  const now = Date.now();
  let entries: CodeOwnerEntry[] = [];
  const reports: BatchItem<'sqlite'>[] = [];
  if (systemRulesFeature(c)) {
    reports.push(...(await reportApproverStatements(c, mr.id, mr.projectId, now)));
    // Gitlab::CodeOwners.entries_for_merge_request: none without a CODEOWNERS file on the target branch.
    const file = head && targetHead ? await codeOwnersFileAt(c, mr.projectId, targetHead) : null;
    if (file && head && targetHead) {
      // The merge base the last push stored with the merge request (merge-requests/refresh.ts) when it is for these heads.
      const base = storedMergeFacts(mr, targetHead, head)?.base ?? (await mergeBase(db, mr.projectId, targetHead, head));
      // The owners are resolved by the statements themselves (code-owner-rules.ts): no read here.
      entries = entriesForPaths(file, await modifiedPaths(db, mr.projectId, base, head)).filter((e) => !e.exclusion);
    }
  }
  const writes = [
    ...codeOwnerRuleStatements(db, mr.id, mr.projectId, entries, now),
    ...reports,
    // Only while it is still open: a merge finalizes the rules as they were.
    db.update(mergeRequests).set({ systemRulesSyncedFor: key }).where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'))),
  ];
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
