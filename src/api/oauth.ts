/**
 * OAuth 2.0 endpoints at the root, outside /api/v4 (Doorkeeper as GitLab configures it):
 * POST /oauth/token (password and refresh_token grants), GET /oauth/token/info, POST /oauth/revoke.
 * They read their own credentials and answer Doorkeeper's error bodies, so the API guard is off.
 */
import { requestParams } from '../lib/params';
import type { Router } from '../lib/router';
import { revokeRequest, tokenInfo, tokenRequest } from '../services/oauth';

const TAGS = ['oauth'];

export function mountOauth(r: Router) {
  r.route(
    { method: 'POST', path: '/oauth/token', summary: 'Issue an OAuth access token (password or refresh_token grant)', tags: TAGS, noAuth: true, status: 200 },
    async ({ c }) => {
      const body = await tokenRequest(c, await requestParams(c));
      c.header('Cache-Control', 'no-store, no-cache');
      return c.json(body, 200);
    },
  );

  r.route({ method: 'GET', path: '/oauth/token/info', summary: 'Describe the OAuth access token sent with the request', tags: TAGS, noAuth: true }, async ({ c }) =>
    c.json(await tokenInfo(c, await requestParams(c))),
  );

  r.route({ method: 'POST', path: '/oauth/revoke', summary: 'Revoke an OAuth access or refresh token (RFC 7009)', tags: TAGS, noAuth: true, status: 200 }, async ({ c }) => {
    await revokeRequest(c, await requestParams(c));
    return c.json({}, 200);
  });
}
