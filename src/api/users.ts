/** Users API (GitLab lib/api/users.rb): the current user for now; the rest of the resource follows. */
import { userDetailsWithAdmin, userPublic } from '../entities/user';
import { baseUrl } from '../lib/pagination';
import type { Router } from '../lib/router';
import { requireUser } from '../middleware/auth';
import { loadUserExtras } from '../db/queries/user-extras';

export function mountUsers(r: Router) {
  r.route(
    { method: 'GET', path: '/user', summary: 'Get the current user', tags: ['users'], scopes: ['read_user'] },
    async ({ c, caller }) => {
      const user = requireUser(caller);
      const extras = await loadUserExtras(c.var.db, user, { base: baseUrl(c), viewerId: user.id, admin: caller.isAdmin });
      return c.json(caller.isAdmin ? userDetailsWithAdmin(user, extras) : userPublic(user, extras));
    },
  );
}
