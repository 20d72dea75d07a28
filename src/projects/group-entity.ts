/**
 * Group presenters. Field order: the spec's GroupRef, which is GitLab's Group entity as it was
 * ordered before BasicGroupDetails moved web_url forward (lib/api/entities/group.rb, EE ldap_*).
 */
import { z } from 'zod';
import { date, id, int, obj, timestamp } from '../platform/response-schemas';
import type { NamespaceRow } from './abilities';
import { iso } from '../platform/time';
import { namespaceAvatarUrl, namespaceWebUrl } from './namespace-entity';
import { type Project, ProjectSchema } from './project-entity';
import { projectCreationLevelName } from './project-creation-level';

export interface GroupExtras {
  base: string;
  fullName: string;
  /** Instance settings, for the values a group inherits (project creation level, branch protection). */
  settings?: Record<string, unknown>;
}

export const GroupSchema = obj({
  id,
  name: z.string(),
  path: z.string(),
  description: z.string(),
  visibility: z.enum(['private', 'internal', 'public']),
  share_with_group_lock: z.boolean(),
  require_two_factor_authentication: z.boolean(),
  two_factor_grace_period: int,
  project_creation_level: z.string(),
  auto_devops_enabled: z.boolean().nullable(),
  subgroup_creation_level: z.string(),
  emails_disabled: z.boolean(),
  emails_enabled: z.boolean(),
  mentions_disabled: z.boolean().nullable(),
  lfs_enabled: z.boolean(),
  default_branch: z.string().nullable(),
  default_branch_protection: int,
  avatar_url: z.string().nullable(),
  web_url: z.string(),
  request_access_enabled: z.boolean(),
  full_name: z.string(),
  full_path: z.string(),
  created_at: timestamp,
  parent_id: int.nullable(),
  ldap_cn: z.string().nullable(),
  ldap_access: int.nullable(),
  marked_for_deletion_on: z.string().nullable(),
}).meta({ id: 'Group' });
export type Group = z.infer<typeof GroupSchema>;

export const groupEntity = (g: NamespaceRow, x: GroupExtras): Group => ({
  id: g.id,
  name: g.name,
  path: g.path,
  description: g.description,
  visibility: g.visibility as Group['visibility'],
  share_with_group_lock: g.shareWithGroupLock,
  require_two_factor_authentication: g.requireTwoFactorAuthentication,
  two_factor_grace_period: g.twoFactorGracePeriod,
  project_creation_level: projectCreationLevelName(g.projectCreationLevel, x.settings ?? {}),
  auto_devops_enabled: null,
  subgroup_creation_level: g.subgroupCreationLevel,
  emails_disabled: !g.emailsEnabled,
  emails_enabled: g.emailsEnabled,
  mentions_disabled: g.mentionsDisabled ?? null,
  lfs_enabled: g.lfsEnabled,
  default_branch: g.defaultBranchName ?? null,
  // Group#default_branch_protection: groups here store none, so the instance's applies.
  default_branch_protection: Number(x.settings?.default_branch_protection ?? 2),
  avatar_url: namespaceAvatarUrl(g, x.base),
  web_url: namespaceWebUrl(g, x.base),
  request_access_enabled: g.requestAccessEnabled,
  full_name: x.fullName,
  full_path: g.fullPath,
  created_at: iso(g.createdAt),
  parent_id: g.parentId ?? null,
  ldap_cn: null,
  ldap_access: null,
  marked_for_deletion_on: null,
});

/** Entities::SharedGroupWithGroup: a group this group is shared with (POST /groups/:id/share). */
export const SharedGroupWithGroupSchema = obj({
  group_id: id,
  group_name: z.string(),
  group_full_path: z.string(),
  group_access_level: int,
  expires_at: date.nullable(),
}).meta({ id: 'SharedGroupWithGroup' });

export const GroupDetailSchema = GroupSchema.extend({
  shared_with_groups: z.array(SharedGroupWithGroupSchema),
  prevent_sharing_groups_outside_hierarchy: z.boolean(),
  /** Left out with `with_projects=false`: the group's projects as the caller may see them. */
  projects: z.array(ProjectSchema).optional(),
  /** Projects shared with the group (POST /projects/:id/share) that the caller may read. */
  shared_projects: z.array(ProjectSchema).optional(),
}).meta({ id: 'GroupDetail' });
export type GroupDetail = z.infer<typeof GroupDetailSchema>;

/** GroupDetail (GET /groups/:id, POST /groups): Group plus projects and sharing. */
export const groupDetail = (g: NamespaceRow, x: GroupExtras & { projects?: Project[]; sharedProjects?: Project[]; sharedWithGroups?: GroupDetail['shared_with_groups'] }): GroupDetail => ({
  ...groupEntity(g, x),
  shared_with_groups: x.sharedWithGroups ?? [],
  prevent_sharing_groups_outside_hierarchy: false,
  ...(x.projects ? { projects: x.projects, shared_projects: x.sharedProjects ?? [] } : {}),
});
