/** Sign-in of the main application (POST /users/sign_in), which sets the _service_session cookie the API honours. */
import type { Router } from '../lib/router';

export function mountSessions(_r: Router) {}
