/**
 * Everything a merge request's approval state reads, in the round trip that finds the project and
 * the merge request (issue 13: "the approval-rule chain runs nine statements in sequence"). The
 * statements are keyed on the project id (a number or a sub-select by path) and the merge request's
 * iid, never on rows read before, so they all go in one batch with the project lookup
 * (findReadableProjectWith). What they return seeds the request's read memo under the keys the
 * loaders already read (state-loader.ts, system-rules.ts, live-state.ts, patch-id.ts), so the
 * approval arithmetic and the presenters run without another query.
 *
 * They run before the caller is authorised and are thrown away with the 404 when the project or
 * the merge request is hidden: reads change nothing.
 */
import { and, asc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import {
  approvalMergeRequestRules,
  approvalProjectRules,
  approvalProjectRulesGroups,
  approvalProjectRulesProtectedBranches,
  approvalProjectRulesUsers,
  approvals,
  mergeRequestAssignees,
  mergeRequests,
  namespaces,
  projectApprovalSettings,
  protectedBranches,
  repoBranches,
  repoCommitFiles,
  users,
} from '../db/schema';
import { ACCESS, groupVisibleSql, type NamespaceRow } from '../projects/abilities';
import { isMemoised, primeMemo } from '../platform/read-memo';
import { CODEOWNERS_PATHS } from './code-owners';
import type { MergeRequestRow } from './state';
import { branchIdsOf } from '../merge-requests/presenter-reads';
import { attachSources, defaultSettings, groupUsersRead, hydrateFrom, type LoadedRule, type ProtectedBranchRow, type RuleLinks } from './rules';


/**
 * The reads, as unexecuted statements for one batch. `projectId` is SQL (the id or a sub-select),
 * `iid` the merge request's iid. Every statement names the merge request through a sub-select.
 */
export function approvalStateReads(db: Db, caller: Caller, projectId: SQL, iid: number | SQL) {
  const mrId = sql`(SELECT m.id FROM merge_requests m WHERE m.project_id = ${projectId} AND m.iid = ${iid})`;
  const projectRuleIds = sql`(SELECT r.id FROM approval_project_rules r WHERE r.project_id = ${projectId})`;
  const mrRuleIds = sql`(SELECT r.id FROM approval_merge_request_rules r WHERE r.merge_request_id = ${mrId})`;
  const groupIds = sql`(SELECT group_id FROM approval_project_rules_groups WHERE approval_project_rule_id IN ${projectRuleIds}
    UNION SELECT group_id FROM approval_merge_request_rules_groups WHERE approval_merge_request_rule_id IN ${mrRuleIds})`;
  // HEAD of the source branch (the recorded one once not open) and the end of the target's history
  // (its head while open, the recorded base after): MergeRequest#committers walks between them.
  const open = sql`m.state IN ('opened','locked')`;
  const headSql = sql`(SELECT CASE WHEN ${open} THEN COALESCE((SELECT b.commit_sha FROM repo_branches b WHERE b.project_id = m.source_project_id AND b.name = m.source_branch), m.head_sha) ELSE m.head_sha END FROM merge_requests m WHERE m.id = ${mrId})`;
  const stopSql = sql`(SELECT CASE WHEN ${open} THEN (SELECT b.commit_sha FROM repo_branches b WHERE b.project_id = m.project_id AND b.name = m.target_branch) ELSE m.base_sha END FROM merge_requests m WHERE m.id = ${mrId})`;
  const sourcePid = sql`(SELECT m.source_project_id FROM merge_requests m WHERE m.id = ${mrId})`;
  const targetHead = sql`(SELECT b.commit_sha FROM repo_branches b JOIN merge_requests m ON b.project_id = m.project_id AND b.name = m.target_branch WHERE m.id = ${mrId})`;
  // Only when committers may not approve (the setting); the walk is skipped otherwise.
  const committersWanted = sql`EXISTS (SELECT 1 FROM project_approval_settings s WHERE s.project_id = ${projectId} AND s.merge_requests_disable_committers_approval)`;
  // The committers' users, the walk written once (both email columns match against it), empty unless wanted.
  const committerIds = sql`(WITH RECURSIVE
      h(sha) AS (SELECT ${headSql} WHERE ${committersWanted} UNION SELECT p.parent_sha FROM h CROSS JOIN repo_commit_parents p ON p.project_id = ${sourcePid} AND p.sha = h.sha),
      b(sha) AS (SELECT ${stopSql} WHERE ${committersWanted} UNION SELECT p.parent_sha FROM b CROSS JOIN repo_commit_parents p ON p.project_id = ${sourcePid} AND p.sha = b.sha),
      e(email) AS (SELECT lower(c.committer_email) FROM repo_commits c WHERE c.project_id = ${sourcePid} AND c.sha IN (SELECT sha FROM h WHERE sha IS NOT NULL EXCEPT SELECT sha FROM b))
    SELECT u.id FROM e JOIN users u ON lower(u.email) = e.email UNION SELECT u.id FROM e JOIN users u ON lower(u.commit_email) = e.email)`;
  const visible = groupVisibleSql(caller);
  return [
    db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, projectId as unknown as number), eq(mergeRequests.iid, iid))).limit(1),
    db
      .select({ projectId: repoBranches.projectId, name: repoBranches.name, sha: repoBranches.commitSha })
      .from(repoBranches)
      // Looked up by (project, name) through the index (branchIdsOf), not by scanning the branches.
      .where(sql`${repoBranches.id} IN ${branchIdsOf(sql`= ${mrId}`)}`),
    db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId as unknown as number)).orderBy(asc(protectedBranches.id)),
    // Each rule with its users, groups (and protected branches) as JSON arrays: one statement instead of one per link table.
    db
      .select({
        ...getTableColumns(approvalProjectRules),
        linkUsers: linkIds('user_id', 'approval_project_rules_users', 'approval_project_rule_id', 'approval_project_rules').as('link_users'),
        linkGroups: linkIds('group_id', 'approval_project_rules_groups', 'approval_project_rule_id', 'approval_project_rules').as('link_groups'),
        linkBranches: linkIds('protected_branch_id', 'approval_project_rules_protected_branches', 'approval_project_rule_id', 'approval_project_rules').as('link_branches'),
      })
      .from(approvalProjectRules)
      .where(eq(approvalProjectRules.projectId, projectId as unknown as number))
      .orderBy(asc(approvalProjectRules.id)),
    db
      .select({
        ...getTableColumns(approvalMergeRequestRules),
        linkUsers: linkIds('user_id', 'approval_merge_request_rules_users', 'approval_merge_request_rule_id', 'approval_merge_request_rules').as('link_users'),
        linkGroups: linkIds('group_id', 'approval_merge_request_rules_groups', 'approval_merge_request_rule_id', 'approval_merge_request_rules').as('link_groups'),
      })
      .from(approvalMergeRequestRules)
      .where(eq(approvalMergeRequestRules.mergeRequestId, mrId as unknown as number))
      .orderBy(asc(approvalMergeRequestRules.id)),
    db.select().from(namespaces).where(inArray(namespaces.id, groupIds)),
    // Group#users, with their level for approve_merge_request.
    groupUsersRead(db, groupIds),
    // Only what the approval entities show of a user (UserBasic) and the arithmetic asks (state):
    // a users row has ~47 columns, and every column of every row is serialized.
    db
      .select(approvalUserColumns)
      .from(users)
      .where(
        sql`${users.id} IN (SELECT user_id FROM approval_project_rules_users WHERE approval_project_rule_id IN ${projectRuleIds}
          UNION SELECT user_id FROM approval_merge_request_rules_users WHERE approval_merge_request_rule_id IN ${mrRuleIds}
          UNION SELECT user_id FROM approvals WHERE merge_request_id = ${mrId}
          UNION SELECT m.user_id FROM members m WHERE m.source_type = 'Namespace' AND m.source_id IN ${groupIds} AND m.access_level > ${ACCESS.MINIMAL})`,
      ),
    db.select().from(projectApprovalSettings).where(eq(projectApprovalSettings.projectId, projectId as unknown as number)).limit(1),
    db.select().from(approvals).where(eq(approvals.mergeRequestId, mrId as unknown as number)).orderBy(asc(approvals.createdAt), asc(approvals.id)),
    db.select({ userId: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mrId as unknown as number)),
    db.select({ id: users.id }).from(users).where(sql`${users.id} IN ${committerIds}`),
    // Repository#code_owners_blob candidates at the target branch's head.
    db
      .select()
      .from(repoCommitFiles)
      .where(and(eq(repoCommitFiles.projectId, projectId as unknown as number), sql`${repoCommitFiles.commitSha} = ${targetHead}`, inArray(repoCommitFiles.path, [...CODEOWNERS_PATHS]))),
    // Group.id_in(ids).accessible_to_user(caller), the shape rules.ts accessibleGroupIds uses.
    db.select({ id: namespaces.id }).from(namespaces).where(and(inArray(namespaces.id, groupIds), eq(namespaces.kind, 'Group'), visible)),
    // Ancestors' names for the groups' full names (groups.ts loadFullNames).
    ancestorNames(db, groupIds),
    // The merge base and the manifests live state and the patch id compare are functions of the shas,
    // kept per isolate (repository/merge-facts.ts, sha-cache.ts), not read on every request: warmMergeFacts.
  ] as const;
}

