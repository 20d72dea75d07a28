/**
 * Comments and award emoji of a deleted user (platform/cascade.ts), and a deleted project's commit
 * comments (Project has_many :notes, dependent: :destroy; the other noteables delete their own). Soft delete re-attributes them to
 * the ghost user (Users::MigrateRecordsToGhostUserService migrate_notes, migrate_award_emoji); hard
 * delete removes them (User has_many :notes / :award_emoji, dependent: :destroy).
 */
import { and, eq, sql } from 'drizzle-orm';
import { awardEmoji, notes } from '../db/schema';
import { type Cascade, within } from '../platform/cascade';

export const notesCascade: Cascade = {
  project: (db, ids) => {
    const commitNotes = db.select({ id: notes.id }).from(notes).where(and(eq(notes.noteableType, 'Commit'), within(notes.projectId, ids)));
    return {
      statements: [
        db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), within(awardEmoji.awardableId, commitNotes))),
        db.delete(notes).where(and(eq(notes.noteableType, 'Commit'), within(notes.projectId, ids))),
      ],
    };
  },
  user: (db, ids, { ghostId }) => {
    // Who resolved or last edited a comment is nullified (foreign keys ON DELETE SET NULL); a resolved
    // thread stays resolved (resolved_at).
    const unlink = [
      db.update(notes).set({ resolvedById: null }).where(within(notes.resolvedById, ids)),
      db.update(notes).set({ updatedById: null }).where(within(notes.updatedById, ids)),
    ];
    if (ghostId === undefined) {
      const authored = db.select({ id: notes.id }).from(notes).where(within(notes.authorId, ids));
      return {
        statements: [
          ...unlink,
          db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), within(awardEmoji.awardableId, authored))),
          db.delete(awardEmoji).where(within(awardEmoji.userId, ids)),
          db.delete(notes).where(within(notes.authorId, ids)),
        ],
      };
    }
    // The ghost may already hold the same emoji on the same thing (from another deleted user): one
    // award per user and name (award_emoji_unique), so the duplicate goes instead of failing the batch.
    const ghostHasIt = sql`exists (select 1 from ${awardEmoji} as g where g.user_id = ${ghostId} and g.awardable_type = ${awardEmoji.awardableType} and g.awardable_id = ${awardEmoji.awardableId} and g.name = ${awardEmoji.name})`;
    return {
      statements: [
        ...unlink,
        db.update(notes).set({ authorId: ghostId }).where(within(notes.authorId, ids)),
        db.delete(awardEmoji).where(and(within(awardEmoji.userId, ids), ghostHasIt)),
        db.update(awardEmoji).set({ userId: ghostId }).where(within(awardEmoji.userId, ids)),
      ],
    };
  },
};
