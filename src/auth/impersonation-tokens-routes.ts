/**
 * Impersonation tokens (GitLab lib/api/users.rb, `segment ':user_id'` / `resource :impersonation_tokens`):
 * personal access tokens an administrator mints for a user; using one acts as that user. All routes
 * are administrator-only, checked before the parameters (`before { authenticated_as_admin! }`).
 */
import { and, asc, eq, lte, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { personalAccessTokens, users } from '../db/schema';
import { findUserById } from '../users/user-queries';
import { impersonationToken, ImpersonationTokenSchema, impersonationTokenWithToken, ImpersonationTokenWithTokenSchema } from './personal-access-token-entity';
import { checkUnmodifiedSince } from '../platform/conditional';
import { notFound, validationFailed } from '../platform/errors';
import { countUpToQuery, linkParamsFrom, pageRequest, paginateWith, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { today } from '../platform/time';
import { g, params } from '../platform/validate';
import { defaultExpiry, revokeToken, tokenErrors, tokenInsert } from './tokens';
import { settingsOf } from '../settings/settings';

const TAGS = ['impersonation_tokens'];

const listParams = params({
  user_id: g.int(),
  state: g.enum(['all', 'active', 'inactive']).default('all'),
  ...paginationParams,
});

const createParams = params({
  user_id: g.int(),
  name: g.string(),
  description: g.string().optional(),
  expires_at: g.date().optional(),
  // Optional here (unlike the personal token route); the model then answers "can't be blank".
  scopes: g.csv().optional(),
});

const oneParams = params({ user_id: g.int(), impersonation_token_id: g.int() });

export function mountImpersonationTokens(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/users/:user_id/impersonation_tokens',
      summary: 'List impersonation tokens of a user (administrators)',
      tags: TAGS,
      params: listParams,
      admin: true,
      responses: { 200: z.array(ImpersonationTokenSchema) },
    },
    async ({ c, p }) => {
      const db = c.var.db;
      const t = personalAccessTokens;
      const day = today();
      const conds: (SQL | undefined)[] = [eq(t.userId, p.user_id), eq(t.impersonation, true)];
      if (p.state === 'active') conds.push(eq(t.revoked, false), or(sql`${t.expiresAt} IS NULL`, sql`${t.expiresAt} > ${day}`));
      if (p.state === 'inactive') conds.push(or(eq(t.revoked, true), lte(t.expiresAt, day)));
      const where = and(...conds);
      const raw = await requestParams(c);
      // The user, the page and its count: one round trip; a missing user answers 404 before any header.
      const { rows } = await paginateWith(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, { state: 'all' }),
        (limit, offset) => db.select().from(t).where(where).orderBy(asc(t.id)).limit(limit).offset(offset),
        (limit) => countUpToQuery(db, t, where, limit),
        [db.select({ id: users.id }).from(users).where(eq(users.id, p.user_id)).limit(1)] as const,
        ([user]) => {
          if (!user[0]) throw notFound('User');
        },
      );
      return c.json(rows.map(impersonationToken));
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/users/:user_id/impersonation_tokens',
      summary: 'Create an impersonation token (administrators)',
      tags: TAGS,
      params: createParams,
      admin: true,
      responses: { 201: ImpersonationTokenWithTokenSchema },
    },
    async ({ c, p }) => {
      const user = await findUserById(c.var.db, p.user_id);
      if (!user) throw notFound('User');
      const settings = await settingsOf(c);
      // The documented default: no date means the longest lifetime allowed.
      const policy = { settings, config: c.var.config };
      const expiresAt = defaultExpiry(policy, p.expires_at);
      const scopes = p.scopes ?? [];
      const errors = tokenErrors(policy, { name: p.name, scopes, expiresAt, description: p.description });
      // `render_validation_error!(impersonation_token)`.
      if (Object.keys(errors).length) throw validationFailed(errors);
      const { value, query } = await tokenInsert(c.var.db, c.var.config, settings, {
        userId: user.id,
        name: p.name,
        description: p.description,
        scopes,
        expiresAt,
        impersonation: true,
      });
      const [row] = await query;
      return c.json(impersonationTokenWithToken(row, value), 201);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:user_id/impersonation_tokens/:impersonation_token_id',
      summary: 'Get an impersonation token of a user (administrators)',
      tags: TAGS,
      params: oneParams,
      admin: true,
      responses: { 200: ImpersonationTokenSchema },
    },
    async ({ c, p }) => c.json(impersonationToken(await findImpersonationToken(c.var.db, p.user_id, p.impersonation_token_id))),
  );

  r.route(
    {
      method: 'DELETE',
      path: '/users/:user_id/impersonation_tokens/:impersonation_token_id',
      summary: 'Revoke an impersonation token (administrators)',
      tags: TAGS,
      params: oneParams,
      admin: true,
      responses: { 204: null },
    },
    async ({ c, p }) => {
      const token = await findImpersonationToken(c.var.db, p.user_id, p.impersonation_token_id);
      // destroy_conditionally!: If-Unmodified-Since older than the token's updated_at is a 412.
      checkUnmodifiedSince(c, token.updatedAt);
      await revokeToken(c.var.db, token.id);
      return c.body(null, 204);
    },
  );
}

/** `find_user_by_id` (404 User Not Found), then the user's impersonation token (404 Impersonation Token Not Found). */
async function findImpersonationToken(db: Parameters<typeof findUserById>[0], userId: number, tokenId: number) {
  const user = await findUserById(db, userId);
  if (!user) throw notFound('User');
  const t = personalAccessTokens;
  const token = await db
    .select()
    .from(t)
    .where(and(eq(t.id, tokenId), eq(t.userId, user.id), eq(t.impersonation, true)))
    .get();
  if (!token) throw notFound('Impersonation Token');
  return token;
}