/** The user columns the approval state reads (UserBasic and `state`); approvals code reads no other. */
const approvalUserColumns = { id: users.id, username: users.username, name: users.name, state: users.state, avatarPath: users.avatarPath, email: users.email };

/** The ids a rule links to in `table` (its `column` where `ruleColumn` is the rule's id), as a JSON array. */
const linkIds = (column: string, table: string, ruleColumn: string, ruleTable: string) =>
  sql<string>`(SELECT json_group_array(l.${sql.raw(column)}) FROM ${sql.raw(table)} l WHERE l.${sql.raw(ruleColumn)} = ${sql.raw(`"${ruleTable}"."id"`)})`;

/** The link rows a rule's JSON arrays stand for, as the link tables' reads return them. */
function linksOf<K extends string>(rules: readonly ({ id: number } & Record<string, unknown>)[], json: string, key: K): ({ ruleId: number } & Record<K, number>)[] {
  return rules.flatMap((r) => (JSON.parse(String(r[json] ?? '[]')) as number[]).map((v) => ({ ruleId: r.id, [key]: v }) as { ruleId: number } & Record<K, number>));
}

/**
 * The names of the groups `groupIds` selects and of their ancestors (groups.ts loadFullNames), looked
 * up by id: each group's traversal path ('/1/5/9/') read as the JSON array [1,5,9].
 */
