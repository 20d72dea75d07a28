/**
 * API::Entities::ProtectedBranch and ProtectedRefAccess (lib/api/entities/protected_branch.rb,
 * protected_ref_access.rb) with the EE additions (ee/lib/ee/api/entities/protected_branch.rb,
 * protected_ref_access.rb) when the plan is Premium or above: `user_id`/`group_id` on each entry,
 * then `unprotect_access_levels`, `code_owner_approval_required` and `inherited` after
 * `allow_force_push` (EE exposures are prepended after the CE ones).
 */
import { z } from 'zod';
import { id, int, obj } from '../platform/response-schemas';
import type { AccessLevelRow, ProtectedBranchWithLevels } from './protected-branches';
import { HUMAN_ACCESS_LEVELS } from './protected-branches';

export interface ProtectedBranchExtras {
  premium: boolean;
  /** Names for `access_level_description` of user and group entries (User#name, Group#name). */
  userNames: Map<number, string>;
  groupNames: Map<number, string>;
}

/** ProtectedRefAccess#humanize: the user's or group's name, "Deploy key", or the role's description. */
export function accessLevelDescription(l: AccessLevelRow, x: Pick<ProtectedBranchExtras, 'userNames' | 'groupNames'>): string | null {
  if (l.userId != null) return x.userNames.get(l.userId) ?? 'User';
  if (l.groupId != null) return x.groupNames.get(l.groupId) ?? 'Group';
  if (l.deployKeyId != null) return 'Deploy key';
  return l.accessLevel == null ? null : (HUMAN_ACCESS_LEVELS[l.accessLevel] ?? null);
}

export const ProtectedRefAccessSchema = obj({
  id,
  /** Null for a user, group or deploy-key entry. */
  access_level: int.nullable(),
  access_level_description: z.string().nullable(),
  deploy_key_id: id.optional(),
  /** Premium and above. */
  user_id: id.nullable().optional(),
  group_id: id.nullable().optional(),
}).meta({ id: 'ProtectedRefAccess' });
export type ProtectedRefAccess = z.infer<typeof ProtectedRefAccessSchema>;

export function protectedRefAccessEntity(l: AccessLevelRow, x: ProtectedBranchExtras): ProtectedRefAccess {
  return {
    id: l.id,
    access_level: l.accessLevel,
    access_level_description: accessLevelDescription(l, x),
    // protected_ref_access.rb: `if: has_attribute?(:deploy_key_id) && deploy_key_id`.
    ...(l.deployKeyId != null ? { deploy_key_id: l.deployKeyId } : {}),
    ...(x.premium ? { user_id: l.userId, group_id: l.groupId } : {}),
  };
}

export const ProtectedBranchSchema = obj({
  id,
  name: z.string(),
  push_access_levels: z.array(ProtectedRefAccessSchema),
  merge_access_levels: z.array(ProtectedRefAccessSchema),
  allow_force_push: z.boolean(),
  /** Premium and above, like the two fields after it. */
  unprotect_access_levels: z.array(ProtectedRefAccessSchema).optional(),
  code_owner_approval_required: z.boolean().optional(),
  inherited: z.boolean().optional(),
}).meta({ id: 'ProtectedBranch' });
export type ProtectedBranch = z.infer<typeof ProtectedBranchSchema>;

export function protectedBranchEntity(pb: ProtectedBranchWithLevels, x: ProtectedBranchExtras): ProtectedBranch {
  return {
    id: pb.id,
    name: pb.name,
    push_access_levels: pb.push.map((l) => protectedRefAccessEntity(l, x)),
    merge_access_levels: pb.merge.map((l) => protectedRefAccessEntity(l, x)),
    allow_force_push: pb.allowForcePush,
    ...(x.premium
      ? {
          unprotect_access_levels: pb.unprotect.map((l) => protectedRefAccessEntity(l, x)),
          code_owner_approval_required: pb.codeOwnerApprovalRequired,
          // Project-level rules only here; group-level protected branches are not served.
          inherited: false,
        }
      : {}),
  };
}
