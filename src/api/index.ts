/** Every resource module, mounted in alphabetical order. */
import type { Router } from '../lib/router';
import { mountUsers } from './users';

export function mountApi(api: Router, _web: Router) {
  mountUsers(api);
}
