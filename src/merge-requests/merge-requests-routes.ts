/**
 * Merge requests (GitLab lib/api/merge_requests.rb): the three lists, create, get, update, delete,
 * merge, and the read-only sub-resources (participants, reviewers, commits, changes, diffs,
 * closes_issues). Abilities, live state and the presenter live in services/merge-requests.ts, the
 * list query in services/merge-request-finder.ts.
 */
import { z } from 'zod';
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import {
  internalIds,
  issueAssignees,
  issues,
  labelLinks,
  mergeRequestAssignees,
  mergeRequestMentionedIssues,
  mergeRequestReviewers,
  mergeRequests,
  mergeRequestsClosingIssues,
  notes,
  projects,
  namespaces,
  todos,
  users,
} from '../db/schema';
import { draftlessTitle, isDraftTitle, type MergeRequestRow } from './merge-request-entity';
import { userBasic } from '../users/user-entity';
import { ACCESS, canReadProject, featureAvailable, type NamespaceRow, projectAccess, type ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, conflict, forbidden, grapeError, recordNotFound, unauthorized, validationFailed } from '../platform/errors';
import { baseUrl, linkParamsFrom, MAX_COUNT, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireUser } from '../platform/guards';
import { applicationLimit, clientIp } from '../settings/rate-limits';
import {
  allMergeRequestsParams,
  createMergeRequestParams,
  getMergeRequestParams,
  groupMergeRequestsParams,
  type MergeRequestListParams,
  mergeRequestPageParams,
  mergeRequestRefParams,
  mrListDefaults,
  mrNotRuleErrors,
  projectMergeRequestsParams,
  updateMergeRequestParams,
} from './merge-requests-params';
import { mergeRequestApprovals } from './approvals-port';
import { findReadableGroup } from '../projects/groups';
import { presentIssues } from '../issues/issue-presenter';
import { findOrBuildProjectLabels } from '../planning/labels';
import { buildMergeRequestQuery, mergeRequestCount, mergeRequestPage, type MrFinderParent } from './finder';
import {
  autoMergeIfReady,
  canAdminMergeRequest,
  canCreateMergeRequest,
  canUpdateMergeRequest,
  findReadableMergeRequest,
  issueLinkStatements,
  mergeRequestAssigneeIds,
  mergeRequestReviewerIds,
  presentMergeRequest,
  presentMergeRequests,
  repo,
} from './merge-requests';
import { canReadMergeRequests } from '../projects/abilities';
import { MergeRequestBasicSchema, MergeRequestSchema, mergeRequestSimple, MergeRequestSimpleSchema } from './merge-request-entity';
import { computeVersion, versionInsert } from './diffs';
import { findProjectAssignableMilestone } from '../planning/milestones';
import { findReadableProject } from '../projects/projects';
import { canReadConfidentialIssue } from '../issues/issues';
import { assigneesNote, DESCRIPTION_NOTE, systemNoteInsert, titleNote, toSentence } from '../issuables/system-notes';
import { resolveTodosForTarget } from '../issuables/todos';
import { mountMergeRequestActions } from './actions-routes';
import { mountMergeRequestDiffs } from './diffs-routes';
import { mountMergeRequestPipelines } from './pipelines-routes';
import { mountMergeRequestRebase } from './rebase-routes';
import { mountMergeRequestTimeTracking } from './time-tracking-routes';
import { TODO_ASSIGNED, TODO_REVIEW_REQUESTED } from '../issuables/todos';
import { asBatch, cascade } from '../platform/cascade';

const TAGS = ['merge_requests'];
const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1_048_576;

/** `view=simple` lists answer MergeRequestSimple. */
const MergeRequestListSchema = z.union([z.array(MergeRequestBasicSchema), z.array(MergeRequestSimpleSchema)]);

