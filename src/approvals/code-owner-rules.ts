/**
 * A merge request's code owner rules as statements (MergeRequests::SyncCodeOwnerApprovalRules with
 * Gitlab::CodeOwners::Loader, UsersLoader and GroupsLoader): one `code_owner` rule per CODEOWNERS
 * entry (section, pattern), its owners resolved inside the statements that link them, so the rebuild
 * needs no read of its own (system-rules.ts: the rebuild of a stale merge request's rules is one
 * batch). `resolveOwners` resolves the same owners to ids for a push (refresh.ts), in one round trip.
 */
import { and, eq, gt, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, accessGrants, namespaces, users } from '../db/schema';
import { ACCESS, activeGrant, type NamespaceRow, type ProjectRow, traversalIds } from '../projects/abilities';
import { today } from '../platform/time';
import { batchReads, inJson } from '../db/batch-reads';
import { type CodeOwnerEntry, ownerReferences } from './code-owners';

/** A code owner rule as it should be: its entry and the owners resolved to ids. */
export interface DesiredCodeOwnerRule {
  entry: CodeOwnerEntry;
  userIds: number[];
  groupIds: number[];
}

/**
 * Loader#entries with UsersLoader and GroupsLoader: users found by username or (confirmed primary)
 * email and kept only when they are members of the project (Project#members_among); groups are the
 * project's group and its ancestors named by full path (there are no project group shares here).
 * One round trip: the users, which of them are members (a sub-select of the same users) and the groups.
 */
export async function resolveOwners(db: Db, project: ProjectRow, ns: NamespaceRow, entries: CodeOwnerEntry[]): Promise<DesiredCodeOwnerRule[]> {
  const refs = entries.map((e) => ownerReferences(e.ownerLine));
  const names = [...new Set(refs.flatMap((r) => r.names))];
  const emails = [...new Set(refs.flatMap((r) => r.emails))];
  const named = or(inJson(sql`lower(${users.username})`, names), inJson(sql`lower(${users.email})`, emails));
  const groupSources = traversalIds(ns);
  const sources = [and(eq(accessGrants.sourceType, 'Project'), eq(accessGrants.sourceId, project.id))];
  if (groupSources.length) sources.push(and(eq(accessGrants.sourceType, 'Namespace'), inArray(accessGrants.sourceId, groupSources)));
  const groupIds = ns.kind === 'Group' ? groupSources : [];
  const [found, memberRows, groups] = await batchReads(db, [
    names.length || emails.length ? db.select({ id: users.id, username: users.username, email: users.email, confirmedAt: users.confirmedAt }).from(users).where(named) : undefined,
    names.length || emails.length
      ? db
          .select({ userId: accessGrants.userId })
          .from(accessGrants)
          .where(and(inArray(accessGrants.userId, db.select({ id: users.id }).from(users).where(named)), or(...sources), gt(accessGrants.accessLevel, ACCESS.MINIMAL), activeGrant()))
      : undefined,
    groupIds.length ? db.select({ id: namespaces.id, fullPath: namespaces.fullPath }).from(namespaces).where(inArray(namespaces.id, groupIds)) : undefined,
  ]);
  const memberIds = new Set((memberRows ?? []).map((m) => m.userId));
  // A personal project's owner is its member without a members row.
  if (ns.kind === 'User' && ns.ownerId != null) memberIds.add(ns.ownerId);
  const owners = (found ?? []).filter((u) => memberIds.has(u.id));
  return entries.map((entry, i) => {
    const r = refs[i];
    const userIds = [
      ...new Set(owners.filter((u) => r.names.includes(u.username.toLowerCase()) || (u.confirmedAt != null && r.emails.includes(u.email.toLowerCase()))).map((u) => u.id)),
    ].sort((a, b) => a - b);
    const gids = (groups ?? []).filter((g) => r.names.includes(g.fullPath.toLowerCase())).map((g) => g.id).sort((a, b) => a - b);
    return { entry, userIds, groupIds: gids };
  });
}

/**
 * The users an entry names, as resolveOwners finds them, in SQL for an INSERT … SELECT: named by
 * username or confirmed email, and members of the project (directly, through its namespace's
 * ancestry, or its personal namespace's owner). `projectId` may be a sub-select.
 */
