/** Labels, milestones and epics that go with deleted projects, groups and users (platform/cascade.ts). */
import { and, eq, inArray, or } from 'drizzle-orm';
import { awardEmoji, epics, internalIds, labelLinks, labelPriorities, labels, milestones, notes, resourceLabelEvents, subscriptions } from '../db/schema';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { type Cascade, type IdSelect, within } from '../platform/cascade';
import { relatedEpicLinksDelete } from './related-epic-links';

/** An epic's own rows (comments, their awards, labels, links to other epics) and the epic. */
const epicRows = (db: Db, epicIds: IdSelect | ReturnType<Db['select']>): BatchItem<'sqlite'>[] => [
  relatedEpicLinksDelete(db, epicIds),
  db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), within(awardEmoji.awardableId, db.select({ id: notes.id }).from(notes).where(and(eq(notes.noteableType, 'Epic'), within(notes.noteableId, epicIds)))))),
  db.delete(notes).where(and(eq(notes.noteableType, 'Epic'), within(notes.noteableId, epicIds))),
  db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Epic'), within(awardEmoji.awardableId, epicIds))),
  db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Epic'), within(labelLinks.targetId, epicIds))),
  db.delete(resourceLabelEvents).where(within(resourceLabelEvents.epicId, epicIds)),
  db.update(epics).set({ parentId: null }).where(within(epics.parentId, epicIds)),
  db.delete(epics).where(within(epics.id, epicIds)),
];

export const planningCascade: Cascade = {
  // EE Users::MigrateRecordsToGhostUserService migrate_epics: a soft-deleted user's epics stay, by the
  // ghost user; hard delete removes them (issues leave them first, issues/cascade.ts).
  user: (db, ids, { ghostId }) => ({
    statements: [
      db.update(epics).set({ closedById: null }).where(within(epics.closedById, ids)),
      ...(ghostId !== undefined
        ? [db.update(epics).set({ authorId: ghostId }).where(within(epics.authorId, ids))]
        : epicRows(db, db.select({ id: epics.id }).from(epics).where(within(epics.authorId, ids)))),
    ],
  }),
  project: (db, ids) => {
    const labelIds = db.select({ id: labels.id }).from(labels).where(within(labels.projectId, ids));
    return {
      statements: [
        db.delete(labelLinks).where(within(labelLinks.labelId, labelIds)),
        db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'Label'), within(subscriptions.subscribableId, labelIds))),
        db.delete(labelPriorities).where(within(labelPriorities.projectId, ids)),
        db.delete(labels).where(within(labels.projectId, ids)),
        db.delete(milestones).where(within(milestones.projectId, ids)),
        db.delete(internalIds).where(and(eq(internalIds.usage, 'milestones'), inArray(internalIds.scopeId, ids as never))),
      ],
    };
  },
  group: (db, ids) => {
    const labelIds = db.select({ id: labels.id }).from(labels).where(within(labels.groupId, ids));
    const epicIds = db.select({ id: epics.id }).from(epics).where(within(epics.groupId, ids));
    return {
      statements: [
        db.delete(labelLinks).where(within(labelLinks.labelId, labelIds)),
        db.delete(labelPriorities).where(within(labelPriorities.labelId, labelIds)),
        db.delete(labels).where(within(labels.groupId, ids)),
        db.delete(milestones).where(within(milestones.groupId, ids)),
        db.delete(notes).where(and(eq(notes.noteableType, 'Epic'), within(notes.noteableId, epicIds))),
        db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Epic'), within(awardEmoji.awardableId, epicIds))),
        db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Epic'), within(labelLinks.targetId, epicIds))),
        db.delete(resourceLabelEvents).where(within(resourceLabelEvents.epicId, epicIds)),
        relatedEpicLinksDelete(db, epicIds),
        db.delete(epics).where(within(epics.groupId, ids)),
        db.delete(internalIds).where(and(or(eq(internalIds.usage, 'group_milestones'), eq(internalIds.usage, 'epics')), inArray(internalIds.scopeId, ids as never))),
      ],
    };
  },
};