export function mountMergeRequests(r: Router) {
  // ------------------------------------------------------------------------------------------
  // Lists

  r.route({ method: 'GET', path: '/merge_requests', summary: 'List merge requests', tags: TAGS, params: allMergeRequestsParams, responses: { 200: MergeRequestListSchema } }, async ({ c, p, caller }) => {
    // `authenticate! unless params[:scope] == 'all'`.
    if (p.scope !== 'all' && !caller.user) throw unauthorized();
    return listMergeRequests(c, caller, p, { kind: 'all' }, 'all', {});
  });

  r.route({ method: 'GET', path: '/groups/:id/merge_requests', summary: 'List group merge requests', tags: TAGS, params: groupMergeRequestsParams, responses: { 200: MergeRequestListSchema } }, async ({ c, p, caller }) => {
    const { group } = await findReadableGroup(c, caller, p.id);
    return listMergeRequests(c, caller, p, { kind: 'group', group }, 'group', { group });
  });

  r.route({ method: 'GET', path: '/projects/:id/merge_requests', summary: 'List project merge requests', tags: TAGS, params: projectMergeRequestsParams, responses: { 200: MergeRequestListSchema } }, async ({ c, p, caller }) => {
    const { project, level } = await findReadableProject(c, caller, p.id);
    // `authorize! :read_merge_request, user_project`.
    if (!canReadMergeRequests(caller, project, level)) throw forbidden();
    return listMergeRequests(c, caller, p, { kind: 'project', project }, 'project', { project });
  });

  // ------------------------------------------------------------------------------------------
  // Create

  r.route(
    { method: 'POST', path: '/projects/:id/merge_requests', summary: 'Create a merge request', tags: TAGS, params: createMergeRequestParams, status: 201 },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const pr = await findReadableProject(c, caller, p.id);
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

      const errors = textErrors({ title: p.title, description: p.description });
      if (Object.keys(errors).length) throw validationFailed(errors);
      // MergeRequest#validate_branches.
      if (p.source_branch === p.target_branch) throw new ApiError(422, { message: ["You can't use same project/branch for source and target"] });
      const branchErrors: Record<string, string[]> = {};
      if (!validBranchName(p.source_branch)) branchErrors.source_branch = ['is invalid'];
      if (!validBranchName(p.target_branch)) branchErrors.target_branch = ['is invalid'];
      if (Object.keys(branchErrors).length) throw validationFailed(branchErrors);
      await assertNoOpenMergeRequest(c, project.id, p.source_branch, p.target_branch);
      // MergeRequests::BuildService#validate_branches: both branches must exist.
      const [head, targetHead] = await Promise.all([repo.branchHead(c, project.id, p.source_branch), repo.branchHead(c, project.id, p.target_branch)]);
      const missing: string[] = [];
      if (!head) missing.push(`Source branch "${p.source_branch}" does not exist`);
      if (!targetHead) missing.push(`Target branch "${p.target_branch}" does not exist`);
      if (missing.length) throw new ApiError(422, { message: missing });
      const base = await repo.mergeBase(c, project.id, targetHead!, head!);
      const version = await computeVersion(db, project.id, head, targetHead, base);

      const now = Date.now();
      const premium = planAllows(c.var.config, 'premium');
      const assigneeIds = (await assignableUsers(c, project, namespace, requestedAssignees(p, premium))) ?? [];
      const reviewerIds = (await assignableUsers(c, project, namespace, p.reviewer_ids === undefined ? undefined : premium ? p.reviewer_ids : p.reviewer_ids.slice(0, 1))) ?? [];
      const milestoneId = p.milestone_id ? ((await findProjectAssignableMilestone(db, project, namespace, p.milestone_id))?.id ?? null) : null;
      const labelTitles = [...(p.labels ?? []), ...(p.add_labels ?? [])];
      const labels = labelTitles.length ? await findOrBuildProjectLabels(db, project, namespace, labelTitles, now) : null;

      const P = project.id;
      const iidSql = sql<number>`(select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'merge_requests' and ${internalIds.scopeId} = ${P})`;
      const mrIdSql = sql<number>`(select ${mergeRequests.id} from ${mergeRequests} where ${mergeRequests.projectId} = ${P} and ${mergeRequests.iid} = ${iidSql})`;
      const links = await issueLinkStatements(c, user, project, namespace, p.description, mrIdSql, now, false);
      const allowCollaboration = p.allow_collaboration ?? p.allow_maintainer_to_push ?? false;

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
          createdAt: now,
          updatedAt: now,
        }),
        // MergeRequest after_create: the first diff version (ensure_merge_request_diff).
        versionInsert(db, mrIdSql, version, now),
        ...assigneeIds.map((userId, position) => db.insert(mergeRequestAssignees).values({ mergeRequestId: mrIdSql, userId, position, createdAt: now })),
        ...reviewerIds.map((userId, position) => db.insert(mergeRequestReviewers).values({ mergeRequestId: mrIdSql, userId, position, createdAt: now })),
        ...(labels?.ids ?? []).map((l) => db.insert(labelLinks).values({ labelId: l.id, targetType: 'MergeRequest', targetId: mrIdSql, createdAt: now }).onConflictDoNothing()),
        ...links,
        // DeprecatedApprovalsBeforeMerge (EE): the merge request's any_approver rule.
        ...(premium && p.approvals_before_merge !== undefined ? [mergeRequestApprovals.get().approvalsBeforeMerge(db, mrIdSql, p.approvals_before_merge, now)] : []),
        // TodoService#new_merge_request: assignees (assigned) and reviewers (review requested), not the author.
        ...assigneeIds
          .filter((id) => id !== user.id)
          .map((userId) => db.insert(todos).values({ userId, authorId: user.id, projectId: P, targetType: 'MergeRequest', targetId: mrIdSql, action: TODO_ASSIGNED, state: 'pending', createdAt: now, updatedAt: now })),
        ...reviewerIds
          .filter((id) => id !== user.id)
          .map((userId) => db.insert(todos).values({ userId, authorId: user.id, projectId: P, targetType: 'MergeRequest', targetId: mrIdSql, action: TODO_REVIEW_REQUESTED, state: 'pending', createdAt: now, updatedAt: now })),
      ];
      try {
        await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
      } catch (err) {
        // A create racing another for the same branches loses on merge_requests_open_branches.
        if (isUniqueViolation(err, 'source_branch') || isUniqueViolation(err, 'merge_requests_open_branches')) {
          await assertNoOpenMergeRequest(c, project.id, p.source_branch, p.target_branch);
          throw conflict('Another open merge request already exists for this source branch');
        }
        throw err;
      }
      const created = await db
        .select()
        .from(mergeRequests)
        .where(and(eq(mergeRequests.projectId, P), eq(mergeRequests.sourceBranch, p.source_branch), eq(mergeRequests.targetBranch, p.target_branch), eq(mergeRequests.state, 'opened')))
        .get();
      return c.json(await presentMergeRequest(c, caller, created!, { project }), 201);
    },
  );

  // ------------------------------------------------------------------------------------------
  // Single merge request

  r.route({ method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid', summary: 'Get a merge request', tags: TAGS, params: getMergeRequestParams, responses: { 200: MergeRequestSchema } }, async ({ c, p, caller }) => {
    const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
    // AutoMergeProcessWorker runs asynchronously in GitLab; here a queued automatic merge whose
    // checks now pass (an approval arrived) completes no later than the next read.
    if (found.mr.mergeWhenPipelineSucceeds && found.mr.state === 'opened' && (await autoMergeIfReady(c, found.mr.id)))
      found.mr = (await c.var.db.select().from(mergeRequests).where(eq(mergeRequests.id, found.mr.id)).get()) ?? found.mr;
    return c.json(
      await presentMergeRequest(c, caller, found.mr, {
        project: found.project,
        firstContribution: true,
        includeRebaseInProgress: p.include_rebase_in_progress,
        includeDivergedCommitsCount: p.include_diverged_commits_count,
      }),
    );
  });

  r.route(
    { method: 'PUT', path: '/projects/:id/merge_requests/:merge_request_iid', summary: 'Update a merge request', tags: TAGS, params: updateMergeRequestParams },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const { mr, project, namespace, level } = found;
      const db = c.var.db;
      const assigneesBefore = await mergeRequestAssigneeIds(db, mr.id);
      if (!canUpdateMergeRequest(caller, project, level, mr, assigneesBefore)) throw forbidden();
      const now = Date.now();
      const premium = planAllows(c.var.config, 'premium');
      const admin = canAdminMergeRequest(caller, project, level);
      const open = mr.state === 'opened' || mr.state === 'locked';

      const errors = textErrors({ title: p.title, description: p.description });
      if (Object.keys(errors).length) throw validationFailed(errors);

      const set: Partial<typeof mergeRequests.$inferInsert> = {};
      const noteBodies: string[] = [];
      if (p.title !== undefined && p.title !== mr.title) {
        set.title = p.title;
        set.draft = isDraftTitle(p.title);
        // SystemNoteService.change_title on the draftless titles, then handle_merge_request_draft.
        if (draftlessTitle(mr.title) !== draftlessTitle(p.title)) noteBodies.push(titleNote(draftlessTitle(mr.title), draftlessTitle(p.title)));
        if (set.draft !== mr.draft) noteBodies.push(`marked this merge request as **${set.draft ? 'draft' : 'ready'}**`);
      }
      if (p.description !== undefined && p.description !== (mr.description ?? '')) {
        set.description = p.description;
        noteBodies.push(DESCRIPTION_NOTE);
      }
      if (p.target_branch !== undefined && p.target_branch !== mr.targetBranch) {
        // MergeRequests::UpdateService: the target branch of a merged request cannot change.
        if (mr.state === 'merged') throw new ApiError(422, { message: ['Cannot change target branch of a merged merge request'] });
        if (p.target_branch === mr.sourceBranch) throw new ApiError(422, { message: ["You can't use same project/branch for source and target"] });
        if (!validBranchName(p.target_branch)) throw validationFailed({ target_branch: ['is invalid'] });
        set.targetBranch = p.target_branch;
        noteBodies.push(`changed target branch from \`${mr.targetBranch}\` to \`${p.target_branch}\``);
      }
      if (p.squash !== undefined && p.squash !== mr.squash) set.squash = p.squash;
      if (p.remove_source_branch !== undefined && p.remove_source_branch !== mr.forceRemoveSourceBranch) set.forceRemoveSourceBranch = p.remove_source_branch;
      const collab = p.allow_collaboration ?? p.allow_maintainer_to_push;
      if (collab !== undefined && collab !== mr.allowCollaboration) set.allowCollaboration = collab;

      const closing = p.state_event === 'close' && open;
      // MergeRequest#reopenable?: the source branch must still exist; otherwise the event does nothing.
      const reopening = p.state_event === 'reopen' && mr.state === 'closed' && (await repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch)) != null;
      if (closing) {
        const live = await liveRefs(c, mr);
        Object.assign(set, { state: 'closed', closedAt: now, closedById: user.id, headSha: live.head ?? mr.headSha, baseSha: live.base ?? mr.baseSha, startSha: live.target ?? mr.startSha });
      }
      if (reopening) {
        // No other open request for the same branches (MergeRequest#validate_branches).
        await assertNoOpenMergeRequest(c, project.id, mr.sourceBranch, set.targetBranch ?? mr.targetBranch, mr.id);
        Object.assign(set, { state: 'opened', closedAt: null, closedById: null });
      }
      if (set.targetBranch !== undefined && (open || reopening)) await assertNoOpenMergeRequest(c, project.id, mr.sourceBranch, set.targetBranch, mr.id);

      // Metadata needs admin_merge_request (IssuableBaseService#filter_params drops it for others).
      if (admin) {
        if (p.discussion_locked !== undefined && p.discussion_locked !== Boolean(mr.discussionLocked)) {
          set.discussionLocked = p.discussion_locked;
          noteBodies.push(`${p.discussion_locked ? 'locked' : 'unlocked'} the discussion in this merge request`);
        } else if (p.discussion_locked !== undefined && mr.discussionLocked == null) set.discussionLocked = p.discussion_locked;
        if (p.milestone_id !== undefined) {
          const m = p.milestone_id ? await findProjectAssignableMilestone(db, project, namespace, p.milestone_id) : undefined;
          const id = m?.id ?? null;
          if (id !== mr.milestoneId && (m || !p.milestone_id)) set.milestoneId = id;
        }
      }

      const statements: BatchItem<'sqlite'>[] = [];
      // "Set to 0 or provide an empty value to unassign all": CommaSeparatedToIntegerArray turns ''
      // into [] (the shared validator drops blank optionals before coercion).
      const raw = await requestParams(c);
      if (raw.assignee_ids === '' && p.assignee_ids === undefined && p.assignee_id === undefined) p.assignee_ids = [];
      if (raw.reviewer_ids === '' && p.reviewer_ids === undefined) p.reviewer_ids = [];
      if (admin) {
        // Assignees.
        const next = await assignableUsers(c, project, namespace, requestedAssignees(p, premium));
        if (next !== undefined && next.join() !== assigneesBefore.join()) {
          const added = next.filter((id) => !assigneesBefore.includes(id));
          const removed = assigneesBefore.filter((id) => !next.includes(id));
          statements.push(db.delete(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mr.id)));
          next.forEach((userId, position) => statements.push(db.insert(mergeRequestAssignees).values({ mergeRequestId: mr.id, userId, position, createdAt: now })));
          const names = await usernames(c, [...added, ...removed]);
          const body = assigneesNote(added.map((id) => names.get(id)!), removed.map((id) => names.get(id)!));
          if (body) noteBodies.push(body);
          for (const userId of added.filter((id) => id !== user.id))
            statements.push(db.insert(todos).values({ userId, authorId: user.id, projectId: project.id, targetType: 'MergeRequest', targetId: mr.id, action: TODO_ASSIGNED, state: 'pending', createdAt: now, updatedAt: now }));
        }
        // Reviewers.
        const reviewersBefore = await mergeRequestReviewerIds(db, mr.id);
        const nextReviewers = await assignableUsers(c, project, namespace, p.reviewer_ids === undefined ? undefined : premium ? p.reviewer_ids : p.reviewer_ids.slice(0, 1));
        if (nextReviewers !== undefined && nextReviewers.join() !== reviewersBefore.join()) {
          const added = nextReviewers.filter((id) => !reviewersBefore.includes(id));
          const removed = reviewersBefore.filter((id) => !nextReviewers.includes(id));
          if (removed.length) statements.push(db.delete(mergeRequestReviewers).where(and(eq(mergeRequestReviewers.mergeRequestId, mr.id), inArray(mergeRequestReviewers.userId, removed))));
          nextReviewers.forEach((userId, position) =>
            statements.push(
              db
                .insert(mergeRequestReviewers)
                .values({ mergeRequestId: mr.id, userId, position, createdAt: now })
                .onConflictDoUpdate({ target: [mergeRequestReviewers.mergeRequestId, mergeRequestReviewers.userId], set: { position } }),
            ),
          );
          const names = await usernames(c, [...added, ...removed]);
          const body = reviewersNote(added.map((id) => names.get(id)!), removed.map((id) => names.get(id)!));
          if (body) noteBodies.push(body);
          for (const userId of added.filter((id) => id !== user.id))
            statements.push(
              db.insert(todos).values({ userId, authorId: user.id, projectId: project.id, targetType: 'MergeRequest', targetId: mr.id, action: TODO_REVIEW_REQUESTED, state: 'pending', createdAt: now, updatedAt: now }),
            );
        }
        // Labels: `labels` replaces, then add_labels / remove_labels.
        if (p.labels !== undefined || p.add_labels !== undefined || p.remove_labels !== undefined) {
          const current = await db.select({ labelId: labelLinks.labelId }).from(labelLinks).where(and(eq(labelLinks.targetType, 'MergeRequest'), eq(labelLinks.targetId, mr.id))).all();
          const currentIds = current.map((l) => l.labelId);
          const toAdd = await findOrBuildProjectLabels(db, project, namespace, [...(p.labels ?? []), ...(p.add_labels ?? [])], now);
          const toRemove = p.remove_labels?.length ? await findOrBuildProjectLabels(db, project, namespace, p.remove_labels, now, { create: false }) : null;
          const removeIds = new Set((toRemove?.existing ?? []).map((l) => l.id));
          const keep = p.labels !== undefined ? [] : currentIds.filter((id) => !removeIds.has(id));
          const addIds = toAdd.ids.filter((l) => typeof l.id !== 'number' || !removeIds.has(l.id));
          const finalKnown = new Set([...keep, ...addIds.map((l) => l.id).filter((id): id is number => typeof id === 'number')]);
          const changed = toAdd.inserts.length > 0 || finalKnown.size !== currentIds.length || currentIds.some((id) => !finalKnown.has(id));
          if (changed) {
            statements.push(...toAdd.inserts);
            if (currentIds.length)
              statements.push(
                db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'MergeRequest'), eq(labelLinks.targetId, mr.id), finalKnown.size ? notInArray(labelLinks.labelId, [...finalKnown]) : undefined)),
              );
            for (const l of addIds) statements.push(db.insert(labelLinks).values({ labelId: l.id, targetType: 'MergeRequest', targetId: mr.id, createdAt: now }).onConflictDoNothing());
          }
        }
      }
      if (premium && p.approvals_before_merge !== undefined && p.approvals_before_merge !== mr.approvalsBeforeMerge) {
        set.approvalsBeforeMerge = p.approvals_before_merge;
        statements.push(mergeRequestApprovals.get().approvalsBeforeMerge(db, mr.id, p.approvals_before_merge, now));
      }
      if (set.description !== undefined) statements.push(...(await issueLinkStatements(c, user, project, namespace, set.description, mr.id, now, true)));

      const changedSomething = Object.keys(set).length > 0 || statements.length > 0;
      if (changedSomething) {
        set.updatedAt = now;
        if (set.title !== undefined || set.description !== undefined) Object.assign(set, { lastEditedAt: now, lastEditedById: user.id });
        // The state transition is conditional on the state read, so a racing merge or close wins once.
        const stateGuard = set.state !== undefined ? eq(mergeRequests.state, mr.state) : undefined;
        statements.unshift(db.update(mergeRequests).set(set).where(and(eq(mergeRequests.id, mr.id), stateGuard)));
        // TodoService#close_merge_request: the closer's pending to-dos on it are done.
        if (closing) statements.push(resolveTodosForTarget(db, 'MergeRequest', mr.id, now, user.id));
        // MergeRequest#reload_diff: a new diff version when an open request gets another target
        // branch (reload_diff_if_branch_changed, both heads existing) and when it is reopened.
        if ((set.targetBranch !== undefined && open && !closing) || reopening) {
          const target = set.targetBranch ?? mr.targetBranch;
          const [head, start] = await Promise.all([repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch), repo.branchHead(c, mr.projectId, target)]);
          if (head && start) statements.push(versionInsert(db, mr.id, await computeVersion(db, mr.projectId, head, start, await repo.mergeBase(c, mr.projectId, start, head)), now));
        }
        for (const body of noteBodies) statements.push(systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: project.id, authorId: user.id, body, at: now }));
        try {
          await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
        } catch (err) {
          if (isUniqueViolation(err, 'source_branch') || isUniqueViolation(err, 'merge_requests_open_branches')) {
            await assertNoOpenMergeRequest(c, project.id, mr.sourceBranch, set.targetBranch ?? mr.targetBranch, mr.id);
            throw conflict('Another open merge request already exists for this source branch');
          }
          throw err;
        }
      }
      // A draft marked ready may complete a pending automatic merge (AutoMergeProcessWorker).
      if (changedSomething && mr.mergeWhenPipelineSucceeds && set.draft === false) await autoMergeIfReady(c, mr.id);
      const row = await db.select().from(mergeRequests).where(eq(mergeRequests.id, mr.id)).get();
      return c.json(await presentMergeRequest(c, caller, row!, { project }));
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/merge_requests/:merge_request_iid', summary: 'Delete a merge request', tags: TAGS, params: mergeRequestRefParams, status: 204 },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const pr = await findReadableProject(c, caller, p.id);
      const db = c.var.db;
      // `find_project_merge_request`, then `authorize!(:destroy_merge_request)`: owners and administrators.
      const mr = Number.isSafeInteger(p.merge_request_iid)
        ? await db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pr.project.id), eq(mergeRequests.iid, p.merge_request_iid))).get()
        : undefined;
      // MergeRequestsFinder hides what the caller may not read: the same 404 as a missing one.
      if (!mr || !canReadMergeRequests(caller, pr.project, pr.level)) throw recordNotFound();
      if (!(caller.isAdmin || pr.level >= ACCESS.OWNER)) throw forbidden();
      checkUnmodifiedSince(c, mr.updatedAt);
      await db.batch(asBatch((await cascade(db, 'mergeRequest', sql`(${mr.id})`)).statements));
      return c.body(null, 204);
    },
  );

  // ------------------------------------------------------------------------------------------
  // Read-only sub-resources

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/participants', summary: 'List merge request participants', tags: TAGS, params: mergeRequestPageParams },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const list = await participants(c, found.mr, found.project, found.namespace);
      return pageOf(c, p, list.map((u) => userBasic(u, { base: baseUrl(c) })));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/reviewers', summary: 'List merge request reviewers', tags: TAGS, params: mergeRequestPageParams },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const db = c.var.db;
      const rows = await db
        .select({ reviewer: mergeRequestReviewers, user: users })
        .from(mergeRequestReviewers)
        .innerJoin(users, eq(users.id, mergeRequestReviewers.userId))
        .where(eq(mergeRequestReviewers.mergeRequestId, found.mr.id))
        .orderBy(mergeRequestReviewers.position)
        .all();
      const base = baseUrl(c);
      // Entities::MergeRequestReviewer.
      return pageOf(
        c,
        p,
        rows.map((r) => ({ user: userBasic(r.user, { base }), state: r.reviewer.state, created_at: new Date(r.reviewer.createdAt).toISOString() })),
      );
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/closes_issues', summary: 'List issues that close on merge', tags: TAGS, params: mergeRequestPageParams },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const rows = await visibleIssuesOf(c, caller, found.mr.id, 'closing');
      const raw = await requestParams(c);
      const page = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        async (limit, offset) => rows.slice(offset, offset + limit),
        async (limit) => Math.min(rows.length, limit),
      );
      return c.json(await presentIssues(c, caller, page, { project: found.project, withoutSubscribed: true }));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/related_issues', summary: 'List issues related to a merge request', tags: TAGS, params: mergeRequestPageParams },
    async ({ c, p, caller }) => {
      const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      const rows = await visibleIssuesOf(c, caller, found.mr.id, 'all');
      const raw = await requestParams(c);
      const page = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        async (limit, offset) => rows.slice(offset, offset + limit),
        async (limit) => Math.min(rows.length, limit),
      );
      return c.json(await presentIssues(c, caller, page, { project: found.project, withoutSubscribed: true }));
    },
  );

  mountMergeRequestActions(r);
  mountMergeRequestDiffs(r);
  mountMergeRequestPipelines(r);
  mountMergeRequestRebase(r);
  mountMergeRequestTimeTracking(r);
}

