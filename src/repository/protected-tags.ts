/**
 * Protected tags (ProtectedTag, Gitlab::Checks::TagCheck): which tag names are protected (exact
 * names and wildcards, matched as protected branches are) and who may create one
 * (`create_access_levels`). A project has few rules: they are read whole with the project.
 */
import { asc, type SQL, sql } from 'drizzle-orm';
import type { Caller } from '../platform/context';
import type { Db } from '../db/client';
import { protectedTagCreateAccessLevels, protectedTags } from '../db/schema';
import { type AccessLevelRow, checkAccess, refMatches } from './protected-branches';
import type { ProtectedTagLevelRow, ProtectedTagRow, ProtectedTagWithLevels } from './tags-entity';

/** The project's protected tags and their create levels, for the batch that finds the project. */
export const protectedTagReads = (db: Db, projectId: SQL) =>
  [
    db.select().from(protectedTags).where(sql`${protectedTags.projectId} = ${projectId}`).orderBy(asc(protectedTags.id)),
    db
      .select()
      .from(protectedTagCreateAccessLevels)
      .where(sql`${protectedTagCreateAccessLevels.protectedTagId} IN (SELECT pt.id FROM protected_tags pt WHERE pt.project_id = ${projectId})`)
      .orderBy(asc(protectedTagCreateAccessLevels.id)),
  ] as const;

export const withCreateLevels = (rows: ProtectedTagRow[], levels: ProtectedTagLevelRow[]): ProtectedTagWithLevels[] =>
  rows.map((r) => ({ ...r, create: levels.filter((l) => l.protectedTagId === r.id) }));

/** ProtectedTag.protected?(project, name). */
export const isProtectedTag = (rules: { name: string }[], name: string) => rules.some((r) => refMatches(r.name, name));

/**
 * ProtectedTag.protected_ref_accessible_to?: an unprotected name is open to whoever may push code;
 * a protected one to those any matching rule's create levels admit (an administrator as any maintainer).
 */
export function canCreateTag(caller: Caller, level: number, rules: ProtectedTagWithLevels[], name: string, archived: boolean): boolean {
  const matching = rules.filter((r) => refMatches(r.name, name));
  if (!matching.length) return true;
  return matching.some((r) => r.create.some((l) => checkAccess(caller, level, asAccessRow(l), archived)));
}

const asAccessRow = (l: ProtectedTagLevelRow): AccessLevelRow => ({ id: l.id, protectedBranchId: l.protectedTagId, kind: 'push', accessLevel: l.accessLevel, userId: l.userId, groupId: null, deployKeyId: null, createdAt: 0, updatedAt: 0 });
