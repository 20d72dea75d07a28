/** Follow relations (POST /users/:id/follow, unfollow, GET followers/following). */
import type { Router } from '../lib/router';

export function mountUserFollows(_r: Router) {}
