/**
 * OAuth 2.0 endpoints at the root, outside /api/v4 (Doorkeeper as GitLab configures it):
 * POST /oauth/token (password and refresh_token grants), GET /oauth/token/info, POST /oauth/revoke.
 * They read their own credentials and answer Doorkeeper's error bodies, so the API guard is off.
 *
 * Also the instance-wide OAuth applications API (lib/api/applications.rb) whose client_id/secret the
 * token endpoint accepts; its routes carry their full /api/v4 path because this module is mounted on
 * the root router.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { oauthAccessTokens, oauthApplications } from '../db/schema';
import { application, ApplicationSchema, applicationWithSecret, ApplicationWithSecretSchema, OAuthTokenInfoSchema, OAuthTokenResponseSchema } from './oauth-entity';
import { randomHex, tokenDigest } from '../platform/crypto';
import { notFound, validationFailed } from '../platform/errors';
import { checkText, MAX_TEXT_SIZE, NAME_MAX } from '../platform/text-limits';
import { obj } from '../platform/response-schemas';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { oauthServerScopes } from './scopes';
import { g, nonBlank, params } from '../platform/validate';
import { revokeRequest, tokenInfo, tokenRequest } from './oauth';
import { invalidateCaller } from '../users/caller-cache';

const TAGS = ['oauth'];

const createApplicationParams = params({
  name: g.string(),
  redirect_uri: g.string(),
  scopes: nonBlank(),
  confidential: g.bool().default(true),
});
const applicationIdParams = params({ id: g.int() });
/** RFC 7009: the revocation answer is an empty JSON object, whatever the token was. */
const Revoked = obj({});

export function mountOauth(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/oauth/token',
      summary: 'Issue an OAuth access token (password or refresh_token grant)',
      tags: TAGS,
      noAuth: true,
      responses: { 200: OAuthTokenResponseSchema },
    },
    async ({ c }) => {
      const body = await tokenRequest(c, await requestParams(c));
      c.header('Cache-Control', 'no-store, no-cache');
      return c.json(body, 200);
    },
  );

  r.route({ method: 'GET', path: '/oauth/token/info', summary: 'Describe the OAuth access token sent with the request', tags: TAGS, noAuth: true, responses: { 200: OAuthTokenInfoSchema } }, async ({ c }) =>
    c.json(await tokenInfo(c, await requestParams(c))),
  );

  r.route({ method: 'POST', path: '/oauth/revoke', summary: 'Revoke an OAuth access or refresh token (RFC 7009)', tags: TAGS, noAuth: true, responses: { 200: Revoked } }, async ({ c }) => {
    await revokeRequest(c, await requestParams(c));
    return c.json({} satisfies z.infer<typeof Revoked>, 200);
  });

  r.route(
    {
      method: 'POST',
      path: '/api/v4/applications',
      summary: 'Create an instance-wide OAuth application (administrators)',
      tags: ['applications'],
      params: createApplicationParams,
      admin: true,
      responses: { 201: ApplicationWithSecretSchema },
    },
    async ({ c, p }) => {
      const errors = applicationErrors(p);
      // `render_validation_error! application` (applications.rb).
      if (Object.keys(errors).length) throw validationFailed(errors);
      const uid = randomHex(32);
      const secret = randomHex(32);
      const [row] = await c.var.db
        .insert(oauthApplications)
        .values({
          name: p.name,
          uid,
          secretDigest: await tokenDigest(secret, c.var.config.tokenPepper),
          redirectUri: p.redirect_uri.trim(),
          scopes: p.scopes.trim().split(/\s+/).join(' '),
          confidential: p.confidential,
          ownerId: null,
          createdAt: Date.now(),
        })
        .returning();
      return c.json(applicationWithSecret(row, secret), 201);
    },
  );

  r.route({ method: 'GET', path: '/api/v4/applications', summary: 'List instance-wide OAuth applications (administrators)', tags: ['applications'], admin: true, responses: { 200: z.array(ApplicationSchema) } }, async ({ c }) => {
    // ApplicationsFinder: applications without an owner, i.e. instance-wide ones.
    const rows = await c.var.db.select().from(oauthApplications).where(isNull(oauthApplications.ownerId)).orderBy(asc(oauthApplications.id)).all();
    return c.json(rows.map(application));
  });

  r.route(
    {
      method: 'DELETE',
      path: '/api/v4/applications/:id',
      summary: 'Delete an OAuth application and its tokens (administrators)',
      tags: ['applications'],
      params: applicationIdParams,
      admin: true,
      responses: { 204: null },
    },
    async ({ c, p }) => {
      const app = await findInstanceApplication(c.var.db, p.id);
      const db = c.var.db;
      // Doorkeeper's `has_many :access_tokens, dependent: :delete_all`.
      await db.batch([db.delete(oauthAccessTokens).where(eq(oauthAccessTokens.applicationId, app.id)), db.delete(oauthApplications).where(eq(oauthApplications.id, app.id))]);
      // Its tokens may belong to any number of users: this isolate forgets every cached caller (a rare write).
      invalidateCaller(db, 'all');
      return c.body(null, 204);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/api/v4/applications/:id/renew-secret',
      summary: 'Renew the secret of an OAuth application (administrators)',
      tags: ['applications'],
      params: applicationIdParams,
      admin: true,
      responses: { 201: ApplicationWithSecretSchema },
    },
    async ({ c, p }) => {
      const app = await findInstanceApplication(c.var.db, p.id);
      const secret = randomHex(32);
      const [row] = await c.var.db
        .update(oauthApplications)
        .set({ secretDigest: await tokenDigest(secret, c.var.config.tokenPepper) })
        .where(eq(oauthApplications.id, app.id))
        .returning();
      return c.json(applicationWithSecret(row, secret), 201);
    },
  );
}

async function findInstanceApplication(db: Db, id: number) {
  const app = await db
    .select()
    .from(oauthApplications)
    .where(and(eq(oauthApplications.id, id), isNull(oauthApplications.ownerId)))
    .get();
  if (!app) throw notFound('Application');
  return app;
}

/** Doorkeeper::Application validations (name, redirect URIs, scopes) in Doorkeeper's words. */
function applicationErrors(p: { name: string; redirect_uri: string; scopes: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, msg: string) => (errors[attr] ??= []).push(msg);
  if (!p.name.trim()) add('name', "can't be blank");
  // `oauth_applications.name` is a `string(255)` column, `redirect_uri` text.
  checkText(errors, { name: p.name, redirect_uri: p.redirect_uri }, { name: { max: NAME_MAX }, redirect_uri: { max: MAX_TEXT_SIZE } });
  const uris = p.redirect_uri.trim().split(/\s+/).filter(Boolean);
  if (uris.length === 0) add('redirect_uri', "can't be blank");
  for (const uri of uris) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(uri);
    } catch {
      parsed = null;
    }
    if (!parsed) {
      add('redirect_uri', /^[a-z][a-z0-9+.-]*:/i.test(uri) ? 'must be a valid URI.' : 'must be an absolute URI.');
      break;
    }
    if (parsed.hash) {
      add('redirect_uri', 'cannot contain a fragment.');
      break;
    }
  }
  const server = oauthServerScopes();
  if (!p.scopes.trim().split(/\s+/).every((s) => server.includes(s))) add('scopes', "doesn't match configured on the server.");
  return errors;
}
