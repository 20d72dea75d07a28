/**
 * Archive lines of the relations main gained with tags and discussions (relation_factory.rb for
 * what this server holds): `protected_tags` with their `create_access_levels`, and `commit_notes`.
 */
import { sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { protectedTagCreateAccessLevels, protectedTags } from '../db/schema';
import { type ImportContext, LineError, noteRows } from './import-relations';

type Row = Record<string, unknown>;
type Stmt = BatchItem<'sqlite'>;

/** Role levels a protected tag's create rule may name (Gitlab::Access: no one, developer, maintainer, admin). */
const CREATE_LEVELS = new Set([0, 30, 40, 60]);

/**
 * A protected tag (an exact name or a wildcard) with its create access levels: role levels only
 * (users and groups of another instance mean nothing here), Maintainers when none is left, as
 * ProtectedTags::CreateService defaults.
 */
export function protectedTagRow(ctx: ImportContext, row: Row): Stmt[] {
  const name = typeof row.name === 'string' ? row.name.slice(0, 255) : '';
  if (!name.trim()) throw new LineError("Validation failed: Name can't be blank");
  const tagId = sql<number>`(SELECT id FROM protected_tags WHERE project_id = ${ctx.projectId} AND name = ${name})`;
  const levels = (Array.isArray(row.create_access_levels) ? row.create_access_levels : [])
    .map((a) => (a && typeof a === 'object' ? (a as Row).access_level : null))
    .filter((l): l is number => typeof l === 'number' && CREATE_LEVELS.has(l));
  return [
    ctx.db.insert(protectedTags).values({ projectId: ctx.projectId, name, createdAt: ctx.now, updatedAt: ctx.now }).onConflictDoNothing(),
    ...(levels.length ? [...new Set(levels)] : [40]).map((accessLevel) => ctx.db.insert(protectedTagCreateAccessLevels).values({ protectedTagId: tagId, accessLevel })),
  ];
}

/** A note on a commit of the project (`commit_notes`): its commit named by `commit_id`, as GitLab keeps it. */
export function commitNoteRow(ctx: ImportContext, row: Row): Stmt[] {
  if (typeof row.commit_id !== 'string' || !row.commit_id || row.commit_id.length > 64) throw new LineError("Validation failed: Commit can't be blank");
  noteRows(ctx, 'Commit', 0, [row]);
  return [];
}
