/** Members API parameters (GitLab lib/api/members.rb). */
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';

export const listMembersParams = params({
  id: g.string(),
  query: g.search().optional(),
  user_ids: g.array(g.int()).optional(),
  skip_users: g.array(g.int()).optional(),
  show_seat_info: g.bool().optional(),
  ...paginationParams,
});

export const memberParams = params({ id: g.string(), user_id: g.int() });

export const addMemberParams = params(
  {
    id: g.string(),
    user_id: g.string().optional(),
    username: g.string().optional(),
    // members.rb declares no `values:`: an unknown level fails the model's inclusion validation.
    access_level: g.int(),
    expires_at: g.date().optional(),
  },
  [{ exactlyOneOf: ['user_id', 'username'] }],
);

export const updateMemberParams = params({ id: g.string(), user_id: g.int(), access_level: g.int(), expires_at: g.date().optional() });

export const deleteMemberParams = params({ id: g.string(), user_id: g.int(), skip_subresources: g.bool().default(false), unassign_issuables: g.bool().default(false) });
