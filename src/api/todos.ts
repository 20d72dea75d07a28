/** Placeholder: filled in by the engineer who owns this resource. */
import type { Router } from '../lib/router';

export function mountTodos(_r: Router) {}