// ---------------------------------------------------------------------------------------------
// Helpers

async function listMergeRequests(
  c: Context<AppEnv>,
  caller: Caller,
  p: MergeRequestListParams,
  parent: MrFinderParent,
  kind: 'all' | 'group' | 'project',
  context: { group?: NamespaceRow; project?: ProjectRow },
) {
  const raw = await requestParams(c);
  const ruleErrors = mrNotRuleErrors(raw.not);
  if (ruleErrors.length) throw grapeError(ruleErrors.join(', '));
  for (const [name, list] of [['assignee_username', p.assignee_username], ['not[assignee_username]', p.not?.assignee_username]] as const) {
    if (list && list.length > 1 && c.var.config.plan === 'free') throw grapeError(`${name} allows one value, but found ${list.length}: ${list.join(', ')}`);
  }
  // validate_search_rate_limit!
  if (p.search) {
    if (caller.user) await applicationLimit(c, 'search_rate_limit', [caller.user.id]);
    else await applicationLimit(c, 'search_rate_limit_unauthenticated', [clientIp(c)]);
  }
  const db = c.var.db;
  const q = await buildMergeRequestQuery(db, caller, parent, p);
  const rows = await paginate<MergeRequestRow>(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, mrListDefaults(kind)),
    (limit, offset) => mergeRequestPage(db, q, limit, offset),
    () => mergeRequestCount(db, q, MAX_COUNT + 1),
  );
  if (p.view === 'simple') {
    const paths = await projectPaths(c, rows.map((r) => r.projectId));
    const base = baseUrl(c);
    return c.json(rows.map((m) => mergeRequestSimple(m, { base, projectFullPath: paths.get(m.projectId) ?? '' })));
  }
  return c.json(await presentMergeRequests(c, caller, rows, { withLabelsDetails: p.with_labels_details, group: context.group, project: context.project }));
}

