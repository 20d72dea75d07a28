/**
 * The relations main gained with tags and discussions, as GitLab's exporter writes them
 * (import_export.yml): `protected_tags` with their `create_access_levels`, and `commit_notes`, the
 * notes on the project's commits (with their author's name and award emoji, like any note).
 */
import { aliasedColumns } from '../db/aliased-columns';
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import { awardEmoji, notes, protectedTagCreateAccessLevels, protectedTags, users } from '../db/schema';
import { inJson } from '../db/batch-reads';
import { iso } from '../platform/time';
import { type ExportScope, noteJson, PAGE } from './export-tree';

type Lines = AsyncGenerator<Record<string, unknown>>;

export async function* protectedTagLines({ db, project: { id: projectId } }: ExportScope): Lines {
  const [tags, levels] = await db.batch([
    db.select().from(protectedTags).where(eq(protectedTags.projectId, projectId)).orderBy(asc(protectedTags.id)),
    db
      .select()
      .from(protectedTagCreateAccessLevels)
      .where(inArray(protectedTagCreateAccessLevels.protectedTagId, db.select({ id: protectedTags.id }).from(protectedTags).where(eq(protectedTags.projectId, projectId))))
      .orderBy(asc(protectedTagCreateAccessLevels.id)),
  ]);
  for (const t of tags) {
    yield {
      id: t.id,
      project_id: t.projectId,
      name: t.name,
      created_at: iso(t.createdAt),
      updated_at: iso(t.updatedAt),
      // The access levels keep no times of their own here: the rule's.
      create_access_levels: levels
        .filter((l) => l.protectedTagId === t.id)
        .map((l) => ({ id: l.id, protected_tag_id: l.protectedTagId, access_level: l.accessLevel, created_at: iso(t.createdAt), updated_at: iso(t.updatedAt), user_id: l.userId, group_id: null })),
    };
  }
}

/** `commit_notes`: the project's notes on commits, a page at a time by id. */
export async function* commitNoteLines({ db, project: { id: projectId }, after: start }: ExportScope): Lines {
  let after = start ?? 0;
  const u = aliasedColumns(users, 'u_');
  for (;;) {
    const rows = await db
      .select({ note: notes, authorName: u.name })
      .from(notes)
      .leftJoin(users, eq(users.id, notes.authorId))
      .where(and(eq(notes.noteableType, 'Commit'), eq(notes.projectId, projectId), gt(notes.id, after)))
      .orderBy(asc(notes.id))
      .limit(PAGE)
      .all();
    if (!rows.length) return;
    const emoji = await db.select().from(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), inJson(awardEmoji.awardableId, rows.map((r) => r.note.id)))).all();
    for (const r of rows) yield noteJson({ ...r.note, authorName: r.authorName }, emoji);
    after = rows[rows.length - 1].note.id;
  }
}
