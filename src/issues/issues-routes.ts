/**
 * Single issues (GitLab lib/api/issues.rb): create, get, update, delete, subscribe, unsubscribe,
 * and GET /issues/:id for administrators. Lists live in issue-lists.ts, sub-resources in
 * issue-time-tracking.ts, issue-details.ts, issue-metric-images.ts, notes.ts, award-emoji.ts, todos.ts.
 */
import { and, eq, inArray, notInArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Caller } from '../platform/context';
import { epics, internalIds, issueAssignees, issues, labelLinks, subscriptions, todos, userAgentDetails } from '../db/schema';
import type { Db } from '../db/client';
import { ACCESS, canReadProject, featureAvailable, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { conflict, forbidden, notFound, notModified, recordNotFound, validationFailed } from '../platform/errors';
import { planAllows } from '../platform/plan';
import { IssueSchema } from './issue-entity';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { requireAdmin, requireUser } from '../platform/guards';
import { applicationLimit, clientIp } from '../settings/rate-limits';
import { createIssueParams, issueByIdParams, issueRefParams, updateIssueParams } from './issues-params';
import { issueReadOptions, presentIssueRows, subscribedFrom, writeAndPresentIssue } from './issue-presenter';
import { type IssueReadResults, issueReads, jsonIds, oneIssueReads } from './issue-reads';
import { canAdminIssue, canReadConfidentialIssue, canUpdateIssue, findReadableIssueWith, issueIdSql, type IssueRow } from './issues';
import { labelsFoundOrBuilt } from '../planning/labels';
import { projectAssignableMilestoneRead, projectGroupIdsSql, projectLabelsByTitleRead } from '../planning/project-planning-reads';
import {
  assigneesNote,
  confidentialityNote,
  DESCRIPTION_NOTE,
  discussionLockNote,
  dueDateNote,
  issueTypeNote,
  systemNoteInsert,
  titleNote,
} from '../issuables/system-notes';
import { resolveTodosForTarget, TODO_ASSIGNED } from '../issuables/todos';
import { labelEvents, milestoneEvents, stateEventInsert } from '../issuables/resource-events';
import { findReadableProjectWith } from '../projects/projects';
import { cascade, runDeletion } from '../platform/cascade';
import { dueDate } from '../platform/time';
import { batchReads } from '../db/batch-reads';
import { eventChanges, recordEvent } from '../platform/events';
import { assigneeCountErrors, requestedAssignees, textErrors } from '../issuables/issuable-fields';
import { assignableFrom, peopleNamedRead } from '../issuables/people-reads';
import { optionalReads } from '../issuables/optional-reads';


export function mountIssues(r: Router) {
  r.route(
    { method: 'POST', path: '/projects/:id/issues', summary: 'Create an issue', tags: ['issues'], params: createIssueParams, responses: { 201: IssueSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const premium = planAllows(c.var.config, 'premium');
      const askedAssignees = requestedAssignees(p, premium);
      // The project, the caller's level and what the metadata names (the users with their level in
      // the project, the milestone, the labels) in one round trip, then the write with its answer in
      // one more, whatever the number of assignees.
      let named!: ReturnType<typeof metadataReads>;
      const pr = await findReadableProjectWith(c, caller, p.id, (pid) => (named = metadataReads(c.var.db, pid, askedAssignees, { milestone_id: p.milestone_id, labels: p.labels, epic: premium ? { id: p.epic_id, iid: p.epic_iid } : undefined })).list);
      const [people, milestoneRows, labelRows, , , epicRows] = named.unpack(pr.reads);
      // create_issue: anyone who may read the project's issues (non-members of public and internal projects too).
      if (!featureAvailable(pr.project, 'issues', { level: pr.level, isAdmin: caller.isAdmin })) throw forbidden();
      await applicationLimit(c, 'issues_create', [pr.project.id, user.id], { retryAfter: false });

      const errors = { ...textErrors({ title: p.title, description: p.description }), ...assigneeCountErrors({ assignees: askedAssignees }) };
      if (premium && p.weight != null && p.weight < 0) errors.weight = ['must be greater than or equal to 0'];
      if (Object.keys(errors).length) throw validationFailed(errors);

      const db = c.var.db;
      const now = Date.now();
      const admin = canAdminIssue(caller, pr.level);
      // set_issue_created_at / set_issue_iid: project owners and administrators; others are ignored.
      const owner = caller.isAdmin || pr.level >= ACCESS.OWNER;
      const createdAt = owner && p.created_at ? p.created_at : now;
      const explicitIid = owner && p.iid != null ? p.iid : null;

      const assigneeIds = (admin ? assignableFrom(people ?? [], askedAssignees, mayReadIssues(pr.project)) : undefined) ?? [];
      const milestoneId = admin ? (milestoneRows?.[0]?.id ?? null) : null;
      const labels = admin && labelRows ? labelsFoundOrBuilt(db, pr.project.id, labelRows, p.labels!, now) : null;
      const epicId = premium && admin ? resolveEpic(pr.namespace, p.epic_id, p.epic_iid, epicRows) : null;

      const P = pr.project.id;
      const iidSql = explicitIid ?? sql<number>`(select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'issues' and ${internalIds.scopeId} = ${P})`;
      const issueIdSql =
        explicitIid != null
          ? sql<number>`(select ${issues.id} from ${issues} where ${issues.projectId} = ${P} and ${issues.iid} = ${explicitIid})`
          : sql<number>`(select ${issues.id} from ${issues} where ${issues.projectId} = ${P} and ${issues.iid} = (select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'issues' and ${internalIds.scopeId} = ${P}))`;

      const statements: BatchItem<'sqlite'>[] = [
        ...(labels?.inserts ?? []),
        explicitIid != null
          ? db
              .insert(internalIds)
              .values({ usage: 'issues', scopeId: P, lastValue: explicitIid })
              .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`max(${internalIds.lastValue}, excluded.last_value)` } })
          : db
              .insert(internalIds)
              .values({ usage: 'issues', scopeId: P, lastValue: 1 })
              .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`${internalIds.lastValue} + 1` } }),
        db.insert(issues).values({
          projectId: P,
          iid: iidSql,
          title: p.title,
          description: p.description ?? null,
          authorId: user.id,
          issueType: p.issue_type ?? 'issue',
          confidential: p.confidential ?? false,
          // filter_params: discussion_locked is metadata (set_issue_metadata); confidential is not.
          discussionLocked: admin ? (p.discussion_locked ?? false) : false,
          milestoneId,
          epicId,
          dueDate: admin ? dueDate(p.due_date) : null,
          weight: premium && admin ? (p.weight ?? null) : null,
          createdAt,
          updatedAt: createdAt,
        }).returning({ id: issues.id }),
        ...assigneeIds.map((userId, position) => db.insert(issueAssignees).values({ issueId: issueIdSql, userId, position })),
        // Resource events of the new issue's labels and milestone (Issuable::CommonSystemNotesService on create).
        ...labelEvents(db, { type: 'Issue', id: issueIdSql }, (labels?.ids ?? []).map((l) => l.id), [], user.id, now),
        ...milestoneEvents(db, { type: 'Issue', id: issueIdSql }, null, milestoneId, 'opened', user.id, now),
        ...(labels?.ids ?? []).map((l) => db.insert(labelLinks).values({ labelId: l.id, targetType: 'Issue', targetId: issueIdSql, createdAt: now }).onConflictDoNothing()),
        // Recorded for spam review (user_agent_detail, administrators only).
        db.insert(userAgentDetails).values({ subjectType: 'Issue', subjectId: issueIdSql, userAgent: c.req.header('user-agent') ?? '', ipAddress: clientIp(c), createdAt: now }),
        // TodoService#new_issue: a to-do for every assignee other than the author (action 1, assigned).
        ...assigneeIds
          .filter((id) => id !== user.id)
          .map((userId) =>
            db.insert(todos).values({ userId, authorId: user.id, projectId: P, targetType: 'Issue', targetId: issueIdSql, action: TODO_ASSIGNED, state: 'pending', createdAt: now, updatedAt: now }),
          ),
        ...recordEvent(c, { kind: 'issue', projectId: P, objectId: issueIdSql, action: 'open', actorId: user.id, confidential: p.confidential ?? false }),
      ];
      // The new issue and its entity's reads go at the end of the write's own batch (one transaction):
      // there `issueIdSql` (the project's newest iid) is this insert's, whatever a concurrent create does.
      let created;
      try {
        created = await writeAndPresentIssue(c, caller, statements, sql`SELECT ${issueIdSql}`, { project: pr.project });
      } catch (err) {
        // issues.rb: `rescue ActiveRecord::RecordNotUnique => render_api_error!('Duplicated issue', 409)`.
        if (isUniqueViolation(err, 'iid')) throw conflict('Duplicated issue');
        throw err;
      }
      return c.json(created!, 201);
    },
  );

  r.route({ method: 'GET', path: '/projects/:id/issues/:issue_iid', summary: 'Get a project issue', tags: ['issues'], params: issueRefParams, responses: { 200: IssueSchema } }, async ({ c, p, caller }) => {
    // One round trip: project, level, issue and everything its entity shows.
    const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (_ids, _pid, ref) => oneIssueReads(c.var.db, caller, ref, issueReadOptions(c, [], { includeSubscribed: true })));
    return c.json((await presentIssueRows(c, caller, [found.issue], found.reads, { project: found.project, includeSubscribed: true }))[0]);
  });

  r.route(
    { method: 'PUT', path: '/projects/:id/issues/:issue_iid', summary: 'Update an issue', tags: ['issues'], params: updateIssueParams, responses: { 200: IssueSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const premium = planAllows(c.var.config, 'premium');
      const askedAssignees = requestedAssignees(p, premium);
      // The issue with what the metadata names (the users with their level, those they replace, the
      // milestone, the labels and the issue's own) in one round trip; the writes and the answer in one more.
      let named!: ReturnType<typeof metadataReads>;
      const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId, pid) => (named = metadataReads(c.var.db, pid, askedAssignees, { ...p, epic: premium ? { id: p.epic_id, iid: p.epic_iid } : undefined }, issueId)).list);
      const [people, milestoneRows, addRows, removeRows, labelLinkRows, epicRows] = named.unpack(found.reads);
      const { issue, project, namespace, level } = found;
      if (!canUpdateIssue(caller, level, issue)) throw forbidden();
      const db = c.var.db;
      const now = Date.now();
      const admin = canAdminIssue(caller, level);
      const owner = caller.isAdmin || level >= ACCESS.OWNER;

      const errors = { ...textErrors({ title: p.title, description: p.description }), ...assigneeCountErrors({ assignees: admin ? askedAssignees : undefined }) };
      if (premium && admin && p.weight != null && p.weight < 0) errors.weight = ['must be greater than or equal to 0'];
      if (Object.keys(errors).length) throw validationFailed(errors);

      const set: Partial<typeof issues.$inferInsert> = {};
      const noteBodies: string[] = [];
      if (p.title !== undefined && p.title !== issue.title) {
        set.title = p.title;
        noteBodies.push(titleNote(issue.title, p.title));
      }
      if (p.description !== undefined && p.description !== (issue.description ?? '')) {
        set.description = p.description;
        noteBodies.push(DESCRIPTION_NOTE);
      }
      const closing = p.state_event === 'close' && issue.state !== 'closed';
      if (closing) Object.assign(set, { state: 'closed', closedAt: now, closedById: user.id });
      if (p.state_event === 'reopen' && issue.state === 'closed') Object.assign(set, { state: 'opened', closedAt: null, closedById: null });
      if (p.issue_type !== undefined && p.issue_type !== issue.issueType && admin) {
        set.issueType = p.issue_type;
        noteBodies.push(issueTypeNote(issue.issueType, p.issue_type));
      }
      // Metadata needs admin_issue (IssuableBaseService#filter_params drops it for others).
      if (admin) {
        if (p.confidential !== undefined && p.confidential !== issue.confidential) {
          set.confidential = p.confidential;
          noteBodies.push(confidentialityNote(p.confidential));
        }
        if (p.discussion_locked !== undefined && p.discussion_locked !== issue.discussionLocked) {
          set.discussionLocked = p.discussion_locked;
          noteBodies.push(discussionLockNote(p.discussion_locked));
        }
        if (p.due_date !== undefined) {
          const due = dueDate(p.due_date);
          if (due !== issue.dueDate) {
            set.dueDate = due;
            noteBodies.push(dueDateNote(due));
          }
        }
        if (p.milestone_id !== undefined) {
          const m = p.milestone_id ? milestoneRows?.[0] : undefined;
          const id = m?.id ?? null;
          if (id !== issue.milestoneId && (m || !p.milestone_id)) set.milestoneId = id;
        }
        if (premium && p.weight !== undefined && p.weight !== issue.weight) set.weight = p.weight;
        if (premium && (p.epic_id !== undefined || p.epic_iid !== undefined)) {
          const epicId = resolveEpic(namespace, p.epic_id, p.epic_iid, epicRows);
          if (epicId !== issue.epicId) set.epicId = epicId;
        }
      }
      if (owner && p.updated_at !== undefined) set.updatedAt = p.updated_at;

      const statements: BatchItem<'sqlite'>[] = [];
      // The associations replaced, as read (the event's `changes` snapshot them with what the batch leaves).
      const replaced: { labels?: number[]; assignees?: number[] } = {};
      // Assignees.
      const next = admin ? assignableFrom(people ?? [], askedAssignees, mayReadIssues(project)) : undefined;
      if (next !== undefined) {
        const before = found.assigneeIds;
        const added = next.filter((id) => !before.includes(id));
        const removed = before.filter((id) => !next.includes(id));
        if (added.length || removed.length || next.join() !== before.join()) {
          replaced.assignees = before;
          statements.push(db.delete(issueAssignees).where(eq(issueAssignees.issueId, issue.id)));
          next.forEach((userId, position) => statements.push(db.insert(issueAssignees).values({ issueId: issue.id, userId, position })));
          const names = new Map((people ?? []).map((u) => [u.id, u.username]));
          const body = assigneesNote(added.map((id) => names.get(id)!), removed.map((id) => names.get(id)!));
          if (body) noteBodies.push(body);
          for (const userId of added.filter((id) => id !== user.id))
            statements.push(db.insert(todos).values({ userId, authorId: user.id, projectId: project.id, targetType: 'Issue', targetId: issue.id, action: 1, state: 'pending', createdAt: now, updatedAt: now }));
        }
      }
      // Labels: `labels` replaces, then add_labels / remove_labels (Issues::UpdateService#handle_label_changes).
      if (admin && (p.labels !== undefined || p.add_labels !== undefined || p.remove_labels !== undefined)) {
        const currentIds = (labelLinkRows ?? []).map((l) => l.labelId);
        const toAdd = labelsFoundOrBuilt(db, project.id, addRows ?? [], [...(p.labels ?? []), ...(p.add_labels ?? [])], now);
        const toRemove = p.remove_labels?.length ? labelsFoundOrBuilt(db, project.id, removeRows ?? [], p.remove_labels, now, { create: false }) : null;
        const removeIds = new Set((toRemove?.existing ?? []).map((l) => l.id));
        const keep = p.labels !== undefined ? [] : currentIds.filter((id) => !removeIds.has(id));
        const addIds = toAdd.ids.filter((l) => typeof l.id !== 'number' || !removeIds.has(l.id));
        const finalKnown = new Set([...keep, ...addIds.map((l) => l.id).filter((id): id is number => typeof id === 'number')]);
        const changed = toAdd.inserts.length > 0 || finalKnown.size !== currentIds.length || currentIds.some((id) => !finalKnown.has(id));
        if (changed) {
          replaced.labels = currentIds;
          statements.push(...toAdd.inserts);
          // Label events before the link statements they describe (each checks the link as the batch reaches it).
          const removedIds = p.labels !== undefined ? currentIds.filter((id) => !finalKnown.has(id)) : [...removeIds];
          statements.push(...labelEvents(db, { type: 'Issue', id: issue.id }, addIds.map((l) => l.id), removedIds, user.id, now));
          // add_labels / remove_labels write a delta, not the set read above: a label another request
          // added or removed meanwhile stays as that request left it. `labels` replaces the whole set.
          const links = and(eq(labelLinks.targetType, 'Issue'), eq(labelLinks.targetId, issue.id));
          if (p.labels !== undefined) statements.push(db.delete(labelLinks).where(and(links, finalKnown.size ? notInArray(labelLinks.labelId, [...finalKnown]) : undefined)));
          else if (removeIds.size) statements.push(db.delete(labelLinks).where(and(links, inArray(labelLinks.labelId, [...removeIds]))));
          for (const l of addIds) statements.push(db.insert(labelLinks).values({ labelId: l.id, targetType: 'Issue', targetId: issue.id, createdAt: now }).onConflictDoNothing());
          set.updatedAt ??= now;
        }
      }
      const changedSomething = Object.keys(set).length > 0 || statements.length > 0;
      if (changedSomething) {
        set.updatedAt ??= now;
        if (set.title !== undefined || set.description !== undefined) Object.assign(set, { lastEditedAt: now, lastEditedById: user.id });
        statements.unshift(db.update(issues).set(set).where(eq(issues.id, issue.id)));
        if (set.milestoneId !== undefined) statements.push(...milestoneEvents(db, { type: 'Issue', id: issue.id }, issue.milestoneId, set.milestoneId, set.state ?? issue.state, user.id, now));
        // A state event only for a state the update really changes as the batch reaches it (placed before the update).
        if (set.state !== undefined) statements.unshift(stateEventInsert(db, { type: 'Issue', id: issue.id }, closing ? 'closed' : 'reopened', user.id, now, sql`EXISTS (SELECT 1 FROM issues se WHERE se.id = ${issue.id} AND se.state <> ${set.state})`));
        // TodoService#close_issue: closing resolves the closer's own pending to-dos on the issue.
        if (closing) statements.push(resolveTodosForTarget(db, 'Issue', issue.id, now, user.id));
        for (const body of noteBodies) statements.push(systemNoteInsert(db, { noteableType: 'Issue', noteableId: issue.id, projectId: project.id, authorId: user.id, body, at: now }));
        statements.push(...recordEvent(c, { kind: 'issue', projectId: project.id, objectId: issue.id, action: closing ? 'close' : set.state === 'opened' ? 'reopen' : 'update', actorId: user.id, confidential: set.confidential ?? issue.confidential, data: { changes: eventChanges(issue, set) }, before: replaced }));
      }
      // The writes (if any) and the answer's reads in one round trip.
      return c.json(await writeAndPresentIssue(c, caller, changedSomething ? statements : [], jsonIds([issue.id]), { project }));
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/issues/:issue_iid', summary: 'Delete an issue', tags: ['issues'], params: issueRefParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const db = c.var.db;
      // The project, the caller's level, the issue and its assignees in one round trip.
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => {
        const issueId = issueIdSql(pid, p.issue_iid);
        return [
          db.select().from(issues).where(sql`${issues.id} IN (${issueId})`).limit(1),
          db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(sql`${issueAssignees.issueId} IN (${issueId})`),
        ] as const;
      });
      const [[issue], assignees] = found.reads;
      // issues.rb delete: `not_found!('Issue')` (not find_by!'s "404 Not found"); a confidential
      // issue the caller may not read answers the same as a missing one.
      if (!issue || (issue.confidential && !canReadConfidentialIssue(caller, found.level, issue, assignees.map((a) => a.userId)))) throw notFound('Issue');
      // destroy_issue: project owners and administrators, and only while the issues feature is on.
      if (!(caller.isAdmin || found.level >= ACCESS.OWNER) || !featureAvailable(found.project, 'issues', { level: found.level, isAdmin: caller.isAdmin })) throw forbidden();
      checkUnmodifiedSince(c, issue.updatedAt);
      // One batch; metric image files go after their rows: a failure there leaves an orphaned blob, never a dangling row.
      await runDeletion(db, c.var.blobs, cascade(db, 'issue', sql`(${issue.id})`));
      return c.body(null, 204);
    },
  );

  for (const action of ['subscribe', 'unsubscribe'] as const) {
    r.route(
      {
        method: 'POST',
        path: `/projects/:id/issues/:issue_iid/${action}`,
        summary: action === 'subscribe' ? 'Subscribe to an issue' : 'Unsubscribe from an issue',
        tags: ['issues'],
        params: issueRefParams,
        responses: { 201: IssueSchema, 304: null },
      },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        // The issue, its entity's reads and the caller's subscription in one round trip; the write
        // changes only `subscribed`, which the answer states without reading it back.
        const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (_ids, _pid, ref) => oneIssueReads(c.var.db, caller, ref, issueReadOptions(c, [], { includeSubscribed: true })));
        const want = action === 'subscribe';
        // subscriptions.rb: `not_modified!` when already in the requested state.
        if (subscribedFrom(caller, found.issue, found.assigneeIds, found.reads[8]?.[0]) === want) throw notModified();
        const now = Date.now();
        await c.var.db
          .insert(subscriptions)
          .values({ userId: user.id, subscribableType: 'Issue', subscribableId: found.issue.id, projectId: found.project.id, subscribed: want, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: [subscriptions.subscribableType, subscriptions.subscribableId, subscriptions.userId, subscriptions.projectId], set: { subscribed: want, updatedAt: now } })
          .run();
        return c.json((await presentIssueRows(c, caller, [found.issue], found.reads, { project: found.project, subscribed: want }))[0], 201);
      },
    );
  }

  r.route({ method: 'GET', path: '/issues/:id', summary: 'Get any issue by its global id (administrators)', tags: ['issues'], params: issueByIdParams, responses: { 200: IssueSchema } }, async ({ c, p, caller }) => {
    requireAdmin(caller);
    // `requires :id, type: String` then `Issue.find(params['id'])`: the id casts like String#to_i,
    // so a non-numeric id is find's "404 Not found", not a 400.
    const id = Number.parseInt(p.id, 10);
    if (!Number.isSafeInteger(id)) throw recordNotFound();
    // The issue, its project and what its entity shows, in one round trip.
    const db = c.var.db;
    const o = { includeSubscribed: true };
    const reads = issueReads(db, caller, sql`SELECT ${id}`, { ...issueReadOptions(c, undefined, o), projects: true });
    const [[issue], ...extras] = await batchReads(db, [db.select().from(issues).where(eq(issues.id, id)).limit(1), ...reads]);
    if (!issue) throw recordNotFound();
    const project = extras[6]?.find((r) => r.project.id === issue.projectId)?.project;
    return c.json((await presentIssueRows(c, caller, [issue], extras as unknown as IssueReadResults, { ...o, project }))[0]);
  });
}