async function projectPaths(c: Context<AppEnv>, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const uniq = [...new Set(ids)];
  for (let i = 0; i < uniq.length; i += 90) {
    const rows = await c.var.db
      .select({ id: projects.id, path: projects.path, ns: namespaces.fullPath })
      .from(projects)
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(inArray(projects.id, uniq.slice(i, i + 90)))
      .all();
    for (const r of rows) out.set(r.id, `${r.ns}/${r.path}`);
  }
  return out;
}

async function pageOf<T>(c: Context<AppEnv>, p: { page?: number; per_page?: number }, list: T[]) {
  const raw = await requestParams(c);
  const page = await paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, {}),
    async (limit, offset) => list.slice(offset, offset + limit),
    async (limit) => Math.min(list.length, limit),
  );
  return c.json(page);
}

/** 409 `Another open merge request already exists for this source branch: !n` (MergeRequest#validate_branches). */
async function assertNoOpenMergeRequest(c: Context<AppEnv>, projectId: number, source: string, target: string, exceptId?: number) {
  const other = await c.var.db
    .select({ iid: mergeRequests.iid })
    .from(mergeRequests)
    .where(
      and(
        eq(mergeRequests.projectId, projectId),
        eq(mergeRequests.sourceProjectId, projectId),
        eq(mergeRequests.sourceBranch, source),
        eq(mergeRequests.targetBranch, target),
        inArray(mergeRequests.state, ['opened', 'locked']),
        exceptId != null ? sql`${mergeRequests.id} <> ${exceptId}` : undefined,
      ),
    )
    .get();
  if (other) throw new ApiError(409, { message: [`Another open merge request already exists for this source branch: !${other.iid}`] });
}

