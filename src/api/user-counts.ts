/** GET /user_counts (GitLab lib/api/user_counts.rb). */
import type { Router } from '../lib/router';

export function mountUserCounts(_r: Router) {}
