/**
 * API::Entities::ProtectedEnvironment with ProtectedEnvironments::DeployAccessLevel (a
 * ProtectedRefAccess) and ProtectedEnvironments::ApprovalRule (ee/lib/api/entities). The
 * description is ProtectedEnvironments::Authorizable#humanize: the user's or the group's name, or
 * the role's (only maintainers and developers have one).
 */
import { z } from 'zod';
import type { protectedEnvironmentEntries, protectedEnvironments } from '../db/schema';
import { id, int, obj } from '../platform/response-schemas';

export type ProtectedEnvironmentRow = typeof protectedEnvironments.$inferSelect;
export type EntryRow = typeof protectedEnvironmentEntries.$inferSelect;

const HUMAN_ACCESS_LEVELS: Record<number, string> = { 40: 'Maintainers', 30: 'Developers + Maintainers' };

export const DeployAccessLevelSchema = obj({
  id,
  access_level: int.nullable(),
  access_level_description: z.string().nullable(),
  user_id: id.nullable(),
  group_id: id.nullable(),
  group_inheritance_type: int,
}).meta({ id: 'ProtectedEnvironmentDeployAccessLevel' });

export const EnvironmentApprovalRuleSchema = obj({
  id,
  user_id: id.nullable(),
  group_id: id.nullable(),
  access_level: int.nullable(),
  access_level_description: z.string().nullable(),
  required_approvals: int,
  group_inheritance_type: int,
}).meta({ id: 'ProtectedEnvironmentApprovalRule' });

export const ProtectedEnvironmentSchema = obj({
  name: z.string(),
  deploy_access_levels: z.array(DeployAccessLevelSchema),
  required_approval_count: int,
  approval_rules: z.array(EnvironmentApprovalRuleSchema),
}).meta({ id: 'ProtectedEnvironment' });
export type ProtectedEnvironment = z.infer<typeof ProtectedEnvironmentSchema>;

/** Names of the users and groups entries point at, by id. */
export interface EntryNames {
  users: Map<number, string>;
  groups: Map<number, string>;
}

/** `access_level` is shown for role entries only (the column's default would show on the others). */
const role = (e: EntryRow) => (e.userId == null && e.groupId == null ? e.accessLevel : null);

function humanize(e: EntryRow, names: EntryNames): string | null {
  if (e.userId != null) return names.users.get(e.userId) ?? null;
  if (e.groupId != null) return names.groups.get(e.groupId) ?? null;
  return HUMAN_ACCESS_LEVELS[e.accessLevel ?? -1] ?? null;
}

export function protectedEnvironmentEntity(pe: ProtectedEnvironmentRow, entries: EntryRow[], names: EntryNames): ProtectedEnvironment {
  const mine = entries.filter((e) => e.protectedEnvironmentId === pe.id);
  return {
    name: pe.name,
    deploy_access_levels: mine
      .filter((e) => e.kind === 'deploy')
      .map((e) => ({
        id: e.id,
        access_level: role(e),
        access_level_description: humanize(e, names),
        user_id: e.userId,
        group_id: e.groupId,
        group_inheritance_type: e.groupInheritanceType,
      })),
    required_approval_count: pe.requiredApprovalCount,
    approval_rules: mine
      .filter((e) => e.kind === 'approval')
      .map((e) => ({
        id: e.id,
        user_id: e.userId,
        group_id: e.groupId,
        access_level: role(e),
        access_level_description: humanize(e, names),
        required_approvals: e.requiredApprovals ?? 1,
        group_inheritance_type: e.groupInheritanceType,
      })),
  };
}
