/** GPG keys (GitLab lib/api/users.rb gpg_keys routes). */
import type { Router } from '../lib/router';

export function mountGpgKeys(_r: Router) {}
