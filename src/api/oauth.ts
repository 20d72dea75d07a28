/** OAuth 2.0 token endpoint (POST /oauth/token, outside /api/v4): password and refresh_token grants. */
import type { Router } from '../lib/router';

export function mountOauth(_r: Router) {}
