/**
 * Parameters of ee/lib/api/protected_environments.rb: `deploy_access_levels` (required on create)
 * and `approval_rules`, arrays of hashes naming a role, a user or a group; on update an entry may
 * carry `id` (change that entry) and `_destroy` (remove it), as nested attributes do.
 */
import { z } from 'zod';
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';
import { hashArray } from '../repository/protected-branches-params';

/** ProtectedEnvironments::Authorizable::ALLOWED_ACCESS_LEVELS (maintainer, developer, reporter, admin). */
export const ALLOWED_ACCESS_LEVELS = [40, 30, 20, 60] as const;
/** GROUP_INHERITANCE_TYPE: DIRECT 0, ALL 1. */
const INHERITANCE = [0, 1] as const;

const shared = {
  user_id: g.int().optional(),
  group_id: g.int().optional(),
  group_inheritance_type: g.intEnum(INHERITANCE).optional(),
  access_level: g.intEnum(ALLOWED_ACCESS_LEVELS).optional(),
};
const updating = { id: g.int().optional(), _destroy: g.bool().optional() };

const deployEntry = z.object({ ...shared, ...updating }, { error: 'is invalid' });
const approvalEntry = z.object({ ...shared, ...updating, required_approvals: g.int().optional() }, { error: 'is invalid' });
export type DeployEntryParam = z.output<typeof deployEntry>;
export type ApprovalEntryParam = z.output<typeof approvalEntry>;

const id = g.string();

export const listProtectedEnvironmentsParams = params({ id, ...paginationParams });
export const oneProtectedEnvironmentParams = params({ id, name: g.string() });
export const createProtectedEnvironmentParams = params({
  id,
  name: g.string(),
  required_approval_count: g.int().default(0),
  deploy_access_levels: hashArray(deployEntry),
  approval_rules: hashArray(approvalEntry).optional(),
});
export const updateProtectedEnvironmentParams = params({
  id,
  name: g.string(),
  required_approval_count: g.int().optional(),
  deploy_access_levels: hashArray(deployEntry).optional(),
  approval_rules: hashArray(approvalEntry).optional(),
});

/** `given _destroy: ->(v) { v != true } do at_least_one_of :access_level, :user_id, :group_id end` for each approval rule. */
export function approvalRuleParamErrors(rules: ApprovalEntryParam[] | undefined): string[] {
  return (rules ?? []).flatMap((r, i) =>
    r._destroy === true || r.access_level != null || r.user_id != null || r.group_id != null
      ? []
      : [`approval_rules[${i}][access_level], approval_rules[${i}][user_id], approval_rules[${i}][group_id] are missing, at least one parameter must be provided`],
  );
}
