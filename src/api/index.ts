/** Every resource module, mounted in alphabetical order. */
import type { Router } from '../lib/router';
import { mountPersonalAccessTokens } from './personal-access-tokens';
import { mountUsers } from './users';

export function mountApi(api: Router, _web: Router) {
  mountPersonalAccessTokens(api);
  mountUsers(api);
}
