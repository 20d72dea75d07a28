/**
 * `POST /projects/:id/merge_requests` (lib/api/merge_requests.rb, MergeRequests::CreateService):
 * the merge request, its first diff version, assignees, reviewers, labels, issue links, approval
 * rule and to-dos in one batch.
 */
import type { Caller } from '../platform/context';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { internalIds, labelLinks, mergeRequestAssignees, mergeRequestReviewers, mergeRequests, namespaces, projects, repoBranches, todos } from '../db/schema';
import { labelEvents, milestoneEvents } from '../issuables/resource-events';
import { TODO_ASSIGNED, TODO_REVIEW_REQUESTED } from '../issuables/todos';
import { ApiError, conflict, forbidden, recordNotFound, validationFailed } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { labelsFoundOrBuilt } from '../planning/labels';
import { projectAssignableMilestoneRead, projectLabelsByTitleRead } from '../planning/project-planning-reads';
import { optionalReads } from '../issuables/optional-reads';
import { canReadMergeRequests, canReadProject, projectAccess } from '../projects/abilities';
import { findReadableProjectWith } from '../projects/projects';
import { mergeRequestApprovals } from './approvals-port';
import { computeVersion, versionInsert } from './diffs';
import { diffLimitsOf } from '../repository/diff-limits';
import { issueLinkStatements } from './issue-references';
import { canCreateMergeRequest } from './merge-request-access';
import { isDraftTitle, type MergeRequest, type MergeRequestRow, MergeRequestSchema } from './merge-request-entity';
import { mergeRequestPresenterReads } from './merge-request-answer';
import { mergeFacts } from '../repository/repository';
import { assertNoOpenMergeRequest, otherOpenMergeRequest, validBranchName } from './merge-request-writes';
import { assigneeCountErrors, requestedAssignees, textErrors } from '../issuables/issuable-fields';
import { assignableFrom, peopleNamedRead, type PersonNamed } from './people-reads';
import { createMergeRequestParams } from './merge-requests-params';
import { recordEvent } from '../platform/events';

const TAGS = ['merge_requests'];

