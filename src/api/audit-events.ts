/** Instance audit events (GitLab ee/lib/api/audit_events.rb). */
import type { Router } from '../lib/router';

export function mountAuditEvents(_r: Router) {}