const ancestorNames = (db: Db, groupIds: SQL) =>
  db
    .select({ id: namespaces.id, name: namespaces.name })
    .from(namespaces)
    .where(sql`${namespaces.id} IN (SELECT a.value FROM namespaces g, json_each('[' || replace(trim(g.traversal_path, '/'), '/', ',') || ']') a WHERE g.id IN ${groupIds})`);

export type ApprovalStateReads = { [K in keyof ReturnType<typeof approvalStateReads>]: Awaited<ReturnType<typeof approvalStateReads>[K]> };

/** Seeds the read memo with what the batch read (only inside withReadMemo; otherwise the loaders read again). */
export function primeApprovalState(c: Context<AppEnv>, mr: MergeRequestRow, r: ApprovalStateReads, o: { headsOfOpenOnly?: boolean } = {}): void {
  if (!isMemoised(c)) return;
  // Heads read for open merge requests only (presenter-reads.ts headsRead) say nothing of a closed one's branches.
  const headsKnown = !o.headsOfOpenOnly || mr.state === 'opened' || mr.state === 'locked';
  const [, heads, branches, pRules, mRules, groups, groupMembers, userRows, settings, approvalRows, assignees, committers, codeOwners, visible, ancestors] = r;
  const pUsers = linksOf(pRules, 'linkUsers', 'userId');
  const pGroups = linksOf(pRules, 'linkGroups', 'groupId');
  const pBranches = linksOf(pRules, 'linkBranches', 'protectedBranchId');
  const mUsers = linksOf(mRules, 'linkUsers', 'userId');
  const mGroups = linksOf(mRules, 'linkGroups', 'groupId');
  const pid = mr.projectId;
  const headOf = (projectId: number, name: string) => heads.find((h) => h.projectId === projectId && h.name === name)?.sha ?? null;
  const sourceHead = headOf(mr.sourceProjectId, mr.sourceBranch);
  const targetHead = headOf(pid, mr.targetBranch);
  const usersById = new Map<number, UserRow>(userRows.map((u) => [u.id, u as UserRow]));
  const groupsById = new Map<number, NamespaceRow>(groups.map((g) => [g.id, g]));
  const membersOf = new Map<number, number[]>();
  for (const m of groupMembers) membersOf.set(m.groupId, [...(membersOf.get(m.groupId) ?? []), m.userId]);
  const links = (userLinks: RuleLinks['userLinks'], groupLinks: RuleLinks['groupLinks'], pbLinks: RuleLinks['pbLinks'], allBranches: ProtectedBranchRow[]): RuleLinks => ({
    userLinks,
    groupLinks,
    pbLinks,
    groupRows: groupsById,
    memberIds: membersOf,
    userRows: usersById,
    allBranches,
  });
  const projectRules = hydrateFrom('project', pRules, links(pUsers, pGroups, pBranches, branches));
  const mrRules = hydrateFrom('merge_request', mRules, links(mUsers, mGroups, [], []));
  attachSources(mRules, mrRules, projectRules);
  const entries: [string, unknown][] = [
    ...((headsKnown
      ? [
          [`head:${mr.sourceProjectId}:${mr.sourceBranch}`, sourceHead],
          [`head:${pid}:${mr.targetBranch}`, targetHead],
        ]
      : []) as [string, unknown][]),
    [`protected-branches:${pid}`, branches],
    [`approval-config:${pid}`, { branches, projectRules }],
    [`approval-settings:${pid}`, settings[0] ?? defaultSettings(pid)],
    [`mr-rules:${mr.id}`, mrRules],
    [`approvals:${mr.id}`, approvalRows],
    [`assignees:${mr.id}`, assignees.map((a) => a.userId)],
    [`committers:${mr.id}`, committers.map((u) => u.id)],
    ...(headsKnown && targetHead ? ([[`codeowners-candidates:${pid}:${targetHead}`, codeOwners]] as [string, unknown][]) : []),
    ['rule-groups:visible', { ids: new Set(groups.map((g) => g.id)), visible: new Set(visible.map((g) => g.id)) }],
    ['rule-groups:names', new Map([...ancestors.map((a) => [a.id, a.name] as const), ...groups.map((g) => [g.id, g.name] as const)])],
  ];
  for (const u of userRows) entries.push([`user:${u.id}`, u]);
  primeMemo(c, entries);
}

