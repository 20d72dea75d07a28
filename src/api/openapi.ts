/** The OpenAPI document and its reference page. */
import type { Router } from '../lib/router';

export function mountOpenapi(_web: Router, _api: Router) {}
