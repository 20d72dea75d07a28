/** To-dos that go with deleted projects and groups (platform/cascade.ts); issues and merge requests drop the to-dos that target them. */
import { todos } from '../db/schema';
import { type Cascade, within } from '../platform/cascade';

export const todosCascade: Cascade = {
  project: (db, ids) => ({ statements: [db.delete(todos).where(within(todos.projectId, ids))] }),
  group: (db, ids) => ({ statements: [db.delete(todos).where(within(todos.groupId, ids))] }),
};
