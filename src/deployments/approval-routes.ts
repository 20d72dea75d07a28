/**
 * `POST /projects/:id/deployments/:deployment_id/approval` (ee/lib/ee/api/deployments.rb, Premium):
 * `authorize! :read_deployment` on the project, the deployment found, then
 * Deployments::ApprovalService: its refusals (400 `{"message": …}`, deployment-approvals.ts),
 * the approval upserted per user and rule, and the deployment unblocked or failed in the same batch.
 * Two round trips: everything judged on is read beside the project, the write reads its answer back.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { writeThenRead } from '../db/batch-reads';
import { deploymentApprovals, deployments } from '../db/schema';
import { recordNotFound } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { findReadableProjectWith } from '../projects/projects';
import { approvalContext, approvalContextReads, approvalsRead, approvedSql, environmentNameOf } from './approval-reads';
import { APPROVAL_STATUSES, deploymentApproval, DeploymentApprovalSchema, validateApproval } from './deployment-approvals';
import { deploymentRead, joined } from './deployment-reads';
import { requireReadEnvironment } from './environments';

const approvalParams = params({
  id: g.string(),
  deployment_id: g.int(),
  status: g.enum(APPROVAL_STATUSES),
  comment: g.string().optional(),
  represented_as: g.string().optional(),
});

export function mountDeploymentApprovals(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/:id/deployments/:deployment_id/approval',
      summary: 'Approve or reject a blocked deployment',
      tags: ['deployments'],
      params: approvalParams,
      responses: { 201: DeploymentApprovalSchema },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [deploymentRead(db, pid, p.deployment_id), ...approvalContextReads(db, pid, environmentNameOf(p.deployment_id), p.deployment_id, caller.user?.id)] as const);
      requireReadEnvironment(caller, found);
      const row = found.reads[0][0];
      if (!row) throw recordNotFound();
      const { d } = joined(row);
      const ctx = approvalContext(found.reads.slice(1));
      // Without Premium no environment is protected (EE Environment#protected?).
      if (!planAllows(c.var.config, 'premium')) ctx.pe = undefined;
      const { ruleId } = validateApproval(d, ctx, caller, found.level, p.status, p.represented_as);
      const user = caller.user!;
      const base = baseUrl(c);
      // Upsert by user and rule: the same status again answers the approval as it stands.
      const mine = ctx.approvals.find((x) => x.a.userId === user.id && x.a.approvalRuleId === ruleId);
      if (mine && mine.a.status === p.status) return c.json(deploymentApproval(mine.a, mine.user, base), 201);
      const now = Date.now();
      const comment = p.comment ?? null;
      const write = mine
        ? db.update(deploymentApprovals).set({ status: p.status, comment, updatedAt: now }).where(eq(deploymentApprovals.id, mine.a.id))
        : db.insert(deploymentApprovals).values({ deploymentId: d.id, userId: user.id, approvalRuleId: ruleId, status: p.status, comment, createdAt: now, updatedAt: now });
      // ApprovalService#process_build!: a rejection fails the deployment; an approval unblocks it once
      // every rule has its approvals, judged in the batch after the upsert. Only a deployment still
      // blocked moves, so a concurrent rejection or unblock wins.
      const stillBlocked = and(eq(deployments.id, d.id), eq(deployments.status, 'blocked'));
      const move =
        p.status === 'rejected'
          ? db.update(deployments).set({ status: 'failed', updatedAt: now, finishedAt: now }).where(stillBlocked)
          : db.update(deployments).set({ status: 'created', updatedAt: now }).where(and(stillBlocked, approvedSql(d.id, ctx.pe!.id)));
      const [rows] = await writeThenRead(db, [write, move], [
        approvalsRead(db, d.id, and(eq(deploymentApprovals.userId, user.id), ruleId === null ? isNull(deploymentApprovals.approvalRuleId) : eq(deploymentApprovals.approvalRuleId, ruleId))),
      ] as const);
      const saved = rows[rows.length - 1];
      return c.json(deploymentApproval(saved.a, saved.user, base), 201);
    },
  );
}
