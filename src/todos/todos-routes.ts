/**
 * To-do items (GitLab lib/api/todos.rb, app/finders/todos_finder.rb): mark an issue or a merge request, list the
 * caller's to-dos, mark one or all as done. Every route runs `authenticate!` (mounted signed-in).
 * A caller only ever sees and changes their own to-dos.
 */
import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import { namespaces, projects, todos, users } from '../db/schema';
import { writeThenRead } from '../db/batch-reads';
import { TODO_ACTIONS } from '../issuables/todos';
import { subtreeOf } from '../projects/abilities';
import { notModified, recordNotFound } from '../platform/errors';
import { countUpTo, countUpToQuery, linkParamsFrom, pageRequest, paginate, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { findReadableIssue } from '../issues/issues';
import { findReadableMergeRequestWith } from '../merge-requests/merge-requests';
import { markedTodoRow, markTodo, markTodoStatement, presentTodos, todoReads, todoTargetVisibleSql } from './todos';
import type { TodoRow } from './todo-entity';
import { TodoSchema } from './todo-entity';
import { z } from 'zod';

const TAGS = ['todos'];
const ACTION_NAMES = Object.values(TODO_ACTIONS) as [string, ...string[]];
/** TodosFinder::TODO_TYPES plus the EE Epic. */
const TODO_TYPES = ['Commit', 'Issue', 'WorkItem', 'MergeRequest', 'DesignManagement::Design', 'AlertManagement::Alert', 'Namespace', 'Project', 'Key', 'WikiPage::Meta', 'Epic'] as const;

export function mountTodos(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/:id/issues/:issue_iid/todo',
      summary: 'Create a to-do item on an issue',
      tags: TAGS,
      params: params({ id: g.string(), issue_iid: g.int() }),
      responses: { 201: TodoSchema, 304: null },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { issue } = await findReadableIssue(c, caller, p.id, p.issue_iid);
      const todo = await markTodo(c.var.db, user, 'Issue', issue.id);
      // TodoService creates nothing while a pending to-do exists: `not_modified!` (spec: States and transitions).
      if (!todo) throw notModified();
      // `present todo, with: Entities::Todo`: the Issue target keeps `subscribed` (include_subscribed defaults to true).
      const [out] = await presentTodos(c, caller, [todo], { includeSubscribed: true });
      return c.json(out, 201);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/merge_requests/:merge_request_iid/todo',
      summary: 'Create a to-do item on a merge request',
      tags: TAGS,
      params: params({ id: g.string(), merge_request_iid: g.int() }),
      responses: { 201: TodoSchema, 304: null },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      // ISSUABLE_TYPES['merge_requests']: find_merge_request_with_access (403 without read_merge_request).
      const { mr, project } = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, () => ({ list: [], unflatten: () => undefined }));
      // The insert and everything its answer shows in one batch: the new row is known before it exists.
      const now = Date.now();
      const reads = todoReads(c, caller, [markedTodoRow(user, mr.projectId, 'MergeRequest', mr.id, now)], {}, { withoutSubscribed: false, one: { projectId: project.id, iid: mr.iid } });
      const [inserted, ...results] = (await c.var.db.batch([markTodoStatement(c.var.db, user, 'MergeRequest', mr.id, now), ...reads.list])) as unknown as [TodoRow[], ...unknown[]];
      const todo = inserted[0];
      if (!todo) throw notModified();
      const [out] = await reads.present(results, [todo]);
      // Entities::Todo represents the target with the options of its type only (none here): the
      // MergeRequest entity sees no current user, so `subscribed` and `user.can_merge` are false.
      const target = out.target as { subscribed?: boolean; user?: { can_merge: boolean } };
      target.subscribed = false;
      if (target.user) target.user.can_merge = false;
      return c.json(out, 201);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/todos',
      summary: 'Get a list of to-do items',
      tags: TAGS,
      params: params({
        ...paginationParams,
        action: g.enum(ACTION_NAMES).optional(),
        author_id: g.int().optional(),
        project_id: g.int().optional(),
        group_id: g.int().optional(),
        state: g.enum(['pending', 'done']).optional(),
        type: g.enum(TODO_TYPES).optional(),
      }),
      responses: { 200: z.array(TodoSchema) },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      const conds: (SQL | undefined)[] = [eq(todos.userId, user.id), eq(todos.state, p.state ?? 'pending'), todoTargetVisibleSql(caller)];
      if (p.action) conds.push(eq(todos.action, Number(Object.entries(TODO_ACTIONS).find(([, name]) => name === p.action)![0])));
      if (p.author_id !== undefined) {
        // TodosFinder#author: User.find, so an unknown id is a 404 rather than an empty list.
        const author = await db.select({ id: users.id }).from(users).where(eq(users.id, p.author_id)).get();
        if (!author) throw recordNotFound();
        conds.push(eq(todos.authorId, author.id));
      }
      if (p.type) conds.push(eq(todos.targetType, p.type));
      if (p.group_id !== undefined) {
        // Todo.for_group_ids_and_descendants: to-dos of the group's subtree and of projects in it.
        const group = await db.select().from(namespaces).where(and(eq(namespaces.id, p.group_id), eq(namespaces.kind, 'Group'))).get();
        if (!group) throw recordNotFound();
        const subtree = db.select({ id: namespaces.id }).from(namespaces).where(group.traversalPath ? subtreeOf(group.traversalPath) : eq(namespaces.id, group.id));
        const subtreeProjects = db.select({ id: projects.id }).from(projects).where(inArray(projects.namespaceId, subtree));
        conds.push(or(inArray(todos.groupId, subtree), inArray(todos.projectId, subtreeProjects)));
      }
      if (p.project_id !== undefined) conds.push(eq(todos.projectId, p.project_id));
      const where = and(...conds);
      const raw = await requestParams(c);
      const rows = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        (limit, offset) => db.select().from(todos).where(where).orderBy(desc(todos.id)).limit(limit).offset(offset),
        (limit) => countUpToQuery(db, todos, where, limit),
      );
      // batch_load_issuable_metadata passes include_subscribed: false for list targets.
      return c.json(await presentTodos(c, caller, rows));
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/todos/:id/mark_as_done',
      summary: 'Mark a to-do item as done',
      tags: TAGS,
      params: params({ id: g.int() }),
      responses: { 201: TodoSchema.nullable() },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      // `current_user.todos.find(id)` (someone else's to-do is a RecordNotFound), then done: the
      // update and the read of the row it leaves in one batch (a missing or foreign id updates nothing).
      const mine = and(eq(todos.id, p.id), eq(todos.userId, user.id));
      const [[todo]] = await writeThenRead(db, [db.update(todos).set({ state: 'done', updatedAt: Date.now() }).where(and(mine, eq(todos.state, 'pending')))], [db.select().from(todos).where(mine).limit(1)]);
      if (!todo) throw recordNotFound();
      const [out] = await presentTodos(c, caller, [todo], { includeSubscribed: true });
      return c.json(out ?? null, 201);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/todos/mark_as_done',
      summary: 'Mark all to-do items as done',
      tags: TAGS,
      responses: { 204: null },
    },
    async ({ c, caller }) => {
      const user = requireUser(caller);
      await c.var.db.update(todos).set({ state: 'done', updatedAt: Date.now() }).where(and(eq(todos.userId, user.id), eq(todos.state, 'pending'))).run();
      return c.body(null, 204);
    },
  );
}

