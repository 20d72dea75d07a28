/**
 * To-do item presenter (GitLab lib/api/entities/todo.rb), in its field order: `project` only for
 * project to-dos (ProjectIdentity), `group` only for group to-dos (NamespaceBasic). Pure: the
 * caller preloads the target's JSON, the author and the parents.
 */
import type { UserRow } from '../platform/context';
import type { todos } from '../db/schema';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { iso } from '../platform/time';
import { namespaceBasic, NamespaceBasicSchema } from '../projects/namespace-entity';
import { projectIdentity, ProjectIdentitySchema } from '../projects/project-entity';
import { userBasic, UserBasicSchema } from '../users/user-entity';
import { TODO_ACTIONS } from '../issuables/todos';
import { z } from 'zod';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { IssueSchema } from '../issues/issue-entity';
import { MergeRequestBasicSchema, MergeRequestSchema } from '../merge-requests/merge-request-entity';

export type TodoRow = typeof todos.$inferSelect;

export interface TodoExtras {
  base: string;
  author: UserRow;
  project?: { project: ProjectRow; namespace: NamespaceRow; namespaceFullName: string } | null;
  group?: NamespaceRow | null;
  /** The target's API entity (the Issue entity for issues). */
  target: Todo['target'];
  targetUrl: string;
  /** Todo#body: the note's text for note to-dos, else the target's title. */
  body: string;
}

export const TodoSchema = obj({
  id,
  /** Project to-dos. */
  project: ProjectIdentitySchema.optional(),
  /** Group to-dos. */
  group: NamespaceBasicSchema.optional(),
  author: UserBasicSchema,
  action_name: z.string().nullable(),
  target_type: z.enum(['Issue', 'MergeRequest']),
  target: z.union([IssueSchema, MergeRequestSchema, MergeRequestBasicSchema]),
  target_url: z.string(),
  body: z.string(),
  state: z.enum(['pending', 'done']),
  created_at: timestamp,
  updated_at: timestamp,
}).meta({ id: 'Todo' });
export type Todo = z.infer<typeof TodoSchema>;

export const UserCountsSchema = obj({
  /** Deprecated copy of assigned_merge_requests. */
  merge_requests: int,
  assigned_issues: int,
  assigned_merge_requests: int,
  review_requested_merge_requests: int,
  todos: int,
}).meta({ id: 'UserCounts' });

export const todoEntity = (t: TodoRow, x: TodoExtras): Todo => ({
  id: t.id,
  ...(t.projectId && x.project ? { project: projectIdentity(x.project.project, x.project.namespace, x.project) } : {}),
  ...(t.groupId && x.group ? { group: namespaceBasic(x.group, { base: x.base }) } : {}),
  author: userBasic(x.author, { base: x.base }),
  action_name: TODO_ACTIONS[t.action] ?? null,
  target_type: t.targetType as Todo['target_type'],
  target: x.target,
  target_url: x.targetUrl,
  body: x.body,
  state: t.state as Todo['state'],
  created_at: iso(t.createdAt),
  updated_at: iso(t.updatedAt),
});