/** Live HEAD, target and merge base of an open merge request (recorded when it closes). */
async function liveRefs(c: Context<AppEnv>, mr: MergeRequestRow): Promise<{ head: string | null; target: string | null; base: string | null }> {
  const [head, target] = await Promise.all([repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch), repo.branchHead(c, mr.projectId, mr.targetBranch)]);
  const base = head && target ? await repo.mergeBase(c, mr.projectId, target, head) : null;
  return { head, target, base };
}

/** Gitlab::GitRefValidator.validate_merge_request_branch (git check-ref-format rules). */
export function validBranchName(name: string): boolean {
  if (!name || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  if (name === '@' || name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return false;
  if (/^refs\/(heads|remotes|tags)\//.test(name) || name === 'HEAD') return false;
  return true;
}

function textErrors(f: { title?: string; description?: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (f.title !== undefined) {
    if (f.title.trim() === '') errors.title = ["can't be blank"];
    else if ([...f.title].length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
  }
  if (f.description != null && f.description.length > DESCRIPTION_MAX) errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`];
  return errors;
}

/** `assignee_id` replaces `assignee_ids` (convert_parameters_from_legacy_format); the free edition keeps one. */
function requestedAssignees(p: { assignee_ids?: number[]; assignee_id?: number }, premium: boolean): number[] | undefined {
  const ids = p.assignee_id !== undefined ? [p.assignee_id] : p.assignee_ids;
  if (ids === undefined) return undefined;
  return premium ? ids : ids.slice(0, 1);
}

/**
 * IssuableBaseService#filter_assignees_using_checks for merge requests: `[]` or `[0]` clears;
 * otherwise only active users who may read the project's merge requests are kept, and when none is
 * left the parameter is dropped (undefined).
 */
async function assignableUsers(c: Context<AppEnv>, project: ProjectRow, ns: NamespaceRow, ids: number[] | undefined): Promise<number[] | undefined> {
  if (ids === undefined) return undefined;
  if (ids.length === 0 || (ids.length === 1 && ids[0] === 0)) return [];
  const wanted = [...new Set(ids)].filter((id) => id > 0).slice(0, 100);
  const rows: UserRow[] = [];
  for (let i = 0; i < wanted.length; i += 90) rows.push(...(await c.var.db.select().from(users).where(inArray(users.id, wanted.slice(i, i + 90))).all()));
  const byId = new Map<number, UserRow>(rows.map((u) => [u.id, u]));
  const out: number[] = [];
  for (const id of wanted) {
    const u = byId.get(id);
    if (!u || u.state !== 'active') continue;
    const level = await projectAccess(c.var.db, u, project, ns);
    const asCaller: Caller = { user: u, sudoer: null, credential: null, isAdmin: u.isAdmin };
    if (canReadMergeRequests(asCaller, project, level)) out.push(id);
  }
  return out.length ? out : undefined;
}

async function usernames(c: Context<AppEnv>, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await c.var.db.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, ids.slice(i, i + 90))).all();
    for (const u of rows) out.set(u.id, u.username);
  }
  return out;
}

/** SystemNotes::IssuablesService#change_issuable_reviewers. */
function reviewersNote(added: string[], removed: string[]): string | null {
  const parts: string[] = [];
  if (added.length) parts.push(`requested review from ${toSentence(added.map((u) => `@${u}`))}`);
  if (removed.length) parts.push(`removed review request for ${toSentence(removed.map((u) => `@${u}`))}`);
  return parts.length ? parts.join(' and ') : null;
}

// Gitlab::PathRegex user names after `@`, not inside a word or an email address.
const MENTION = /(?:^|[^\w@.])@([A-Za-z0-9_][A-Za-z0-9_.-]*)/g;
const mentions = (text: string | null | undefined) => (text ? [...text.matchAll(MENTION)].map((m) => m[1].replace(/\.+$/, '').toLowerCase()).filter(Boolean) : []);

/**
 * MergeRequest#visible_participants: the author, authors of (non-internal) comments, assignees,
 * reviewers, then users mentioned in the title, description and comments, each once; then only
 * those who may read the merge request.
 */
async function participants(c: Context<AppEnv>, mr: MergeRequestRow, project: ProjectRow, ns: NamespaceRow): Promise<UserRow[]> {
  const db = c.var.db;
  const [assignees, reviewers, noteRows] = await Promise.all([
    mergeRequestAssigneeIds(db, mr.id),
    mergeRequestReviewerIds(db, mr.id),
    db
      .select({ authorId: notes.authorId, body: notes.body })
      .from(notes)
      .where(and(eq(notes.noteableType, 'MergeRequest'), eq(notes.noteableId, mr.id), eq(notes.system, false), eq(notes.internal, false)))
      .orderBy(notes.createdAt, notes.id)
      .all(),
  ]);
  const ids = [...new Set([mr.authorId, ...noteRows.map((n) => n.authorId), ...assignees, ...reviewers])];
  const names = [...new Set([...mentions(mr.title), ...mentions(mr.description), ...noteRows.flatMap((n) => mentions(n.body))])].slice(0, 200);
  const byId = new Map<number, UserRow>();
  for (let i = 0; i < ids.length; i += 90) for (const u of await db.select().from(users).where(inArray(users.id, ids.slice(i, i + 90))).all()) byId.set(u.id, u);
  const byName = new Map<string, UserRow>();
  for (let i = 0; i < names.length; i += 90)
    for (const u of await db.select().from(users).where(inArray(sql`lower(${users.username})`, names.slice(i, i + 90))).all()) byName.set(u.username.toLowerCase(), u);
  const ordered: UserRow[] = [];
  const seen = new Set<number>();
  for (const u of [...ids.map((id) => byId.get(id)), ...names.map((n) => byName.get(n))]) {
    if (u && !seen.has(u.id)) {
      seen.add(u.id);
      ordered.push(u);
    }
  }
  const out: UserRow[] = [];
  for (const u of ordered) {
    const level = await projectAccess(db, u, project, ns);
    if (canReadMergeRequests({ user: u, sudoer: null, credential: null, isAdmin: u.isAdmin }, project, level)) out.push(u);
  }
  return out;
}

/** Issues a merge request closes (or closes and mentions), limited to what the caller may read. */
async function visibleIssuesOf(c: Context<AppEnv>, caller: Caller, mrId: number, which: 'closing' | 'all') {
  const db = c.var.db;
  const closing = await db
    .select({ issueId: mergeRequestsClosingIssues.issueId })
    .from(mergeRequestsClosingIssues)
    .where(eq(mergeRequestsClosingIssues.mergeRequestId, mrId))
    .orderBy(mergeRequestsClosingIssues.id)
    .all();
  let ids = closing.map((r) => r.issueId);
  if (which === 'all') {
    const mentioned = await db.select({ issueId: mergeRequestMentionedIssues.issueId }).from(mergeRequestMentionedIssues).where(eq(mergeRequestMentionedIssues.mergeRequestId, mrId)).all();
    ids = [...new Set([...ids, ...mentioned.map((m) => m.issueId)])];
  }
  const out = [];
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .select({ issue: issues, project: projects, namespace: namespaces })
      .from(issues)
      .innerJoin(projects, eq(projects.id, issues.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(inArray(issues.id, ids.slice(i, i + 90)))
      .all();
    for (const r of rows) {
      const level = await projectAccess(db, caller.user, r.project, r.namespace);
      if (!canReadProject(caller, r.project, level)) continue;
      if (!featureAvailable(r.project, 'issues', { level, isAdmin: caller.isAdmin })) continue;
      if (r.issue.confidential) {
        const assignees = (await db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, r.issue.id)).all()).map((a) => a.userId);
        if (!canReadConfidentialIssue(caller, level, r.issue, assignees)) continue;
      }
      out.push(r.issue);
    }
  }
  const order = new Map(ids.map((id, i) => [id, i]));
  return out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