/**
 * EE: `epic_id` / `epic_iid` name an epic of the project's group or one of its ancestors (by id)
 * or of its group (by iid), from what `epicRead` read with the project.
 */
function resolveEpic(ns: NamespaceRow, epicId: number | undefined, epicIid: number | undefined, rows: readonly { id: number }[] | undefined): number | null {
  if (epicId == null && epicIid == null) return null;
  if (epicId === 0) return null;
  if (ns.kind !== 'Group' || !rows?.[0]) throw notFound('Epic');
  return rows[0].id;
}

/** The epic `epic_id` / `epic_iid` names, as a read over the project's id (undefined when none is named). */
function epicRead(db: Db, pid: SQL, epicId: number | undefined, epicIid: number | undefined) {
  if (epicId != null) return epicId === 0 ? undefined : db.select({ id: epics.id }).from(epics).where(and(eq(epics.id, epicId), sql`${epics.groupId} IN (${projectGroupIdsSql(pid)})`)).limit(1);
  if (epicIid == null) return undefined;
  return db.select({ id: epics.id }).from(epics).where(and(sql`${epics.groupId} = (SELECT ep.namespace_id FROM projects ep WHERE ep.id = ${pid})`, eq(epics.iid, epicIid))).limit(1);
}

export type { IssueRow };