function ownerUsersSql(projectId: number | SQL, names: string[], emails: string[]): SQL {
  const ancestry = sql`(SELECT a.value FROM projects p JOIN namespaces n ON n.id = p.namespace_id, json_each('[' || replace(trim(coalesce(n.traversal_path, ''), '/'), '/', ',') || ']') a WHERE p.id = ${projectId})`;
  return sql`SELECT u.id FROM users u
    WHERE (lower(u.username) IN (SELECT value FROM json_each(${JSON.stringify(names)}))
        OR (u.confirmed_at IS NOT NULL AND lower(u.email) IN (SELECT value FROM json_each(${JSON.stringify(emails)}))))
      AND (u.id IN (SELECT m.user_id FROM access_grants m
            WHERE ((m.source_type = 'Project' AND m.source_id = ${projectId}) OR (m.source_type = 'Namespace' AND m.source_id IN ${ancestry}))
              AND m.access_level > ${ACCESS.MINIMAL} AND (m.expires_at IS NULL OR m.expires_at > ${today()}))
        OR u.id = (SELECT n.owner_id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = ${projectId} AND n.kind = 'User'))`;
}

/** The groups an entry names: the project's group or one of its ancestors, by full path. */
function ownerGroupsSql(projectId: number | SQL, names: string[]): SQL {
  return sql`SELECT g.id FROM namespaces g
    WHERE g.id IN (SELECT a.value FROM projects p JOIN namespaces n ON n.id = p.namespace_id, json_each('[' || replace(trim(coalesce(n.traversal_path, ''), '/'), '/', ',') || ']') a WHERE p.id = ${projectId} AND n.kind = 'Group')
      AND lower(g.full_path) IN (SELECT value FROM json_each(${JSON.stringify(names)}))`;
}

/**
 * The statements that make the merge request's code owner rules exactly those of `entries`: rules
 * found by (section, pattern) keep their id and get the entry's approvals count, and their users
 * and groups are replaced by the owners the entry names (resolved in the statements); rules of
 * entries that no longer apply are deleted with their links. `mrId` may be a sub-select.
 */
export function codeOwnerRuleStatements(db: Db, mrId: number | SQL, projectId: number, entries: CodeOwnerEntry[], now: number): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  const keys = JSON.stringify(entries.map((e) => [e.section, e.pattern]));
  const stale = and(
    eq(approvalMergeRequestRules.mergeRequestId, mrId as number),
    eq(approvalMergeRequestRules.ruleType, 'code_owner'),
    sql`NOT EXISTS (SELECT 1 FROM json_each(${keys}) k WHERE json_extract(k.value, '$[0]') = ${approvalMergeRequestRules.section} AND json_extract(k.value, '$[1]') = ${approvalMergeRequestRules.name})`,
  );
  const outdated = db.select({ id: approvalMergeRequestRules.id }).from(approvalMergeRequestRules).where(stale);
  out.push(
    db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.ruleId, outdated)),
    db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.ruleId, outdated)),
    db.delete(approvalMergeRequestRules).where(stale),
  );
  for (const entry of entries) {
    // ApprovalMergeRequestRule.find_or_create_code_owner_rule, then rule.users/groups/approvals_required = entry's.
    out.push(
      db
        .insert(approvalMergeRequestRules)
        .values({ mergeRequestId: mrId as number, name: entry.pattern, ruleType: 'code_owner', section: entry.section, approvalsRequired: entry.approvalsRequired, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: [approvalMergeRequestRules.mergeRequestId, approvalMergeRequestRules.section, approvalMergeRequestRules.name],
          targetWhere: sql.raw(`rule_type = 'code_owner'`),
          set: { approvalsRequired: entry.approvalsRequired, updatedAt: now },
        }),
    );
    const ruleId = sql<number>`(SELECT ${approvalMergeRequestRules.id} FROM ${approvalMergeRequestRules} WHERE ${approvalMergeRequestRules.mergeRequestId} = ${mrId} AND ${approvalMergeRequestRules.ruleType} = 'code_owner' AND ${approvalMergeRequestRules.section} = ${entry.section} AND ${approvalMergeRequestRules.name} = ${entry.pattern})`;
    out.push(
      db.delete(approvalMergeRequestRulesUsers).where(eq(approvalMergeRequestRulesUsers.ruleId, ruleId)),
      db.delete(approvalMergeRequestRulesGroups).where(eq(approvalMergeRequestRulesGroups.ruleId, ruleId)),
    );
    const { names, emails } = ownerReferences(entry.ownerLine);
    if (names.length || emails.length) {
      out.push(db.insert(approvalMergeRequestRulesUsers).select(sql`SELECT ${ruleId}, o.id FROM (${ownerUsersSql(projectId, names, emails)}) o WHERE true`).onConflictDoNothing());
    }
    if (names.length) {
      out.push(db.insert(approvalMergeRequestRulesGroups).select(sql`SELECT ${ruleId}, o.id FROM (${ownerGroupsSql(projectId, names)}) o WHERE true`).onConflictDoNothing());
    }
  }
  return out;
}
