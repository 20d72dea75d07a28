/** User preferences (GET/PUT /user/preferences). */
import type { Router } from '../lib/router';

export function mountUserPreferences(_r: Router) {}
