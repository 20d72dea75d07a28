/** The approvals side of merge requests (merge-requests/approvals-port.ts), installed by src/app.ts. */
import { eq } from 'drizzle-orm';
import { approvalMergeRequestRules } from '../db/schema';
import type { MergeRequestApprovals } from '../merge-requests/approvals-port';
import { mergeRequestApprovalsBeforeMergeStatement } from './rules';
import { loadApprovalState, mergeRequestApproved, primeApprovalReads } from './state-loader';
import { approvalPageReads, type ApprovalPageReads, primeApprovalPage } from './page-reads';
import { type CodeOwnerCandidate, codeOwnersCandidatesRead, newMergeRequestSystemRules, systemRulesRebuildAt } from './system-rules';
import { approvalStateReads, type ApprovalStateReads, primeApprovalState } from './state-reads';

/** Where the assignees' read sits in approvalStateReads once the row and the heads are left out. */
const SHARED_ASSIGNEES = 8;

export const mergeRequestApprovalsImpl: MergeRequestApprovals = {
  approved: mergeRequestApproved,
  primeReads: primeApprovalReads,
  stateReads(c, caller, projectId, iid) {
    // The merge request's own row comes from the batch that finds it (findReadableMergeRequestWith):
    // left out here, so the batch does not send that read twice.
    const [, ...list] = approvalStateReads(c.var.db, caller, projectId, iid);
    return { list, prime: (mr, results) => primeApprovalState(c, mr, [[mr], ...results] as unknown as ApprovalStateReads) };
  },
  stateStatements(db, caller, projectId, iid) {
    const [, , ...rest] = approvalStateReads(db, caller, projectId, iid);
    return rest.filter((_, i) => i !== SHARED_ASSIGNEES);
  },
  primeState(c, mr, results, shared) {
    const rest: unknown[] = [...results];
    rest.splice(SHARED_ASSIGNEES, 0, shared.assigneeIds.map((userId) => ({ userId })));
    primeApprovalState(c, mr, [[mr], shared.heads, ...rest] as unknown as ApprovalStateReads, { headsOfOpenOnly: true });
  },
  pageReads(c, ids, projectIds) {
    const list = approvalPageReads(c.var.db, ids, projectIds);
    return { list, prime: (mrs, results, heads) => primeApprovalPage(c, mrs, results as unknown as ApprovalPageReads, heads) };
  },
  rulesReads: (db, projectId, targetBranch) => [codeOwnersCandidatesRead(db, projectId, targetBranch)],
  createRules: (c, m, [candidates]) => newMergeRequestSystemRules(c, { ...m, candidates: candidates as CodeOwnerCandidate[] }),
  rulesRebuild: (c, mr, heads, [candidates]) => systemRulesRebuildAt(c, mr, heads, candidates as CodeOwnerCandidate[] | undefined),
  primePage: (c, mrs, results, heads) => primeApprovalPage(c, mrs, results as unknown as ApprovalPageReads, heads),
  // ApprovalWrappedCodeOwnerRule#finalize!: code owner rules keep the approvals count they required
  // when merged, whatever the CODEOWNERS file or branch rules say later.
  async finalizeRules(c, mr) {
    const approval = await loadApprovalState(c, mr);
    return approval.state.rules
      .filter((w) => w.rule.ruleType === 'code_owner' && w.source === 'merge_request')
      .map((w) => c.var.db.update(approvalMergeRequestRules).set({ approvalsRequired: w.approvalsRequired }).where(eq(approvalMergeRequestRules.id, w.rule.id)));
  },
  approvalsBeforeMerge: mergeRequestApprovalsBeforeMergeStatement,
};