/**
 * A merge request's rules with their user and group links (JSON arrays), the groups, their members
 * and every user they name, keyed on the merge request id (a number or a sub-select): what the
 * system rules' rebuild reads back inside its write batch (system-rules.ts), so the rebuilt rules
 * are whole without another round trip.
 */
export function mergeRequestRuleReads(db: Db, mrId: number | SQL) {
  const ruleIds = sql`(SELECT r.id FROM approval_merge_request_rules r WHERE r.merge_request_id = ${mrId})`;
  const groupIds = sql`(SELECT group_id FROM approval_merge_request_rules_groups WHERE approval_merge_request_rule_id IN ${ruleIds})`;
  return [
    db
      .select({
        ...getTableColumns(approvalMergeRequestRules),
        linkUsers: linkIds('user_id', 'approval_merge_request_rules_users', 'approval_merge_request_rule_id', 'approval_merge_request_rules').as('link_users'),
        linkGroups: linkIds('group_id', 'approval_merge_request_rules_groups', 'approval_merge_request_rule_id', 'approval_merge_request_rules').as('link_groups'),
      })
      .from(approvalMergeRequestRules)
      .where(eq(approvalMergeRequestRules.mergeRequestId, mrId as number))
      .orderBy(asc(approvalMergeRequestRules.id)),
    db.select().from(namespaces).where(inArray(namespaces.id, groupIds)),
    groupUsersRead(db, groupIds),
    db
      .select()
      .from(users)
      .where(
        sql`${users.id} IN (SELECT user_id FROM approval_merge_request_rules_users WHERE approval_merge_request_rule_id IN ${ruleIds}
          UNION SELECT m.user_id FROM members m WHERE m.source_type = 'Namespace' AND m.source_id IN ${groupIds} AND m.access_level > ${ACCESS.MINIMAL})`,
      ),
  ] as const;
}

