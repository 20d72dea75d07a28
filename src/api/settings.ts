/** Application settings (GitLab lib/api/settings.rb), administrators only. */
import type { Router } from '../lib/router';

export function mountSettings(_r: Router) {}
