/**
 * To-do items: marking an issue or a merge request (TodoService#mark_todo), the caller's list
 * (TodosFinder) and the presenter loader (authors, parents, targets for a page in a fixed number of
 * queries).
 *
 * Issue and merge request to-dos are listed. A to-do whose target the caller can no longer read
 * (project access lost, confidential) stays in the table but is hidden from the list, as
 * Todos::AllowedTargetFilterService hides it.
 */
import { and, eq, inArray, notExists, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { issueAssignees, issues, mergeRequests, namespaces, notes, projects, todos, users } from '../db/schema';
import { type Todo, type TodoRow, todoEntity } from './todo-entity';
import { TODO_MARKED } from '../issuables/todos';
import { type NamespaceRow, projectLevelSql, projectVisibleSql, type ProjectRow, mergeRequestVisibleSql } from '../projects/abilities';
import { type PresentOptions, presentIssues } from '../issues/issue-presenter';
import { presentMergeRequests } from '../merge-requests/merge-requests';
import { baseUrl } from '../platform/pagination';
import { loadFullNames } from '../projects/groups';

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
  const target = targetType === 'Issue' ? issues : mergeRequests;
  const pending = db
    .select({ one: sql`1` })
    .from(todos)
    .where(and(eq(todos.userId, user.id), eq(todos.targetType, targetType), eq(todos.targetId, targetId), eq(todos.state, 'pending')));
  const rows = await db
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
    .returning()
    .all();
  return rows[0] ?? null;
}

async function byIds<T extends { id: number }>(ids: number[], load: (chunk: number[]) => Promise<T[]>): Promise<Map<number, T>> {
  const out = new Map<number, T>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 90) for (const row of await load(unique.slice(i, i + 90))) out.set(row.id, row);
  return out;
}

/** Presents to-dos (issue and merge request targets) with their authors, projects and Issue entities. */
export async function presentTodos(c: Context<AppEnv>, caller: Caller, rows: TodoRow[], issueOpts: PresentOptions = {}, mrOpts: { withoutSubscribed?: boolean } = { withoutSubscribed: true }) {
  if (!rows.length) return [];
  const db = c.var.db;
  const base = baseUrl(c);
  const issueRows = await byIds(
    rows.filter((t) => t.targetType === 'Issue').map((t) => t.targetId),
    (chunk) => db.select().from(issues).where(inArray(issues.id, chunk)).all(),
  );
  const authors = await byIds(rows.map((t) => t.authorId), (chunk) => db.select().from(users).where(inArray(users.id, chunk)).all());
  const projectRows = await byIds(
    rows.flatMap((t) => (t.projectId ? [t.projectId] : [])),
    async (chunk) =>
      (await db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(inArray(projects.id, chunk)).all()).map((r) => ({
        id: r.project.id,
        ...r,
      })),
  );
  const groupRows = await byIds(rows.flatMap((t) => (t.groupId ? [t.groupId] : [])), (chunk) => db.select().from(namespaces).where(inArray(namespaces.id, chunk)).all());
  const fullNames = await loadFullNames(db, [...projectRows.values()].map((r) => r.namespace));
  const noteBodies = await byIds(rows.flatMap((t) => (t.noteId ? [t.noteId] : [])), (chunk) => db.select({ id: notes.id, body: notes.body }).from(notes).where(inArray(notes.id, chunk)).all());

  const targets = [...issueRows.values()];
  const presented = await presentIssues(c, caller, targets, issueOpts);
  const targetJson = new Map<number, Todo['target']>(targets.map((row, i) => [row.id, presented[i]]));
  // Merge request targets: Entities::MergeRequest (todo.rb presents the full entity).
  const mrRows = await byIds(
    rows.filter((t) => t.targetType === 'MergeRequest').map((t) => t.targetId),
    (chunk) => db.select().from(mergeRequests).where(inArray(mergeRequests.id, chunk)).all(),
  );
  const mrTargets = [...mrRows.values()];
  const mrJson = await presentMergeRequests(c, caller, mrTargets, { full: true, withoutSubscribed: mrOpts.withoutSubscribed });
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
}
