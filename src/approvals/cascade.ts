/** Approval rows that go with deleted users, groups, projects and merge requests (platform/cascade.ts). */
import type { Cascade } from '../platform/cascade';
import { approvalDeletionForMergeRequests, approvalDeletionForProjects, approvalGroupDeletionStatements, approvalUserDeletionStatements } from './approval-deletion';

export const approvalsCascade: Cascade = {
  user: (db, ids) => ({ statements: approvalUserDeletionStatements(db, ids) }),
  group: (db, ids) => ({ statements: approvalGroupDeletionStatements(db, ids) }),
  project: (db, ids) => ({ statements: approvalDeletionForProjects(db, ids) }),
  mergeRequest: (db, ids) => ({ statements: approvalDeletionForMergeRequests(db, ids) }),
};
