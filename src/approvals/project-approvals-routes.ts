/**
 * Project-level approvals (GitLab ee/lib/api/project_approvals.rb): the approval settings. Every
 * route runs `authenticate!` (spec: all approvals endpoints require authentication). The approval
 * rules live in project-approval-rules-routes.ts, the merge-request-level routes in
 * merge-request-approvals-routes.ts.
 *
 * Abilities (EE ProjectPolicy): read_approvers, update_approvers, modify_approvers_rules and
 * manage_merge_request_settings are Maintainer+.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { approvalProjectRules, approvals, mergeRequests, projectApprovalSettings, repoBranches } from '../db/schema';
import { approvalSettingsEntity, ApprovalSettingsSchema } from './approvals-entity';
import { forbidden, validationFailed } from '../platform/errors';
import type { Router } from '../platform/router';
import { projectParams, updateSettingsParams } from './approvals-params';
import { ALL_MEMBERS, APPROVALS_REQUIRED_MAX, approvalsFeature, DEFAULT_SEVERITIES, defaultSettings, effectiveSettings } from './rules';
import { findReadableProjectWith } from '../projects/projects';
import type { Db } from '../db/client';
import { writeThenRead } from '../db/batch-reads';
import { isMaintainer } from './project-rules';
import { mountProjectApprovalRules } from './project-approval-rules-routes';

const TAGS = ['project_approvals'];

/** A project's approval settings row (`projectId` may be a sub-select), for a batch. */
const settingsRead = (db: Db, projectId: SQL) => db.select().from(projectApprovalSettings).where(sql`${projectApprovalSettings.projectId} = ${projectId}`).limit(1);

export function mountApprovals(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));

  api.route(
    { method: 'GET', path: '/projects/:id/approvals', summary: 'Get all project approvers and related configuration', tags: TAGS, params: projectParams, responses: { 200: ApprovalSettingsSchema } },
    async ({ c, p, caller }) => {
      const { project, level, reads } = await findReadableProjectWith(c, caller, p.id, (pid) => [settingsRead(c.var.db, pid)] as const);
      // read_approvers (Maintainer+) unless admin_project: the same people.
      if (!isMaintainer(caller, level)) throw forbidden();
      const s = reads[0][0] ?? defaultSettings(project.id);
      return c.json(approvalSettingsEntity(s, await effectiveSettings(c, s)));
    },
  );

  api.route(
    { method: 'POST', path: '/projects/:id/approvals', summary: 'Change approval-related configuration', tags: TAGS, params: updateSettingsParams, responses: { 201: ApprovalSettingsSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      // The settings come with the project; the write reads them back in its batch: two round trips.
      const { project, level, reads } = await findReadableProjectWith(c, caller, p.id, (pid) => [settingsRead(db, pid)] as const);
      if (!isMaintainer(caller, level)) throw forbidden();
      const current = reads[0][0] ?? defaultSettings(project.id);
      const eff = await effectiveSettings(c, current);
      // MergeRequest::ApprovalRemovalSettings: selective code owner removals need approvals kept on push.
      const reset = p.reset_approvals_on_push ?? eff.resetApprovalsOnPush;
      const selective = p.selective_code_owner_removals ?? current.selectiveCodeOwnerRemovals;
      if (reset && selective) throw validationFailed({ base: ['selective_code_owner_removals can only be enabled when reset_approvals_on_push is disabled'] });
      const now = Date.now();
      const next = {
        projectId: project.id,
        approvalsBeforeMerge: p.approvals_before_merge ?? current.approvalsBeforeMerge,
        resetApprovalsOnPush: p.reset_approvals_on_push ?? current.resetApprovalsOnPush,
        selectiveCodeOwnerRemovals: selective,
        disableOverridingApproversPerMergeRequest: p.disable_overriding_approvers_per_merge_request ?? current.disableOverridingApproversPerMergeRequest,
        mergeRequestsAuthorApproval: p.merge_requests_author_approval ?? current.mergeRequestsAuthorApproval,
        mergeRequestsDisableCommittersApproval: p.merge_requests_disable_committers_approval ?? current.mergeRequestsDisableCommittersApproval,
        // One setting under two names (EE Project: setting either sets both; the later parameter wins).
        requirePasswordToApprove: p.require_reauthentication_to_approve ?? p.require_password_to_approve ?? current.requirePasswordToApprove,
        requireReauthenticationToApprove: p.require_reauthentication_to_approve ?? p.require_password_to_approve ?? current.requireReauthenticationToApprove,
        updatedAt: now,
      };
      if (next.approvalsBeforeMerge < 0) throw validationFailed({ approvals_before_merge: ['must be greater than or equal to 0'] });
      const stmts: BatchItem<'sqlite'>[] = [
        db.insert(projectApprovalSettings).values(next).onConflictDoUpdate({ target: projectApprovalSettings.projectId, set: { ...next, projectId: undefined } }),
      ];
      // DeprecatedApprovalsBeforeMerge: a changed approvals_before_merge sets the any_approver rule's count.
      if (p.approvals_before_merge !== undefined && p.approvals_before_merge !== current.approvalsBeforeMerge) {
        const n = Math.min(p.approvals_before_merge, APPROVALS_REQUIRED_MAX);
        stmts.push(
          db
            .insert(approvalProjectRules)
            .values({ projectId: project.id, name: ALL_MEMBERS, ruleType: 'any_approver', approvalsRequired: n, severityLevels: JSON.stringify(DEFAULT_SEVERITIES), createdAt: now, updatedAt: now })
            .onConflictDoUpdate({ target: approvalProjectRules.projectId, targetWhere: sql.raw(`rule_type = 'any_approver'`), set: { approvalsRequired: n, updatedAt: now } }),
        );
      }
      // Turning reset_approvals_on_push on resets nothing by itself: approvals given while it was off
      // are re-stamped at their merge request's current HEAD, so only the next push removes them.
      if (!eff.resetApprovalsOnPush && next.resetApprovalsOnPush && approvalsFeature(c)) {
        stmts.push(
          db
            .update(approvals)
            .set({
              sha: sql`(SELECT b.commit_sha FROM ${repoBranches} b JOIN ${mergeRequests} m ON m.id = ${approvals.mergeRequestId}
                WHERE b.project_id = m.source_project_id AND b.name = m.source_branch)`,
              // The diff they were given for is not known any more: only this HEAD keeps them.
              patchIdSha: null,
            })
            .where(inArray(approvals.mergeRequestId, db.select({ id: mergeRequests.id }).from(mergeRequests).where(and(eq(mergeRequests.projectId, project.id), inArray(mergeRequests.state, ['opened', 'locked']))))),
        );
      }
      const [[saved]] = await writeThenRead(db, stmts, [settingsRead(db, sql`${project.id}`)] as const);
      const s = saved ?? defaultSettings(project.id);
      return c.json(approvalSettingsEntity(s, await effectiveSettings(c, s)), 201);
    },
  );

  mountProjectApprovalRules(r);
}
