/** SSH keys (GitLab lib/api/users.rb key routes). */
import type { Router } from '../lib/router';

export function mountKeys(_r: Router) {}