export function mountMergeRequestCreate(r: Router) {
  r.route(
    { method: 'POST', path: '/projects/:id/merge_requests', summary: 'Create a merge request', tags: TAGS, params: createMergeRequestParams, responses: { 201: MergeRequestSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const premium = planAllows(c.var.config, 'premium');
      const approvals = mergeRequestApprovals.get();
      const askedAssignees = requestedAssignees(p, premium);
      const askedReviewers = p.reviewer_ids === undefined ? undefined : premium ? p.reviewer_ids : p.reviewer_ids.slice(0, 1);
      const named = [...(askedAssignees ?? []), ...(askedReviewers ?? [])].filter((id) => id > 0);
      // The project, another open request for the branches, both branch heads, what the system
      // approval rules are built from (Premium), the users it names with their level, its milestone and
      // labels in one round trip; the writes, the rules' build and the answer's reads (its approval state too) in one more.
      let ruleReadCount = 0;
      const labelTitles = [...(p.labels ?? []), ...(p.add_labels ?? [])];
      let namedRows!: ReturnType<typeof namedReads>;
      const namedReads = (pid: SQL) =>
        optionalReads([
          named.length ? peopleNamedRead(c.var.db, pid, named) : undefined,
          p.milestone_id ? projectAssignableMilestoneRead(c.var.db, pid, p.milestone_id) : undefined,
          labelTitles.length ? projectLabelsByTitleRead(c.var.db, pid, labelTitles) : undefined,
        ] as const);
      const pr = await findReadableProjectWith(c, caller, p.id, (pid) => {
        const ruleList = premium ? (approvals.rulesReads?.(c.var.db, pid, p.target_branch) ?? []) : [];
        ruleReadCount = ruleList.length;
        return [
          c.var.db
            .select({ iid: mergeRequests.iid })
            .from(mergeRequests)
            .where(
              and(
                eq(mergeRequests.projectId, pid as unknown as number),
                eq(mergeRequests.sourceProjectId, pid as unknown as number),
                eq(mergeRequests.sourceBranch, p.source_branch),
                eq(mergeRequests.targetBranch, p.target_branch),
                inArray(mergeRequests.state, ['opened', 'locked']),
              ),
            )
            .limit(1),
          c.var.db
            .select({ name: repoBranches.name, sha: repoBranches.commitSha })
            .from(repoBranches)
            .where(and(eq(repoBranches.projectId, pid as unknown as number), inArray(repoBranches.name, [p.source_branch, p.target_branch]))),
          ...ruleList,
          ...(namedRows = namedReads(pid)).list,
        ] as const;
      });
      const [otherOpen, branchRows, ...more] = pr.reads;
      const ruleReads = more.slice(0, ruleReadCount);
      const [peopleRows, milestoneRows, labelRows] = namedRows.unpack(more.slice(ruleReadCount));
      const people = (peopleRows ?? []) as PersonNamed[];
      // `authorize! :create_merge_request_from, user_project`.
      if (!canCreateMergeRequest(caller, pr.project, pr.level)) throw forbidden();
      const db = c.var.db;
      const { project, namespace } = pr;

      // CreateService#set_projects!: another target project must be a fork of this one (no forks here).
      if (p.target_project_id !== undefined && p.target_project_id !== project.id) {
        const target = await db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, p.target_project_id)).get();
        if (!target) throw recordNotFound();
        const level = await projectAccess(db, user, target.project, target.namespace);
        if (canReadProject(caller, target.project, level) && canReadMergeRequests(caller, target.project, level))
          throw new ApiError(422, { message: ['Source project is not a fork of the target project'] });
      }

      const errors = {
        ...textErrors({ title: p.title, description: p.description }),
        ...assigneeCountErrors({ assignees: askedAssignees, reviewers: askedReviewers }),
      };
      if (Object.keys(errors).length) throw validationFailed(errors);
      // MergeRequest#validate_branches.
      if (p.source_branch === p.target_branch) throw new ApiError(422, { message: ["You can't use same project/branch for source and target"] });
      const branchErrors: Record<string, string[]> = {};
      if (!validBranchName(p.source_branch)) branchErrors.source_branch = ['is invalid'];
      if (!validBranchName(p.target_branch)) branchErrors.target_branch = ['is invalid'];
      if (Object.keys(branchErrors).length) throw validationFailed(branchErrors);
      if (otherOpen[0]) throw otherOpenMergeRequest(otherOpen[0].iid);
      // MergeRequests::BuildService#validate_branches: both branches must exist.
      const headOf = (name: string) => branchRows.find((b) => b.name === name)?.sha ?? null;
      const [head, targetHead] = [headOf(p.source_branch), headOf(p.target_branch)];
      const missing: string[] = [];
      if (!head) missing.push(`Source branch "${p.source_branch}" does not exist`);
      if (!targetHead) missing.push(`Target branch "${p.target_branch}" does not exist`);
      if (missing.length) throw new ApiError(422, { message: missing });
      // The merge base with the files of both heads and of the base, in one round trip when this
      // isolate has not seen the heads (merge-facts.ts): kept per isolate, so the diff version, the
      // system rules and the answer's merge status read nothing more.
      const [{ base }] = await mergeFacts(db, [{ projectId: project.id, targetHead: targetHead!, head: head! }]);
      const version = await computeVersion(db, project.id, head, targetHead, base);
      const { maxFiles } = await diffLimitsOf(c);

      const now = Date.now();
      // Assignees and reviewers must be able to read the project's merge requests.
      const mayReadMergeRequests = (u: Caller, level: number) => canReadMergeRequests(u, project, level);
      const assigneeIds = assignableFrom(people, askedAssignees, mayReadMergeRequests) ?? [];
      const reviewerIds = assignableFrom(people, askedReviewers, mayReadMergeRequests) ?? [];
      const milestoneId = milestoneRows?.[0]?.id ?? null;
      const labels = labelRows ? labelsFoundOrBuilt(db, project.id, labelRows, labelTitles, now) : null;

      const P = project.id;
      const iidSql = sql<number>`(select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'merge_requests' and ${internalIds.scopeId} = ${P})`;
      const mrIdSql = sql<number>`(select ${mergeRequests.id} from ${mergeRequests} where ${mergeRequests.projectId} = ${P} and ${mergeRequests.iid} = ${iidSql})`;
      const links = await issueLinkStatements(c, user, project, namespace, p.description, mrIdSql, now, false);
      const allowCollaboration = p.allow_collaboration ?? p.allow_maintainer_to_push ?? false;
      // MergeRequests::CreateService's after_create sync of the code owner and report approver rules,
      // built in the same batch, the row inserted with what they were built from (system-rules.ts).
      const rules = await approvals.createRules?.(c, { mrId: mrIdSql, projectId: P, targetBranch: p.target_branch, targetHead: targetHead!, head: head!, base, now }, ruleReads);

      const statements: BatchItem<'sqlite'>[] = [
        ...(labels?.inserts ?? []),
        db
          .insert(internalIds)
          .values({ usage: 'merge_requests', scopeId: P, lastValue: 1 })
          .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`${internalIds.lastValue} + 1` } }),
        db.insert(mergeRequests).values({
          projectId: P,
          iid: iidSql,
          sourceProjectId: P,
          sourceBranch: p.source_branch,
          targetBranch: p.target_branch,
          title: p.title,
          description: p.description ?? null,
          draft: isDraftTitle(p.title),
          authorId: user.id,
          milestoneId,
          squash: p.squash ?? false,
          forceRemoveSourceBranch: p.remove_source_branch ?? null,
          allowCollaboration,
          approvalsBeforeMerge: premium ? (p.approvals_before_merge ?? null) : null,
          mergeStatus: 'unchecked',
          headSha: head,
          baseSha: base,
          startSha: targetHead,
          systemRulesSyncedFor: rules?.key ?? null,
          createdAt: now,
          updatedAt: now,
        }),
        // MergeRequest after_create: the first diff version (ensure_merge_request_diff).
        versionInsert(db, mrIdSql, version, now, maxFiles),
        ...assigneeIds.map((userId, position) => db.insert(mergeRequestAssignees).values({ mergeRequestId: mrIdSql, userId, position, createdAt: now })),
        ...reviewerIds.map((userId, position) => db.insert(mergeRequestReviewers).values({ mergeRequestId: mrIdSql, userId, position, createdAt: now })),
        // Resource events of the new merge request's labels and milestone (Issuable::CommonSystemNotesService on create).
        ...labelEvents(db, { type: 'MergeRequest', id: mrIdSql }, (labels?.ids ?? []).map((l) => l.id), [], user.id, now),
        ...milestoneEvents(db, { type: 'MergeRequest', id: mrIdSql }, null, milestoneId, 'opened', user.id, now),
        ...(labels?.ids ?? []).map((l) => db.insert(labelLinks).values({ labelId: l.id, targetType: 'MergeRequest', targetId: mrIdSql, createdAt: now }).onConflictDoNothing()),
        ...links,
        // DeprecatedApprovalsBeforeMerge (EE): the merge request's any_approver rule.
        ...(premium && p.approvals_before_merge !== undefined ? [approvals.approvalsBeforeMerge(db, mrIdSql, p.approvals_before_merge, now)] : []),
        ...(rules?.writes ?? []),
        // TodoService#new_merge_request: assignees (assigned) and reviewers (review requested), not the author.
        ...assigneeIds
          .filter((id) => id !== user.id)
          .map((userId) => db.insert(todos).values({ userId, authorId: user.id, projectId: P, targetType: 'MergeRequest', targetId: mrIdSql, action: TODO_ASSIGNED, state: 'pending', createdAt: now, updatedAt: now })),
        ...reviewerIds
          .filter((id) => id !== user.id)
          .map((userId) => db.insert(todos).values({ userId, authorId: user.id, projectId: P, targetType: 'MergeRequest', targetId: mrIdSql, action: TODO_REVIEW_REQUESTED, state: 'pending', createdAt: now, updatedAt: now })),
        ...recordEvent(c, { kind: 'merge_request', projectId: P, objectId: mrIdSql, action: 'open', actorId: user.id }),
      ];
      // The answer's reads end the batch: the new row by its iid (the counter the batch just moved),
      // with its approval state (the rules just built), so presenting it reads nothing more.
      const newIds = sql`(SELECT m.id FROM merge_requests m WHERE m.project_id = ${P} AND m.iid = ${iidSql})`;
      const answer = mergeRequestPresenterReads(c, caller, newIds, { full: true, project }, { projectId: P, iid: iidSql });
      const row = db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, P), eq(mergeRequests.iid, iidSql))).limit(1);
      let results: unknown[];
      try {
        results = (await db.batch([...statements, row, ...answer.list] as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown as unknown[];
      } catch (err) {
        // A create racing another for the same branches loses on merge_requests_open_branches.
        if (isUniqueViolation(err, 'source_branch') || isUniqueViolation(err, 'merge_requests_open_branches')) {
          await assertNoOpenMergeRequest(c, project.id, p.source_branch, p.target_branch);
          throw conflict('Another open merge request already exists for this source branch');
        }
        throw err;
      }
      const created = (results[statements.length] as MergeRequestRow[])[0];
      return c.json((await answer.present(results.slice(statements.length + 1), [created]))[0] as MergeRequest, 201);
    },
  );
}
