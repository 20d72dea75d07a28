/**
 * The merge request's approval state as ApprovalState reads it: the project's configuration, the
 * merge request's rules, its HEAD, committers and the approvals valid there, fed to the arithmetic
 * of state.ts (GitLab ee/app/models/approval_state.rb, merge_request_policy.rb).
 */
import { asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { approvalMergeRequestRules, approvals, users } from '../db/schema';
import { isMemoised, memo, peekMemo, primeMemo } from '../platform/read-memo';
import { repo } from '../merge-requests/merge-request-repo';
import { commitsBetween, memoBranchHead, mergeFacts } from '../repository/repository';
import { memoProtectedBranchRows } from '../repository/protected-branches';
import { type ApprovalState, type ApprovalStateInput, computeApprovalState, type MergeRequestRow, refMatches, type RuleInput } from './state';
import { codeOwnersFileAt, ensureSystemRules } from './system-rules';
import { type CodeOwnersFile, isOptionalSection } from './code-owners';
import { mergeRequestPatchId, storedPatchId } from '../repository/patch-id';
import { chunks } from '../platform/chunks';
import {
  type ApprovalRow,
  approvalsFeature,
  attachSources,
  effectiveSettings,
  hydrate,
  isUserDefined,
  type LoadedRule,
  loadMergeRequestRules,
  loadProjectRules,
  loadSettings,
  multipleRulesFeature,
  type ProtectedBranchRow,
  type SettingsRow,
  usersByIds,
} from './rules';

/** A project's protected branches and approval rules, read once per memo (platform/read-memo.ts). */
export function approvalConfig(c: Context<AppEnv>, projectId: number): Promise<{ branches: ProtectedBranchRow[]; projectRules: LoadedRule[] }> {
  return memo(c, `approval-config:${projectId}`, async () => {
    const branches = await memoProtectedBranchRows(c, projectId);
    return { branches, projectRules: await loadProjectRules(c.var.db, projectId, undefined, branches) };
  });
}

/**
 * For a page of merge requests inside a memo: their approvals, their rules and the approving users,
 * each in one query for the page instead of one per merge request (loadApprovalState reads them
 * from the memo). The system rules' lazy rebuild forgets a merge request's rules when it rewrites them.
 */
export async function primeApprovalReads(c: Context<AppEnv>, mrs: MergeRequestRow[]): Promise<void> {
  if (!isMemoised(c) || !mrs.length) return;
  const db = c.var.db;
  const ids = mrs.map((m) => m.id);
  const approvalRows: ApprovalRow[] = [];
  const ruleRows: (typeof approvalMergeRequestRules.$inferSelect)[] = [];
  for (const part of chunks(ids)) {
    approvalRows.push(...(await db.select().from(approvals).where(inArray(approvals.mergeRequestId, part)).orderBy(asc(approvals.createdAt), asc(approvals.id)).all()));
    ruleRows.push(...(await db.select().from(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.mergeRequestId, part)).orderBy(asc(approvalMergeRequestRules.id)).all()));
  }
  const [loaded, approvers] = await Promise.all([hydrate(db, 'merge_request', ruleRows, null), usersByIds(db, approvalRows.map((a) => a.userId))]);
  const entries: [string, unknown][] = [];
  for (const mr of mrs) {
    const at = ruleRows.flatMap((r, i) => (r.mergeRequestId === mr.id ? [i] : []));
    const rules = at.map((i) => loaded[i]);
    if (at.some((i) => ruleRows[i].approvalProjectRuleId != null)) attachSources(at.map((i) => ruleRows[i]), rules, (await approvalConfig(c, mr.projectId)).projectRules);
    entries.push([`mr-rules:${mr.id}`, rules], [`approvals:${mr.id}`, approvalRows.filter((a) => a.mergeRequestId === mr.id)]);
  }
  for (const [id, u] of approvers) entries.push([`user:${id}`, u]);
  primeMemo(c, entries);
}

/** usersByIds, taking the users a memo already holds. */
async function usersFor(c: Context<AppEnv>, ids: number[]): Promise<Map<number, UserRow>> {
  const out = new Map<number, UserRow>();
  const missing: number[] = [];
  for (const id of new Set(ids)) {
    const known = peekMemo<UserRow>(c, `user:${id}`);
    if (known) out.set(id, await known);
    else missing.push(id);
  }
  if (missing.length) for (const [id, u] of await usersByIds(c.var.db, missing)) out.set(id, u);
  return out;
}

