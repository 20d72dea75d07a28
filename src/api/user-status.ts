/** User status (GitLab lib/api/users.rb status routes). */
import type { Router } from '../lib/router';

export function mountUserStatus(_r: Router) {}
