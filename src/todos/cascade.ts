/** To-dos that go with deleted projects, groups and users (platform/cascade.ts); issues and merge requests drop the to-dos that target them. */
import { todos } from '../db/schema';
import { type Cascade, within } from '../platform/cascade';

export const todosCascade: Cascade = {
  project: (db, ids) => ({ statements: [db.delete(todos).where(within(todos.projectId, ids))] }),
  group: (db, ids) => ({ statements: [db.delete(todos).where(within(todos.groupId, ids))] }),
  // The user's own to-dos go (has_many :todos, dependent: :destroy); the ones they caused others stay,
  // by the ghost user (migrate_authored_todos), or go on hard delete (authored_todos, dependent: :destroy).
  user: (db, ids, { ghostId }) => ({
    statements: [
      db.delete(todos).where(within(todos.userId, ids)),
      ghostId === undefined ? db.delete(todos).where(within(todos.authorId, ids)) : db.update(todos).set({ authorId: ghostId }).where(within(todos.authorId, ids)),
    ],
  }),
};
