/** Impersonation tokens (GitLab lib/api/users.rb, /users/:user_id/impersonation_tokens). */
import type { Router } from '../lib/router';

export function mountImpersonationTokens(_r: Router) {}
