/**
 * The users a merge request write names as assignees or reviewers, with their level in the project
 * (src/issuables/people-reads.ts), and, with `mrId`, the people it has now (for the update's
 * system notes' usernames).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { peopleNamedRead as namedRead } from '../issuables/people-reads';

export { assignableFrom, type PersonNamed } from '../issuables/people-reads';

export const peopleNamedRead = (db: Db, projectId: SQL, ids: readonly number[], mrId?: SQL) =>
  namedRead(
    db,
    projectId,
    ids,
    mrId
      ? sql`SELECT a.user_id FROM merge_request_assignees a WHERE a.merge_request_id = ${mrId} UNION SELECT r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id = ${mrId}`
      : undefined,
  );