type RuleReadsOf = ReturnType<typeof mergeRequestRuleReads>;
export type MergeRequestRuleReads = readonly [Awaited<RuleReadsOf[0]>, Awaited<RuleReadsOf[1]>, Awaited<RuleReadsOf[2]>, Awaited<RuleReadsOf[3]>];

/** The merge request's rules from what mergeRequestRuleReads read, their sources taken from `projectRules`. */
export function mergeRequestRulesFrom([rows, groups, groupMembers, userRows]: MergeRequestRuleReads, projectRules: LoadedRule[]): LoadedRule[] {
  const memberIds = new Map<number, number[]>();
  for (const m of groupMembers) memberIds.set(m.groupId, [...(memberIds.get(m.groupId) ?? []), m.userId]);
  const loaded = hydrateFrom('merge_request', rows, {
    userLinks: linksOf(rows, 'linkUsers', 'userId'),
    groupLinks: linksOf(rows, 'linkGroups', 'groupId'),
    pbLinks: [],
    groupRows: new Map(groups.map((g) => [g.id, g])),
    memberIds,
    userRows: new Map(userRows.map((u) => [u.id, u])),
    allBranches: [],
  });
  attachSources(rows, loaded, projectRules);
  return loaded;
}

/** A project's approval rules with their links, groups, members, users and protected branches, and the groups' visibility and names, keyed on the project id. */
export function projectRuleReads(db: Db, caller: Caller, projectId: SQL) {
  const ruleIds = sql`(SELECT r.id FROM approval_project_rules r WHERE r.project_id = ${projectId})`;
  const groupIds = sql`(SELECT group_id FROM approval_project_rules_groups WHERE approval_project_rule_id IN ${ruleIds})`;
  return [
    db.select().from(approvalProjectRules).where(eq(approvalProjectRules.projectId, projectId as unknown as number)).orderBy(asc(approvalProjectRules.id)),
    db.select().from(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.ruleId, ruleIds)),
    db.select().from(approvalProjectRulesGroups).where(inArray(approvalProjectRulesGroups.ruleId, ruleIds)),
    db.select().from(approvalProjectRulesProtectedBranches).where(inArray(approvalProjectRulesProtectedBranches.ruleId, ruleIds)),
    db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId as unknown as number)).orderBy(asc(protectedBranches.id)),
    db.select().from(namespaces).where(inArray(namespaces.id, groupIds)),
    groupUsersRead(db, groupIds),
    db
      .select()
      .from(users)
      .where(
        sql`${users.id} IN (SELECT user_id FROM approval_project_rules_users WHERE approval_project_rule_id IN ${ruleIds}
          UNION SELECT m.user_id FROM members m WHERE m.source_type = 'Namespace' AND m.source_id IN ${groupIds} AND m.access_level > ${ACCESS.MINIMAL})`,
      ),
    db.select({ id: namespaces.id }).from(namespaces).where(and(inArray(namespaces.id, groupIds), eq(namespaces.kind, 'Group'), groupVisibleSql(caller))),
    ancestorNames(db, groupIds),
  ] as const;
}

export type ProjectRuleReads = { [K in keyof ReturnType<typeof projectRuleReads>]: Awaited<ReturnType<typeof projectRuleReads>[K]> };

/** The project's rules from what projectRuleReads read; seeds the group names and visibility for the presenter when a memo is open. */
export function projectRulesFrom(c: Context<AppEnv>, r: ProjectRuleReads) {
  const [rules, userLinks, groupLinks, pbLinks, branches, groups, groupMembers, userRows, visible, ancestors] = r;
  const memberIds = new Map<number, number[]>();
  for (const m of groupMembers) memberIds.set(m.groupId, [...(memberIds.get(m.groupId) ?? []), m.userId]);
  const loaded = hydrateFrom('project', rules, {
    userLinks,
    groupLinks,
    pbLinks,
    groupRows: new Map(groups.map((g) => [g.id, g])),
    memberIds,
    userRows: new Map(userRows.map((u) => [u.id, u])),
    allBranches: branches,
  });
  primeMemo(c, [
    ['rule-groups:visible', { ids: new Set(groups.map((g) => g.id)), visible: new Set(visible.map((g) => g.id)) }],
    ['rule-groups:names', new Map([...ancestors.map((a) => [a.id, a.name] as const), ...groups.map((g) => [g.id, g.name] as const)])],
  ]);
  return loaded;
}
