/**
 * Entities::Tag, Entities::ProtectedTag and Entities::BasicRef (lib/api/entities/tag.rb,
 * protected_tag.rb, basic_ref.rb), in GitLab's field order. Pure.
 */
import { z } from 'zod';
import { id, int, obj } from '../platform/response-schemas';
import { commitDate, commitEntity, CommitSchema } from './commit-entity';
import { HUMAN_ACCESS_LEVELS } from './protected-branches';
import type { protectedTagCreateAccessLevels, protectedTags } from '../db/schema';
import type { TagWithCommit } from './tags';

export const TagSchema = obj({
  name: z.string(),
  /** The annotation; null for a lightweight tag. */
  message: z.string().nullable(),
  /** The tag object's id (annotated) or the commit's (lightweight). */
  target: z.string(),
  commit: CommitSchema,
  /** Entities::TagRelease; releases are not served here, so always null. */
  release: z.null(),
  protected: z.boolean(),
  /** The tagger's date (annotated); null for a lightweight tag (GitLab 16.11). */
  created_at: z.iso.datetime({ precision: 3, offset: true }).nullable(),
}).meta({ id: 'Tag' });
export type Tag = z.infer<typeof TagSchema>;

export function tagEntity(t: TagWithCommit, isProtected: boolean, x: { base: string; projectFullPath: string }): Tag {
  return {
    name: t.tag.name,
    message: t.tag.message,
    target: t.tag.targetSha,
    commit: commitEntity(t.commit, x),
    release: null,
    protected: isProtected,
    created_at: t.tag.taggedAt == null ? null : commitDate(t.tag.taggedAt),
  };
}

export type ProtectedTagRow = typeof protectedTags.$inferSelect;
export type ProtectedTagLevelRow = typeof protectedTagCreateAccessLevels.$inferSelect;
export interface ProtectedTagWithLevels extends ProtectedTagRow {
  create: ProtectedTagLevelRow[];
}

export const ProtectedTagAccessSchema = obj({
  id,
  access_level: int.nullable(),
  access_level_description: z.string().nullable(),
}).meta({ id: 'ProtectedTagAccess' });

export const ProtectedTagSchema = obj({
  name: z.string(),
  create_access_levels: z.array(ProtectedTagAccessSchema),
}).meta({ id: 'ProtectedTag' });
export type ProtectedTag = z.infer<typeof ProtectedTagSchema>;

export function protectedTagEntity(pt: ProtectedTagWithLevels, userNames: Map<number, string>): ProtectedTag {
  return {
    name: pt.name,
    create_access_levels: pt.create.map((l) => ({
      id: l.id,
      access_level: l.accessLevel,
      // ProtectedRefAccess#humanize: a user entry shows the user's name.
      access_level_description: l.userId != null ? (userNames.get(l.userId) ?? 'User') : l.accessLevel == null ? null : (HUMAN_ACCESS_LEVELS[l.accessLevel] ?? null),
    })),
  };
}

/** Entities::BasicRef: a branch or tag containing a commit. */
export const BasicRefSchema = obj({ type: z.enum(['branch', 'tag']), name: z.string() }).meta({ id: 'BasicRef' });
