/**
 * What the approval state of a PAGE of merge requests reads (issue 13: a list page costs a fixed
 * number of round trips whatever its size), as unexecuted statements keyed on two SQL sets: the
 * page's merge request ids and their projects' ids (sub-selects hanging off the page query, so
 * they ride in the batch that reads the page itself). `primeApprovalPage` seeds the request's read
 * memo under the keys state-loader.ts reads (the project's configuration and settings, each merge
 * request's rules and approvals, the users, the CODEOWNERS candidates at the target heads), so the
 * approval arithmetic of every row then runs without a query. The one-merge-request twin is
 * state-reads.ts. Committers (only when committers may not approve) and patch ids (only for an
 * approval given at another HEAD) stay lazy: they cost a read only when the setting asks for them.
 */
import { and, asc, gt, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import {
  approvalMergeRequestRules,
  approvalMergeRequestRulesGroups,
  approvalMergeRequestRulesUsers,
  approvalProjectRules,
  approvalProjectRulesGroups,
  approvalProjectRulesProtectedBranches,
  approvalProjectRulesUsers,
  approvals,
  members,
  namespaces,
  projectApprovalSettings,
  protectedBranches,
  repoCommitFiles,
  users,
} from '../db/schema';
import { ACCESS, activeMember, type NamespaceRow } from '../projects/abilities';
import { isMemoised, primeMemo } from '../platform/read-memo';
import { CODEOWNERS_PATHS } from './code-owners';
import type { MergeRequestRow } from './state';
import { attachSources, defaultSettings, hydrateFrom, type RuleLinks } from './rules';

const within = (column: SQL | { getSQL(): SQL }, set: SQL) => sql`${column} IN ${set}`;

/** What a page reads of the users its approval state names (the columns the basic user entity shows). */
const PAGE_USER_FIELDS = { id: users.id, username: users.username, name: users.name, state: users.state, avatarPath: users.avatarPath, email: users.email, publicEmail: users.publicEmail };

/** The statements, in the order `primeApprovalPage` reads their results. */
export function approvalPageReads(db: Db, ids: SQL, projectIds: SQL) {
  const projectRuleIds = sql`(SELECT r.id FROM approval_project_rules r WHERE r.project_id IN ${projectIds})`;
  const mrRuleIds = sql`(SELECT r.id FROM approval_merge_request_rules r WHERE r.merge_request_id IN ${ids})`;
  const groupIds = sql`(SELECT group_id FROM approval_project_rules_groups WHERE approval_project_rule_id IN ${projectRuleIds}
    UNION SELECT group_id FROM approval_merge_request_rules_groups WHERE approval_merge_request_rule_id IN ${mrRuleIds})`;
  return [
    db.select().from(protectedBranches).where(within(protectedBranches.projectId, projectIds)).orderBy(asc(protectedBranches.id)),
    db.select().from(approvalProjectRules).where(within(approvalProjectRules.projectId, projectIds)).orderBy(asc(approvalProjectRules.id)),
    db.select().from(approvalProjectRulesUsers).where(within(approvalProjectRulesUsers.ruleId, projectRuleIds)),
    db.select().from(approvalProjectRulesGroups).where(within(approvalProjectRulesGroups.ruleId, projectRuleIds)),
    db.select().from(approvalProjectRulesProtectedBranches).where(within(approvalProjectRulesProtectedBranches.ruleId, projectRuleIds)),
    db.select().from(approvalMergeRequestRules).where(within(approvalMergeRequestRules.mergeRequestId, ids)).orderBy(asc(approvalMergeRequestRules.id)),
    db.select().from(approvalMergeRequestRulesUsers).where(within(approvalMergeRequestRulesUsers.ruleId, mrRuleIds)),
    db.select().from(approvalMergeRequestRulesGroups).where(within(approvalMergeRequestRulesGroups.ruleId, mrRuleIds)),
    db.select().from(namespaces).where(within(namespaces.id, groupIds)),
    // Group#users (direct members above minimal access, membership in force).
    db
      .select({ groupId: members.sourceId, userId: members.userId })
      .from(members)
      .where(and(sql`${members.sourceType} = 'Namespace'`, within(members.sourceId, groupIds), gt(members.accessLevel, ACCESS.MINIMAL), activeMember()))
      .orderBy(asc(members.userId)),
    // The approval arithmetic of a list row reads only who the users are and whether they are active
    // (approved?): their other columns, which cost the page as much again to read, are not read.
    db
      .select(PAGE_USER_FIELDS)
      .from(users)
      .where(
        sql`${users.id} IN (SELECT user_id FROM approval_project_rules_users WHERE approval_project_rule_id IN ${projectRuleIds}
          UNION SELECT user_id FROM approval_merge_request_rules_users WHERE approval_merge_request_rule_id IN ${mrRuleIds}
          UNION SELECT user_id FROM approvals WHERE merge_request_id IN ${ids}
          UNION SELECT m.user_id FROM members m WHERE m.source_type = 'Namespace' AND m.source_id IN ${groupIds} AND m.access_level > ${ACCESS.MINIMAL})`,
      ),
    db.select().from(projectApprovalSettings).where(within(projectApprovalSettings.projectId, projectIds)),
    db.select().from(approvals).where(within(approvals.mergeRequestId, ids)).orderBy(asc(approvals.createdAt), asc(approvals.id)),
    // Repository#code_owners_blob candidates at each open merge request's target head, keyed by
    // rowid through the primary key (project, sha, path): a `(project_id, commit_sha) IN (…)` test
    // used only its first column and read every file of the project (~4 ms of a page on dataset M).
    db
      .select()
      .from(repoCommitFiles)
      .where(
        sql`rowid IN (SELECT f.rowid FROM merge_requests m JOIN repo_branches b ON b.project_id = m.project_id AND b.name = m.target_branch
          JOIN repo_commit_files f ON f.project_id = b.project_id AND f.commit_sha = b.commit_sha
          WHERE m.id IN ${ids} AND m.state IN ('opened', 'locked') AND f.path IN (SELECT value FROM json_each(${JSON.stringify(CODEOWNERS_PATHS)})))`,
      ),
  ] as const;
}

export type ApprovalPageReads = { [K in keyof ReturnType<typeof approvalPageReads>]: Awaited<ReturnType<typeof approvalPageReads>[K]> };

/**
 * Seeds the read memo (only inside withReadMemo) from what the page's batch read. `heads` are the
 * target heads the presenter read for the same page (`projectId:branch` -> sha), which key the
 * CODEOWNERS candidates.
 */
export function primeApprovalPage(c: Context<AppEnv>, mrs: readonly MergeRequestRow[], r: ApprovalPageReads, heads: ReadonlyMap<string, string>): void {
  if (!isMemoised(c) || !mrs.length) return;
  const [branches, pRules, pUsers, pGroups, pBranches, mRules, mUsers, mGroups, groups, groupMembers, userRows, settings, approvalRows, codeOwners] = r;
  // Partial rows (PAGE_USER_FIELDS) under the UserRow type: within a list request only the approval
  // arithmetic (ids, state) reads them from the memo; no entity of the list shows them.
  const usersById = new Map<number, UserRow>(userRows.map((u) => [u.id, u as UserRow]));
  const groupsById = new Map<number, NamespaceRow>(groups.map((g) => [g.id, g]));
  const membersOf = new Map<number, number[]>();
  for (const m of groupMembers) membersOf.set(m.groupId, [...(membersOf.get(m.groupId) ?? []), m.userId]);
  const links = (userLinks: RuleLinks['userLinks'], groupLinks: RuleLinks['groupLinks'], pbLinks: RuleLinks['pbLinks'], allBranches: RuleLinks['allBranches']): RuleLinks => ({
    userLinks,
    groupLinks,
    pbLinks,
    groupRows: groupsById,
    memberIds: membersOf,
    userRows: usersById,
    allBranches,
  });
  const entries: [string, unknown][] = [];
  const projectRulesOf = new Map<number, ReturnType<typeof hydrateFrom>>();
  for (const pid of new Set(mrs.map((m) => m.projectId))) {
    const own = branches.filter((b) => b.projectId === pid);
    const projectRules = hydrateFrom('project', pRules.filter((x) => x.projectId === pid), links(pUsers, pGroups, pBranches, own));
    projectRulesOf.set(pid, projectRules);
    entries.push(
      [`protected-branches:${pid}`, own],
      [`approval-config:${pid}`, { branches: own, projectRules }],
      [`approval-settings:${pid}`, settings.find((s) => s.projectId === pid) ?? defaultSettings(pid)],
    );
  }
  for (const mr of mrs) {
    const rows = mRules.filter((x) => x.mergeRequestId === mr.id);
    const rules = hydrateFrom('merge_request', rows, links(mUsers, mGroups, [], []));
    attachSources(rows, rules, projectRulesOf.get(mr.projectId) ?? []);
    entries.push([`mr-rules:${mr.id}`, rules], [`approvals:${mr.id}`, approvalRows.filter((a) => a.mergeRequestId === mr.id)]);
    const targetHead = heads.get(`${mr.projectId}:${mr.targetBranch}`);
    if (targetHead) entries.push([`codeowners-candidates:${mr.projectId}:${targetHead}`, codeOwners.filter((f) => f.projectId === mr.projectId && f.commitSha === targetHead)]);
  }
  for (const u of usersById.values()) entries.push([`user:${u.id}`, u]);
  primeMemo(c, entries);
}