function branchScopeOf(rule: LoadedRule): RuleInput['branchScope'] {
  const scoped = rule.kind === 'project' ? rule : !rule.modifiedFromProjectRule ? rule.source : null;
  if (!scoped) return null;
  return { protectedBranches: scoped.protectedBranches.map((b) => b.name), appliesToAllProtectedBranches: scoped.appliesToAllProtectedBranches };
}

const toInput = (r: LoadedRule): RuleInput => ({
  id: r.id,
  name: r.name,
  ruleType: r.ruleType,
  approvalsRequired: r.approvalsRequired,
  approverIds: r.approvers.map((u) => u.id),
  branchScope: branchScopeOf(r),
});

/**
 * The merge request's HEAD (`diff_head_sha`), as the merge request module reads it: an open one
 * follows its source branch live (a push moves it), a merged or closed one keeps its recorded sha.
 */
export async function mergeRequestHead(c: Context<AppEnv>, mr: MergeRequestRow): Promise<string | null> {
  if (mr.state !== 'opened' && mr.state !== 'locked') return mr.headSha ?? null;
  return (await repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch)) ?? mr.headSha ?? null;
}

/**
 * The merge request's patch id at `head` (repository/patch-id.ts). The merge base and the manifests it
 * compares are functions of the shas kept per isolate: warm, nothing is read; cold, mergeFacts reads
 * what is missing in one batch (live state asks for the same facts afterwards).
 */
export async function patchIdAt(c: Context<AppEnv>, mr: MergeRequestRow, head: string | null): Promise<string | null> {
  if (head && (mr.state === 'opened' || mr.state === 'locked')) {
    const targetHead = await memoBranchHead(c, mr.projectId, mr.targetBranch);
    // Stored by the push that moved either head (merge-requests/refresh.ts): nothing to read.
    const stored = targetHead ? storedPatchId(mr, targetHead, head) : undefined;
    if (stored !== undefined) return stored;
    if (targetHead) await mergeFacts(c.var.db, [{ projectId: mr.projectId, targetHead, head }]);
  }
  return mergeRequestPatchId(c, mr, head);
}

/**
 * MergeRequest#committers: users whose email is the committer email of a commit of the merge
 * request (reachable from HEAD, not from the target branch; base..head once merged or closed).
 */
export async function mergeRequestCommitterIds(c: Context<AppEnv>, mr: MergeRequestRow, head: string | null): Promise<number[]> {
  if (!head) return [];
  // Read with the approval state in one batch when a read memo is open (state-reads.ts).
  return memo(c, `committers:${mr.id}`, () => committerIdsOf(c, mr, head));
}

async function committerIdsOf(c: Context<AppEnv>, mr: MergeRequestRow, head: string): Promise<number[]> {
  const db = c.var.db;
  const pid = mr.sourceProjectId;
  let stop: string | null = null;
  if (mr.state === 'opened' || mr.state === 'locked') {
    stop = (await repo.branchHead(c, mr.projectId, mr.targetBranch)) ?? null;
  } else {
    stop = mr.baseSha ?? null;
  }
  const emails = [...new Set((await commitsBetween(db, pid, stop, head)).map((k) => k.committerEmail.toLowerCase()))];
  const ids = new Set<number>();
  for (const part of chunks(emails, 45)) {
    const rows = await db
      .select({ id: users.id })
      .from(users)
      .where(or(inArray(sql`lower(${users.email})`, part), inArray(sql`lower(${users.commitEmail})`, part)))
      .all();
    for (const r of rows) ids.add(r.id);
  }
  return [...ids];
}

/**
 * Approvals that count: with reset_approvals_on_push, those given at the current HEAD, or at another
 * HEAD with the same diff (`patchId`, the current patch id: ResetApprovalsService keeps approvals
 * whose patch_id_sha matches, so a rebase keeps them).
 */
export function validApprovals(rows: ApprovalRow[], head: string | null, reset: boolean, patchId: string | null = null): ApprovalRow[] {
  return reset ? rows.filter((a) => a.sha === head || (patchId != null && a.patchIdSha === patchId)) : rows;
}

export interface LoadedState {
  state: ApprovalState;
  input: ApprovalStateInput;
  settings: SettingsRow;
  requirePasswordToApprove: boolean;
  projectRules: LoadedRule[];
  mergeRequestRules: LoadedRule[];
  /** Approvals counted at HEAD, oldest first. */
  approvals: ApprovalRow[];
  approvalUsers: Map<number, UserRow>;
  head: string | null;
  /** The current patch id when an approval given at another HEAD needed it. */
  patchId: string | null;
  mr: MergeRequestRow;
}

