/**
 * Sign-in of the main application (Devise's POST /users/sign_in and DELETE /users/sign_out), which
 * sets the `_service_session` cookie the API honours. Mounted at the root, outside /api/v4.
 */
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Context } from 'hono';
import { safeEqual } from '../platform/crypto';
import { ApiError } from '../platform/errors';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { csrfTokenOf, SESSION_COOKIE } from './authenticate';
import { findWithUserPassword } from './oauth';
import { endSession, findSessionByCookie, startSession } from './sessions';
import { settingsOf } from '../settings/settings';

const TAGS = ['sessions'];

/** Devise's `invalid` message; which of login or password was wrong is never said. */
export const INVALID_LOGIN = 'Invalid login or password.';

const secure = (c: Context) => new URL(c.req.url).protocol === 'https:';

export function mountSessions(r: Router) {
  r.route({ method: 'POST', path: '/users/sign_in', summary: 'Sign in with login (username or email) and password; sets the session cookie', tags: TAGS, noAuth: true, responses: { 302: null } }, async ({ c }) => {
    const params = await requestParams(c);
    const form = (params.user && typeof params.user === 'object' ? params.user : params) as Record<string, unknown>;
    const login = typeof form.login === 'string' ? form.login : typeof form.username === 'string' ? form.username : undefined;
    const password = typeof form.password === 'string' ? form.password : undefined;
    const settings = await settingsOf(c);
    if (settings.password_authentication_enabled_for_web === false) throw new ApiError(401, { error: 'Password authentication is disabled for the web interface.' });
    // An expired password still signs in on the web: that is where it gets changed.
    const user = await findWithUserPassword(c, login, password, { requireUnexpired: false });
    if (!user) throw new ApiError(401, { error: INVALID_LOGIN });
    const session = await startSession(c, user);
    setCookie(c, SESSION_COOKIE, session.cookie, { path: '/', httpOnly: true, sameSite: 'Lax', secure: secure(c) });
    // Writes through the API with this cookie must echo the session's CSRF token (X-CSRF-Token).
    c.header('X-CSRF-Token', session.csrfToken);
    c.header('Cache-Control', 'no-store');
    return c.redirect('/', 302);
  });

  r.route({ method: 'DELETE', path: '/users/sign_out', summary: 'Sign out: ends the session of the cookie', tags: TAGS, noAuth: true, responses: { 302: null } }, async ({ c }) => {
    const params = await requestParams(c);
    const cookie = getCookie(c, SESSION_COOKIE);
    const session = cookie ? await findSessionByCookie(c, cookie) : undefined;
    if (session) {
      // Rails' forgery protection: a cross-site page must not be able to end the session.
      const sent = csrfTokenOf(c, params);
      if (!sent || !safeEqual(sent, session.csrfToken)) throw new ApiError(422, { error: "Can't verify CSRF token authenticity." });
      await endSession(c, session);
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: secure(c) });
    const settings = await settingsOf(c);
    return c.redirect(typeof settings.after_sign_out_path === 'string' && settings.after_sign_out_path ? settings.after_sign_out_path : '/users/sign_in', 302);
  });
}
