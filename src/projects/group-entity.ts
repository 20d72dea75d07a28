/**
 * Group presenters. Field order: the spec's GroupRef, which is GitLab's Group entity as it was
 * ordered before BasicGroupDetails moved web_url forward (lib/api/entities/group.rb, EE ldap_*).
 */
import type { NamespaceRow } from './abilities';
import { iso } from '../platform/time';
import { namespaceAvatarUrl, namespaceWebUrl } from './namespace-entity';

export interface GroupExtras {
  base: string;
  fullName: string;
}

export const groupEntity = (g: NamespaceRow, x: GroupExtras) => ({
  id: g.id,
  name: g.name,
  path: g.path,
  description: g.description,
  visibility: g.visibility,
  share_with_group_lock: g.shareWithGroupLock,
  require_two_factor_authentication: g.requireTwoFactorAuthentication,
  two_factor_grace_period: g.twoFactorGracePeriod,
  project_creation_level: g.projectCreationLevel,
  auto_devops_enabled: null,
  subgroup_creation_level: g.subgroupCreationLevel,
  emails_disabled: !g.emailsEnabled,
  emails_enabled: g.emailsEnabled,
  mentions_disabled: g.mentionsDisabled ?? null,
  lfs_enabled: g.lfsEnabled,
  default_branch: g.defaultBranchName ?? null,
  default_branch_protection: 2,
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

/** GroupDetail (GET /groups/:id, POST /groups): Group plus projects and sharing. */
export const groupDetail = (g: NamespaceRow, x: GroupExtras & { projects?: unknown[] }) => ({
  ...groupEntity(g, x),
  shared_with_groups: [],
  prevent_sharing_groups_outside_hierarchy: false,
  ...(x.projects ? { projects: x.projects, shared_projects: [] } : {}),
});