/** Everything ApprovalState reads for one merge request, then the arithmetic. */
export async function loadApprovalState(c: Context<AppEnv>, mr: MergeRequestRow): Promise<LoadedState> {
  const db = c.var.db;
  await ensureSystemRules(c, mr);
  // The project's configuration is the same for every merge request of a page (platform/read-memo.ts).
  const { branches, projectRules } = await approvalConfig(c, mr.projectId);
  const [settings, mergeRequestRules, head, rows] = await Promise.all([
    memo(c, `approval-settings:${mr.projectId}`, () => loadSettings(db, mr.projectId)),
    memo(c, `mr-rules:${mr.id}`, () => loadMergeRequestRules(db, mr, undefined, projectRules)),
    mergeRequestHead(c, mr),
    memo(c, `approvals:${mr.id}`, () => db.select().from(approvals).where(eq(approvals.mergeRequestId, mr.id)).orderBy(asc(approvals.createdAt), asc(approvals.id)).all()),
  ]);
  const committerIds: number[] = [];
  const eff = await effectiveSettings(c, settings);
  // Committers matter only when they may not approve (filter_committers, eligible_for_approval_by?).
  if (settings.mergeRequestsDisableCommittersApproval) committerIds.push(...(await mergeRequestCommitterIds(c, mr, head)));
  // The patch id costs two manifests: computed only when an approval from another HEAD could still count.
  const patchId = eff.resetApprovalsOnPush && rows.some((a) => a.sha !== head && a.patchIdSha) ? await patchIdAt(c, mr, head) : null;
  const valid = validApprovals(rows, head, eff.resetApprovalsOnPush, patchId);
  const approvalUsers = await usersFor(c, valid.map((a) => a.userId));
  const multiple = multipleRulesFeature(c);
  const targetPb = branches.filter((b) => refMatches(b.name, mr.targetBranch));
  // Gitlab::CodeOwners.optional_section? reads the target branch's CODEOWNERS as it is now.
  let codeOwners: CodeOwnersFile | null = null;
  if (mr.state !== 'merged' && mergeRequestRules.some((r) => r.ruleType === 'code_owner')) {
    codeOwners = await codeOwnersFileAt(c, mr.projectId, await repo.branchHead(c, mr.projectId, mr.targetBranch));
  }
  const input: ApprovalStateInput = {
    featureAvailable: approvalsFeature(c),
    multipleRulesAvailable: multiple,
    canOverrideApprovers: !settings.disableOverridingApproversPerMergeRequest,
    projectRules: projectRules.filter((r) => isUserDefined(r.ruleType)).map(toInput),
    mergeRequestRules: mergeRequestRules.map((r) => ({ ...toInput(r), optionalSection: r.ruleType === 'code_owner' && r.section != null && codeOwners != null && isOptionalSection(codeOwners, r.section) })),
    targetBranch: mr.targetBranch,
    approvedUserIds: valid.map((a) => a.userId),
    authorId: mr.authorId,
    committerIds,
    authorApproval: settings.mergeRequestsAuthorApproval,
    disableCommittersApproval: settings.mergeRequestsDisableCommittersApproval,
    // code_owner_approval_required is a Premium feature of protected branches.
    codeOwnerApprovalRequired: approvalsFeature(c) && targetPb.some((b) => b.codeOwnerApprovalRequired),
    merged: mr.state === 'merged',
  };
  return {
    state: computeApprovalState(input),
    input,
    settings,
    requirePasswordToApprove: eff.requirePasswordToApprove,
    projectRules,
    mergeRequestRules,
    approvals: valid,
    approvalUsers,
    head,
    patchId,
    mr,
  };
}

/** The same merge request with other approvals (after an approve or unapprove): the arithmetic again, no reload. */
export async function withApprovals(c: Context<AppEnv>, s: LoadedState, rows: ApprovalRow[]): Promise<LoadedState> {
  const reset = (await effectiveSettings(c, s.settings)).resetApprovalsOnPush;
  const patchId = s.patchId ?? (reset && rows.some((a) => a.sha !== s.head && a.patchIdSha) ? await patchIdAt(c, s.mr, s.head) : null);
  const valid = validApprovals(rows, s.head, reset, patchId);
  const approvalUsers = await usersFor(c, valid.map((a) => a.userId));
  const input = { ...s.input, approvedUserIds: valid.map((a) => a.userId) };
  return { ...s, input, state: computeApprovalState(input), approvals: valid, approvalUsers };
}

/**
 * For the merge service: true when the merge request's approval rules are satisfied
 * (ApprovalState#approved?, what MergeRequest#mergeable_approval? checks). `mr` is a merge_requests row.
 */
export async function mergeRequestApproved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean> {
  const loaded = await loadApprovalState(c, mr);
  return loaded.state.approved;
}
