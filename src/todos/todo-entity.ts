/**
 * To-do item presenter (GitLab lib/api/entities/todo.rb), in its field order: `project` only for
 * project to-dos (ProjectIdentity), `group` only for group to-dos (NamespaceBasic). Pure: the
 * caller preloads the target's JSON, the author and the parents.
 */
import type { UserRow } from '../platform/context';
import type { todos } from '../db/schema';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { iso } from '../platform/time';
import { namespaceBasic } from '../projects/namespace-entity';
import { projectIdentity } from '../projects/project-entity';
import { userBasic } from '../users/user-entity';
import { TODO_ACTIONS } from '../issuables/todos';

export type TodoRow = typeof todos.$inferSelect;

export interface TodoExtras {
  base: string;
  author: UserRow;
  project?: { project: ProjectRow; namespace: NamespaceRow; namespaceFullName: string } | null;
  group?: NamespaceRow | null;
  /** The target's API entity (the Issue entity for issues). */
  target: unknown;
  targetUrl: string;
  /** Todo#body: the note's text for note to-dos, else the target's title. */
  body: string;
}

export const todoEntity = (t: TodoRow, x: TodoExtras) => ({
  id: t.id,
  ...(t.projectId && x.project ? { project: projectIdentity(x.project.project, x.project.namespace, x.project) } : {}),
  ...(t.groupId && x.group ? { group: namespaceBasic(x.group, { base: x.base }) } : {}),
  author: userBasic(x.author, { base: x.base }),
  action_name: TODO_ACTIONS[t.action] ?? null,
  target_type: t.targetType,
  target: x.target,
  target_url: x.targetUrl,
  body: x.body,
  state: t.state,
  created_at: iso(t.createdAt),
  updated_at: iso(t.updatedAt),
});
