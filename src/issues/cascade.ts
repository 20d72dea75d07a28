/** Issue rows that go with deleted issues, projects, groups and users (platform/cascade.ts). */
import { and, eq, inArray, or } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { awardEmoji, epics, internalIds, issueAssignees, issueLinks, issueMetricImages, issues, resourceLabelEvents, resourceMilestoneEvents, resourceStateEvents, labelLinks, notes, subscriptions, timelogs, todos, userAgentDetails } from '../db/schema';
import { type BlobRead, type Cascade, cascade, type IdSelect, within } from '../platform/cascade';
import type { SQL } from 'drizzle-orm';

type Ids = IdSelect | ReturnType<Db['select']>;

/** An issue's own rows, whatever hangs off it here (Issuable::DestroyService); merge requests drop their links to it themselves. */
function issueRows(db: Db, issueIds: Ids): BatchItem<'sqlite'>[] {
  const noteIds = db.select({ id: notes.id }).from(notes).where(and(eq(notes.noteableType, 'Issue'), within(notes.noteableId, issueIds)));
  return [
    db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), within(awardEmoji.awardableId, noteIds))),
    db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Issue'), within(awardEmoji.awardableId, issueIds))),
    db.delete(notes).where(and(eq(notes.noteableType, 'Issue'), within(notes.noteableId, issueIds))),
    db.delete(issueAssignees).where(within(issueAssignees.issueId, issueIds)),
    db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Issue'), within(labelLinks.targetId, issueIds))),
    db.delete(todos).where(and(eq(todos.targetType, 'Issue'), within(todos.targetId, issueIds))),
    db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'Issue'), within(subscriptions.subscribableId, issueIds))),
    db.delete(timelogs).where(within(timelogs.issueId, issueIds)),
    db.delete(userAgentDetails).where(and(eq(userAgentDetails.subjectType, 'Issue'), within(userAgentDetails.subjectId, issueIds))),
    db.delete(issueMetricImages).where(within(issueMetricImages.issueId, issueIds)),
    // IssueLink belongs to both ends (dependent: :destroy either way), whichever project the other end is in.
    db.delete(issueLinks).where(or(within(issueLinks.sourceId, issueIds), within(issueLinks.targetId, issueIds))),
    db.delete(resourceLabelEvents).where(within(resourceLabelEvents.issueId, issueIds)),
    db.delete(resourceMilestoneEvents).where(within(resourceMilestoneEvents.issueId, issueIds)),
    db.delete(resourceStateEvents).where(within(resourceStateEvents.issueId, issueIds)),
    db.delete(issues).where(within(issues.id, issueIds)),
  ];
}

/** Incident metric image files of the issues: read at the head of the batch that deletes their rows. */
const metricImageKeys = (db: Db, issueIds: Ids): BlobRead => ({
  query: db.select({ key: issueMetricImages.blobKey }).from(issueMetricImages).where(within(issueMetricImages.issueId, issueIds)),
  keys: (rows: { key: string }[]) => rows.map((r) => r.key),
});

/**
 * A deleted user's issues. Soft delete: author, last editor and time logs become the ghost user's
 * (Users::MigrateRecordsToGhostUserService migrate_issues, migrate_timelogs); hard delete: the issues
 * they authored go (has_many :issues, dependent: :destroy), and so do their time logs. Either way
 * they stop being an assignee and closed_by is nullified (has_many :closed_issues, dependent: :nullify).
 */
function userIssues(db: Db, ids: IdSelect, ghostId: number | SQL | undefined) {
  const statements: BatchItem<'sqlite'>[] = [
    db.delete(issueAssignees).where(within(issueAssignees.userId, ids)),
    db.update(issues).set({ closedById: null }).where(within(issues.closedById, ids)),
  ];
  if (ghostId !== undefined) {
    statements.push(
      db.update(issues).set({ authorId: ghostId }).where(within(issues.authorId, ids)),
      db.update(issues).set({ lastEditedById: ghostId }).where(within(issues.lastEditedById, ids)),
      db.update(timelogs).set({ userId: ghostId }).where(within(timelogs.userId, ids)),
    );
    return { statements };
  }
  const authoredEpics = db.select({ id: epics.id }).from(epics).where(within(epics.authorId, ids));
  statements.push(
    db.update(issues).set({ lastEditedById: null }).where(within(issues.lastEditedById, ids)),
    db.delete(timelogs).where(within(timelogs.userId, ids)),
    // Epics the user authored go too (planning/cascade.ts): their issues stay, outside any epic.
    db.update(issues).set({ epicId: null }).where(within(issues.epicId, authoredEpics)),
  );
  const authored = cascade(db, 'issue', db.select({ id: issues.id }).from(issues).where(within(issues.authorId, ids)));
  return { statements: [...statements, ...authored.statements], blobReads: authored.blobReads };
}

export const issuesCascade: Cascade = {
  user: (db, ids, { ghostId }) => userIssues(db, ids, ghostId),
  issue: (db, ids) => ({ statements: issueRows(db, ids), blobReads: [metricImageKeys(db, ids)] }),
  project: (db, ids) => {
    const issueIds = db.select({ id: issues.id }).from(issues).where(within(issues.projectId, ids));
    return {
      statements: [...issueRows(db, issueIds), db.delete(internalIds).where(and(eq(internalIds.usage, 'issues'), inArray(internalIds.scopeId, ids as never)))],
      blobReads: [metricImageKeys(db, issueIds)],
    };
  },
  // The groups' epics go (planning/cascade.ts); their issues stay, outside any epic.
  group: (db, ids) => ({ statements: [db.update(issues).set({ epicId: null }).where(within(issues.epicId, db.select({ id: epics.id }).from(epics).where(within(epics.groupId, ids))))] }),
};
