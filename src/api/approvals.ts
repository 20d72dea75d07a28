/** Scaffold: routes are added by the engineer who owns this area (issue 4). */
import type { Router } from '../lib/router';

export function mountApprovals(_r: Router) {}