/**
 * What an issue write's metadata names, as reads for the batch that finds the project (or, with
 * `issueId`, the issue: then its assignees' usernames for the system note and its labels too).
 */
function metadataReads(
  db: Db,
  pid: SQL,
  assignees: number[] | undefined,
  p: { milestone_id?: number | null; labels?: string[]; add_labels?: string[]; remove_labels?: string[]; epic?: { id?: number; iid?: number } },
  issueId?: SQL,
) {
  const addTitles = [...(p.labels ?? []), ...(p.add_labels ?? [])];
  const labelsAsked = p.labels !== undefined || p.add_labels !== undefined || p.remove_labels !== undefined;
  const before = issueId ? sql`SELECT ia.user_id FROM issue_assignees ia WHERE ia.issue_id IN (${issueId})` : undefined;
  return optionalReads([
    assignees !== undefined ? peopleNamedRead(db, pid, assignees.filter((id) => id > 0), before) : undefined,
    p.milestone_id ? projectAssignableMilestoneRead(db, pid, p.milestone_id) : undefined,
    addTitles.length ? projectLabelsByTitleRead(db, pid, addTitles) : undefined,
    p.remove_labels?.length ? projectLabelsByTitleRead(db, pid, p.remove_labels) : undefined,
    issueId && labelsAsked ? db.select({ labelId: labelLinks.labelId }).from(labelLinks).where(and(eq(labelLinks.targetType, 'Issue'), sql`${labelLinks.targetId} IN (${issueId})`)) : undefined,
    p.epic ? epicRead(db, pid, p.epic.id, p.epic.iid) : undefined,
  ] as const);
}

/** Assignees of an issue must be able to read the project's issues. */
const mayReadIssues = (project: ProjectRow) => (user: Caller, level: number) => canReadProject(user, project, level) && featureAvailable(project, 'issues', { level, isAdmin: user.isAdmin });
