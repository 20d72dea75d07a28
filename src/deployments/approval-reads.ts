/**
 * The reads a deployment's approvals are judged and shown on (deployment-approvals.ts
 * ApprovalContext), unexecuted so they ride in the batch that finds the project.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { aliasedColumns } from '../db/aliased-columns';
import type { Db } from '../db/client';
import { deploymentApprovals, deployments, environments, protectedEnvironmentEntries, protectedEnvironments, users } from '../db/schema';
import type { UserRow } from '../platform/context';
import type { ApprovalContext, ApprovalRow, RuleRow } from './deployment-approvals';
import type { EntryRow, ProtectedEnvironmentRow } from './protected-environment-entity';
import { inGroupSql } from './protected-environments';

const USER = aliasedColumns(users, 'u_');

/** The name of deployment `id`'s environment, as SQL. */
export const environmentNameOf = (id: number | SQL) => sql`(SELECT e.name FROM ${environments} e JOIN ${deployments} d ON d.environment_id = e.id WHERE d.id = ${id})`;

/**
 * The protected environment named `envName` in project `pid`, its entries (with the names a rule is
 * represented by, and whether user `uid` is in the group an entry names), and deployment
 * `deploymentId`'s approvals.
 */
export function approvalContextReads(db: Db, pid: SQL, envName: SQL | string, deploymentId: number | SQL | null, uid: number | null | undefined) {
  const pe = sql`${protectedEnvironments.projectId} = ${pid} AND ${protectedEnvironments.name} = ${envName}`;
  return [
    db.select().from(protectedEnvironments).where(pe).limit(1),
    db
      .select({
        e: protectedEnvironmentEntries,
        userName: sql<string | null>`(SELECT u.name FROM users u WHERE u.id = "protected_environment_entries"."user_id")`.as('user_name'),
        groupName: sql<string | null>`(SELECT n.name FROM namespaces n WHERE n.id = "protected_environment_entries"."group_id")`.as('group_name'),
        inGroup: inGroupSql(uid).as('in_group'),
      })
      .from(protectedEnvironmentEntries)
      .where(sql`${protectedEnvironmentEntries.protectedEnvironmentId} IN (SELECT ${protectedEnvironments.id} FROM ${protectedEnvironments} WHERE ${pe})`)
      .orderBy(protectedEnvironmentEntries.id),
    approvalsRead(db, deploymentId ?? sql`NULL`),
  ] as const;
}

/** A deployment's approvals with their users, oldest first. */
export const approvalsRead = (db: Db, deploymentId: number | SQL, only?: SQL) =>
  db
    .select({ a: deploymentApprovals, user: USER })
    .from(deploymentApprovals)
    .innerJoin(users, eq(users.id, deploymentApprovals.userId))
    .where(and(sql`${deploymentApprovals.deploymentId} = ${deploymentId}`, only))
    .orderBy(deploymentApprovals.id);

type Reads = [ProtectedEnvironmentRow[], RuleRow[], { a: ApprovalRow; user: UserRow }[]];

/** The context from the three reads' results. */
export const approvalContext = (r: readonly unknown[]): ApprovalContext => {
  const [pe, entries, approvals] = r as Reads;
  return { pe: pe[0], entries, approvals };
};

/**
 * True (as SQL) once deployment `id` of protected environment `peId` has every approval it needs
 * (Deployment#approved?): each approval rule its `required_approvals`, or without rules the
 * environment's `required_approval_count`. Evaluated inside the approval's batch, after the upsert,
 * so concurrent approvals cannot both see one missing.
 */
export function approvedSql(id: number, peId: number) {
  const approved = (rule: SQL) => sql`(SELECT count(*) FROM ${deploymentApprovals} a WHERE a.deployment_id = ${id} AND a.status = 'approved' AND ${rule})`;
  const rules = sql`${protectedEnvironmentEntries} r WHERE r.protected_environment_id = ${peId} AND r.kind = 'approval'`;
  return sql`CASE WHEN EXISTS (SELECT 1 FROM ${rules})
    THEN NOT EXISTS (SELECT 1 FROM ${rules} AND ${approved(sql`a.approval_rule_id = r.id`)} < coalesce(r.required_approvals, 1))
    ELSE ${approved(sql`a.approval_rule_id IS NULL`)} >= (SELECT pe.required_approval_count FROM ${protectedEnvironments} pe WHERE pe.id = ${peId}) END`;
}
