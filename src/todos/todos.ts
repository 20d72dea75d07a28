/**
 * To-do items: marking an issue or a merge request (TodoService#mark_todo), the caller's list
 * (TodosFinder) and the presenter loader (authors, parents, targets for a page in a fixed number of
 * queries).
 *
 * Issue and merge request to-dos are listed. A to-do whose target the caller can no longer read
 * (project access lost, confidential) stays in the table but is hidden from the list, as
 * Todos::AllowedTargetFilterService hides it.
 */
import { and, eq, notExists, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import { issueAssignees, issues, mergeRequests, namespaces, notes, projects, todos, users } from '../db/schema';
import { type Todo, type TodoRow, todoEntity } from './todo-entity';
import { TODO_MARKED } from '../issuables/todos';
import { type NamespaceRow, projectLevelSql, projectVisibleSql, type ProjectRow, mergeRequestVisibleSql, traversalIds } from '../projects/abilities';
import { issueReadOptions, type PresentOptions, presentIssueRows } from '../issues/issue-presenter';
import { type IssueReadResults, issueReads, jsonIds } from '../issues/issue-reads';
import type { ProjectWithNamespace } from '../projects/project-queries';
import { inJson } from '../db/batch-reads';
import { mergeRequestPresenterReads } from '../merge-requests/merge-requests';
import type { BatchItem } from 'drizzle-orm/batch';
import { baseUrl } from '../platform/pagination';

type IssueRow = typeof issues.$inferSelect;

/**
 * SQL on `todos`: the target is an issue the caller may still read (readable project with its
 * issues feature available, and for a confidential issue: author, assignee, planner and above, or
 * administrator).
 */
export function todoTargetVisibleSql(caller: Caller): SQL {
  const uid = caller.user?.id ?? 0;
  const projectOk = projectVisibleSql(caller) ?? sql`1`;
  const confidentialOk = caller.isAdmin
    ? sql`1`
    : sql`(${issues.confidential} = 0 OR ${issues.authorId} = ${uid}
        OR EXISTS (SELECT 1 FROM ${issueAssignees} WHERE ${issueAssignees.issueId} = ${issues.id} AND ${issueAssignees.userId} = ${uid})
        OR ${projectLevelSql(uid)} >= 15)`;
  // ProjectFeature `issues`: disabled for everyone, private to members (featureAvailable).
  const issuesLevel = sql`coalesce(json_extract(${projects.features}, '$.issues'), 'enabled')`;
  const featureOk = caller.isAdmin ? sql`${issuesLevel} <> 'disabled'` : sql`(${issuesLevel} = 'enabled' OR (${issuesLevel} = 'private' AND ${projectLevelSql(uid)} >= 10))`;
  return sql`((${todos.targetType} = 'Issue' AND EXISTS (SELECT 1 FROM ${issues}
    JOIN ${projects} ON ${projects.id} = ${issues.projectId}
    JOIN ${namespaces} ON ${namespaces.id} = ${projects.namespaceId}
    WHERE ${issues.id} = ${todos.targetId} AND ${projectOk} AND ${featureOk} AND ${confidentialOk}))
    OR (${todos.targetType} = 'MergeRequest' AND EXISTS (SELECT 1 FROM ${mergeRequests}
    JOIN ${projects} ON ${projects.id} = ${mergeRequests.projectId}
    JOIN ${namespaces} ON ${namespaces.id} = ${projects.namespaceId}
    WHERE ${mergeRequests.id} = ${todos.targetId} AND ${mergeRequestVisibleSql(caller)})))`;
}

/**
 * TodoService#mark_todo for one user on an issue or a merge request: a `marked` to-do, unless the
 * user already has a pending to-do on the target (any action), in which case nothing is created and
 * null comes back (the API answers 304). The existence check is part of the INSERT, so concurrent
 * calls create one row.
 */
export async function markTodo(db: Db, user: UserRow, targetType: 'Issue' | 'MergeRequest', targetId: number, now = Date.now()): Promise<TodoRow | null> {
  return (await markTodoStatement(db, user, targetType, targetId, now).all())[0] ?? null;
}

/** markTodo as an unexecuted statement for a batch: it returns the new row, or none. */
export function markTodoStatement(db: Db, user: UserRow, targetType: 'Issue' | 'MergeRequest', targetId: number, now: number) {
  const target = targetType === 'Issue' ? issues : mergeRequests;
  const pending = db
    .select({ one: sql`1` })
    .from(todos)
    .where(and(eq(todos.userId, user.id), eq(todos.targetType, targetType), eq(todos.targetId, targetId), eq(todos.state, 'pending')));
  return db
    .insert(todos)
    .select(
      db
        .select({
          id: sql<number>`null`.as('id'),
          userId: sql<number>`${user.id}`.as('user_id'),
          authorId: sql<number>`${user.id}`.as('author_id'),
          projectId: sql<number>`${target.projectId}`.as('project_id'),
          groupId: sql<number | null>`null`.as('group_id'),
          targetType: sql<string>`${targetType}`.as('target_type'),
          targetId: sql<number>`${target.id}`.as('target_id'),
          noteId: sql<number | null>`null`.as('note_id'),
          action: sql<number>`${TODO_MARKED}`.as('action'),
          state: sql<string>`'pending'`.as('state'),
          body: sql<string>`''`.as('body'),
          createdAt: sql<number>`${now}`.as('created_at'),
          updatedAt: sql<number>`${now}`.as('updated_at'),
        })
        .from(target)
        .where(and(eq(target.id, targetId), notExists(pending))),
    )
    .returning();
}

/** The row `markTodoStatement` would write for `user` on a project's target (its reads can be built before it exists). */
export const markedTodoRow = (user: UserRow, projectId: number, targetType: 'Issue' | 'MergeRequest', targetId: number, now: number): TodoRow => ({
  id: 0,
  userId: user.id,
  authorId: user.id,
  projectId,
  groupId: null,
  targetType,
  targetId,
  noteId: null,
  action: TODO_MARKED,
  state: 'pending',
  body: '',
  createdAt: now,
  updatedAt: now,
});

/** Namespace full names (`Parent / Child`) from the namespaces and the names of their ancestors. */
function fullNamesOf(rows: NamespaceRow[], names: Map<number, string>): Map<number, string> {
  return new Map(rows.map((r) => [r.id, traversalIds(r).length ? traversalIds(r).map((id) => names.get(id) ?? '').join(' / ') : r.name]));
}

/**
 * Presents to-dos (issue and merge request targets) with their authors, projects and target
 * entities: everything is read in one round trip (but a page's merge request approvals, read when
 * presenting them).
 */
export async function presentTodos(c: Context<AppEnv>, caller: Caller, rows: TodoRow[], issueOpts: PresentOptions = {}, mrOpts: TodoMrOptions = { withoutSubscribed: true }) {
  if (!rows.length) return [];
  const reads = todoReads(c, caller, rows, issueOpts, mrOpts);
  return reads.present(reads.list.length ? ((await c.var.db.batch(reads.list as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown as unknown[]) : [], rows);
}

export interface TodoMrOptions {
  withoutSubscribed?: boolean;
  /** The one merge request target's project and iid: its approval state is read in the same batch. */
  one?: { projectId: number; iid: number };
}

/**
 * What presenting the to-dos `rows` reads, as unexecuted statements for one batch (a write's, such as
 * the insert of a marked to-do, whose row is known before it is written), and `present`, which
 * presents the rows from the batch's results (merge request targets included) reading nothing more.
 */
export function todoReads(c: Context<AppEnv>, caller: Caller, rows: TodoRow[], issueOpts: PresentOptions = {}, mrOpts: TodoMrOptions = { withoutSubscribed: true }) {
  const db = c.var.db;
  const base = baseUrl(c);
  const uniq = (xs: number[]) => [...new Set(xs)];
  const issueIds = uniq(rows.filter((t) => t.targetType === 'Issue').map((t) => t.targetId));
  const mrIds = uniq(rows.filter((t) => t.targetType === 'MergeRequest').map((t) => t.targetId));
  const projectIds = uniq(rows.flatMap((t) => (t.projectId ? [t.projectId] : [])));
  const groupIds = uniq(rows.flatMap((t) => (t.groupId ? [t.groupId] : [])));
  const noteIds = uniq(rows.flatMap((t) => (t.noteId ? [t.noteId] : [])));
  const projectNamespaces = sql`SELECT p.namespace_id FROM projects p WHERE p.id IN (SELECT value FROM json_each(${JSON.stringify(projectIds)}))`;
  const extras = issueIds.length ? issueReads(db, caller, jsonIds(issueIds), { ...issueReadOptions(c, undefined, issueOpts), projects: false }) : [];
  const slots = [
    issueIds.length ? db.select().from(issues).where(inJson(issues.id, issueIds)) : undefined,
    db.select().from(users).where(inJson(users.id, uniq(rows.map((t) => t.authorId)))),
    projectIds.length
      ? db.select({ project: aliasedColumns(projects, 'p_'), namespace: aliasedColumns(namespaces, 'n_') }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(inJson(projects.id, projectIds))
      : undefined,
    groupIds.length ? db.select().from(namespaces).where(inJson(namespaces.id, groupIds)) : undefined,
    noteIds.length ? db.select({ id: notes.id, body: notes.body }).from(notes).where(inJson(notes.id, noteIds)) : undefined,
    mrIds.length ? db.select().from(mergeRequests).where(inJson(mergeRequests.id, mrIds)) : undefined,
    // The names of the projects' namespaces and their ancestors (Namespace#full_name).
    projectIds.length
      ? db
          .select({ id: namespaces.id, name: namespaces.name })
          .from(namespaces)
          .where(sql`EXISTS (SELECT 1 FROM namespaces n WHERE n.id IN (${projectNamespaces}) AND n.traversal_path >= "namespaces"."traversal_path" AND n.traversal_path < "namespaces"."traversal_path" || ':') OR "namespaces"."id" IN (${projectNamespaces})`)
      : undefined,
    ...extras,
  ] as const;
  const mrReads = mrIds.length ? mergeRequestPresenterReads(c, caller, mrIds, { full: true, withoutSubscribed: mrOpts.withoutSubscribed }, mrOpts.one) : undefined;
  const list = [...slots.filter((q) => q !== undefined), ...(mrReads?.list ?? [])] as BatchItem<'sqlite'>[];
  const present = async (results: readonly unknown[], rows: TodoRow[]) => {
    let k = 0;
    const slotResults = slots.map((q) => (q === undefined ? undefined : results[k++]));
    const mrResults = results.slice(k);
    const [issueList, authorList, projectList, groupList, noteList, mrList, ancestorList, ...issueExtras] = slotResults as unknown as [
      IssueRow[] | undefined,
      UserRow[],
      ProjectWithNamespace[] | undefined,
      NamespaceRow[] | undefined,
      { id: number; body: string }[] | undefined,
      (typeof mergeRequests.$inferSelect)[] | undefined,
      { id: number; name: string }[] | undefined,
      ...unknown[],
    ];
    const byId = <T extends { id: number }>(list: T[] | undefined) => new Map((list ?? []).map((r) => [r.id, r]));
    const issueRows = byId(issueList);
    const authors = byId(authorList);
    const projectRows = new Map((projectList ?? []).map((r) => [r.project.id, { id: r.project.id, ...r }]));
    const groupRows = byId(groupList);
    const noteBodies = byId(noteList);
    const fullNames = fullNamesOf([...projectRows.values()].map((r) => r.namespace), new Map((ancestorList ?? []).map((n) => [n.id, n.name])));

    const targets = [...issueRows.values()];
    // The issues' projects are the to-dos' own (a to-do's project is its target's).
    if (issueExtras.length) issueExtras[6] = projectList;
    const presented = targets.length ? await presentIssueRows(c, caller, targets, issueExtras as unknown as IssueReadResults, issueOpts) : [];
    const targetJson = new Map<number, Todo['target']>(targets.map((row, i) => [row.id, presented[i]]));
    // Merge request targets: Entities::MergeRequest (todo.rb presents the full entity).
    const mrRows = byId(mrList);
    const mrTargets = [...mrRows.values()];
    const mrJson = mrReads && mrTargets.length ? await mrReads.present(mrResults, mrTargets) : [];
    const mrTargetJson = new Map<number, Todo['target']>(mrTargets.map((row, i) => [row.id, mrJson[i]]));

    const out = [];
    for (const t of rows) {
      const author = authors.get(t.authorId);
      if (t.targetType === 'MergeRequest') {
        const mr = mrRows.get(t.targetId);
        const parent = t.projectId ? projectRows.get(t.projectId) : undefined;
        if (!mr || !author || !parent) continue;
        const fullPath = `${parent.namespace.fullPath}/${parent.project.path}`;
        out.push(
          todoEntity(t, {
            base,
            author,
            project: { project: parent.project as ProjectRow, namespace: parent.namespace as NamespaceRow, namespaceFullName: fullNames.get(parent.namespace.id) ?? parent.namespace.name },
            group: null,
            target: mrTargetJson.get(mr.id)!,
            targetUrl: `${base}/${fullPath}/-/merge_requests/${mr.iid}${t.noteId ? `#note_${t.noteId}` : ''}`,
            body: t.noteId ? noteBodies.get(t.noteId)?.body ?? mr.title : mr.title,
          }),
        );
        continue;
      }
      const issue = issueRows.get(t.targetId);
      if (t.targetType !== 'Issue' || !issue || !author) continue;
      const parent = t.projectId ? projectRows.get(t.projectId) : undefined;
      const project = parent ? { project: parent.project as ProjectRow, namespace: parent.namespace as NamespaceRow, namespaceFullName: fullNames.get(parent.namespace.id) ?? parent.namespace.name } : null;
      const fullPath = parent ? `${parent.namespace.fullPath}/${parent.project.path}` : '';
      out.push(
        todoEntity(t, {
          base,
          author,
          project,
          group: t.groupId ? groupRows.get(t.groupId) ?? null : null,
          target: targetJson.get(issue.id)!,
          // Gitlab::Routing project_issue_url, with the note anchor of note to-dos (entities/todo.rb).
          targetUrl: `${base}/${fullPath}/-/issues/${issue.iid}${t.noteId ? `#note_${t.noteId}` : ''}`,
          body: t.noteId ? noteBodies.get(t.noteId)?.body ?? issue.title : issue.title,
        }),
      );
    }
    return out;
  };
  return { list, present };
}
