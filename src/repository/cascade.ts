/** Repository contents and protected branches that go with deleted projects, and the access entries of deleted users and groups (platform/cascade.ts). */
import type { Cascade } from '../platform/cascade';
import { protectedBranchDeletionStatements, protectedBranchGroupDeletionStatements, protectedBranchUserDeletionStatements } from './protected-branches';
import { repositoryBlobKeys, repositoryDeletionStatements } from './repository-store';

export const repositoryCascade: Cascade = {
  user: (db, ids) => ({ statements: protectedBranchUserDeletionStatements(db, ids) }),
  group: (db, ids) => ({ statements: protectedBranchGroupDeletionStatements(db, ids) }),
  project: (db, ids) => ({
    statements: [...protectedBranchDeletionStatements(db, ids), ...repositoryDeletionStatements(db, ids)],
    blobReads: [repositoryBlobKeys(db, ids)],
  }),
};
