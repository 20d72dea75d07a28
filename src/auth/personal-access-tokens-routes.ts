/**
 * Personal access tokens (GitLab lib/api/personal_access_tokens.rb, personal_access_tokens/
 * self_information.rb and self_rotation.rb, helpers/personal_access_tokens_helpers.rb, and the two
 * create routes in lib/api/users.rb). Token values appear only in the response that mints them.
 */
import { and, asc, desc, eq, gte, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { personalAccessTokens } from '../db/schema';
import { findUserById } from '../users/user-queries';
import { personalAccessToken, PersonalAccessTokenSchema, personalAccessTokenWithToken, PersonalAccessTokenWithTokenSchema } from './personal-access-token-entity';
import { ApiError, badRequest, notFound, unauthorized } from '../platform/errors';
import { linkParamsFrom, pageRequest, paginate, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { allAvailableScopes } from './scopes';
import { addDays, today } from '../platform/time';
import { g, params } from '../platform/validate';
import { requireAdmin, requireUser } from '../platform/guards';
import { authenticatedPersonalToken } from './authenticate';
import { defaultExpiry, findToken, fullMessagesSentence, revokeToken, rotateToken, tokenErrors, tokenInsert, type TokenRow } from './tokens';
import { settingsOf } from '../settings/settings';

const TAGS = ['personal_access_tokens'];

export const createTokenParams = params({
  user_id: g.int(),
  name: g.string(),
  // `values: Gitlab::Auth.all_available_scopes` on the admin route (users.rb).
  scopes: g.csv().refine((list) => list.every((s) => allAvailableScopes().includes(s)), { message: 'does not have a valid value' }),
  description: g.string().optional(),
  expires_at: g.date().optional(),
});

const createOwnTokenParams = params({
  name: g.string(),
  // Only `k8s_proxy` may be minted by a token for itself (users.rb, issue 425171).
  scopes: g.csv().refine((list) => list.every((s) => s === 'k8s_proxy'), { message: 'does not have a valid value' }),
  description: g.string().optional(),
  expires_at: g.date().optional(),
});

const listParams = params({
  user_id: g.int().optional(),
  revoked: g.bool().optional(),
  state: g.enum(['active', 'inactive']).optional(),
  created_before: g.datetime().optional(),
  created_after: g.datetime().optional(),
  last_used_before: g.datetime().optional(),
  last_used_after: g.datetime().optional(),
  expires_before: g.date().optional(),
  expires_after: g.date().optional(),
  search: g.search().optional(),
  sort: g.string().optional(),
  ...paginationParams,
});

const idParams = params({ id: g.int(), user_id: g.int().optional() });
const rotateParams = params({ id: g.int(), user_id: g.int().optional(), expires_at: g.date().optional() });
const selfRotateParams = params({ expires_at: g.date().optional() });

/** `422 {"message": "<full messages sentence>"}`: CreateService errors rendered by `render_api_error!`. */
const unprocessable = (message: string) => new ApiError(422, { message });

/**
 * The PersonalAccessTokens class `before` block: `restrict_non_admins!` answers 401 when a
 * non-administrator names another user's `user_id`.
 */
function restrictNonAdmins(caller: Caller, userId: number | undefined) {
  const user = requireUser(caller);
  if (caller.isAdmin || userId === undefined) return;
  if (userId !== user.id) throw unauthorized();
}

/** `read_user_personal_access_tokens` / `manage_user_personal_access_token`: the owner or an administrator. */
const mayManage = (caller: Caller, token: TokenRow | undefined): token is TokenRow => Boolean(token) && (caller.isAdmin || token!.userId === caller.user!.id);

/** Only administrators learn whether a token exists; everyone else gets 401 (personal_access_tokens.rb). */
function hiddenToken(caller: Caller): never {
  throw caller.isAdmin ? notFound() : unauthorized();
}

/** PersonalAccessTokenPolicy `revoke_token`: the owner (not of an impersonation token) or an administrator. */
const mayRevoke = (caller: Caller, token: TokenRow) => caller.isAdmin || (token.userId === caller.user!.id && !token.impersonation);

/** The token this request authenticated with, for the /self routes (SelfInformation `before`). */
async function ownToken(c: Context<AppEnv>, caller: Caller): Promise<TokenRow> {
  requireUser(caller);
  const cred = caller.credential;
  if (!cred || (cred.kind !== 'personal_access_token' && cred.kind !== 'impersonation_token')) {
    throw badRequest('This endpoint requires token type to be a personal access token');
  }
  const token = authenticatedPersonalToken(c, cred.id) ?? (await findToken(c.var.db, cred.id));
  if (!token) throw unauthorized();
  return token;
}

export function mountPersonalAccessTokens(r: Router) {
  // The /self routes are mounted first, like GitLab's SelfInformation and SelfRotation classes.
  r.route(
    {
      method: 'GET',
      path: '/personal_access_tokens/self',
      summary: 'Get the personal access token used for this request',
      tags: TAGS,
      anyScope: true,
      responses: { 200: PersonalAccessTokenSchema },
    },
    async ({ c, caller }) => c.json(personalAccessToken(await ownToken(c, caller))),
  );

  r.route(
    {
      method: 'DELETE',
      path: '/personal_access_tokens/self',
      summary: 'Revoke the personal access token used for this request',
      tags: TAGS,
      anyScope: true,
      responses: { 204: null },
    },
    async ({ c, caller }) => {
      const token = await ownToken(c, caller);
      if (!mayRevoke(caller, token)) throw badRequest();
      await revokeToken(c.var.db, token.id);
      return c.body(null, 204);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/personal_access_tokens/self/rotate',
      summary: 'Rotate the personal access token used for this request',
      tags: TAGS,
      params: selfRotateParams,
      responses: { 200: PersonalAccessTokenWithTokenSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const cred = caller.credential!;
      // `not_allowed! unless access_token.is_a? PersonalAccessToken` (self_rotation.rb).
      if (cred.kind !== 'personal_access_token' && cred.kind !== 'impersonation_token') throw new ApiError(405, { message: '405 Method Not Allowed' });
      const token = authenticatedPersonalToken(c, cred.id) ?? (await findToken(c.var.db, cred.id));
      if (!token) throw unauthorized();
      return rotated(c, token, p.expires_at);
    },
  );

  r.route({ method: 'GET', path: '/personal_access_tokens', summary: 'List personal access tokens', tags: TAGS, params: listParams, responses: { 200: z.array(PersonalAccessTokenSchema) } }, async ({ c, p, caller }) => {
    restrictNonAdmins(caller, p.user_id);
    const raw = await requestParams(c);
    const conds: (SQL | undefined)[] = [];
    if (caller.isAdmin) {
      // An administrator's `user_id` must name a user; an explicitly blank one is a 404 too (helpers).
      if (raw.user_id === '' || raw.user_id === null) throw notFound();
      if (p.user_id !== undefined) {
        if (!(await findUserById(c.var.db, p.user_id))) throw notFound();
        conds.push(eq(personalAccessTokens.userId, p.user_id));
      }
    } else {
      conds.push(eq(personalAccessTokens.userId, caller.user!.id), eq(personalAccessTokens.impersonation, false));
    }
    conds.push(...filterConditions(p));
    const where = and(...conds);
    const order = sortOrder(p.sort);
    const req = pageRequest(p, raw.per_page);
    const rows = await paginate(
      c,
      req,
      linkParamsFrom(raw, {}),
      (limit, offset) => c.var.db.select().from(personalAccessTokens).where(where).orderBy(...order).limit(limit).offset(offset),
      async (limit) => {
        const inner = c.var.db.select({ one: sql`1` }).from(personalAccessTokens).where(where).limit(limit);
        const row = await c.var.db.select({ n: sql<number>`count(*)` }).from(inner.as('t')).get();
        return Number(row?.n ?? 0);
      },
    );
    return c.json(rows.map(personalAccessToken));
  });

  r.route({ method: 'GET', path: '/personal_access_tokens/:id', summary: 'Get a personal access token', tags: TAGS, params: idParams, responses: { 200: PersonalAccessTokenSchema } }, async ({ c, p, caller }) => {
    restrictNonAdmins(caller, p.user_id);
    const token = await findToken(c.var.db, p.id);
    if (!mayManage(caller, token)) hiddenToken(caller);
    return c.json(personalAccessToken(token));
  });

  r.route(
    {
      method: 'POST',
      path: '/personal_access_tokens/:id/rotate',
      summary: 'Rotate a personal access token',
      tags: TAGS,
      params: rotateParams,
      responses: { 200: PersonalAccessTokenWithTokenSchema },
    },
    async ({ c, p, caller }) => {
      restrictNonAdmins(caller, p.user_id);
      const token = await findToken(c.var.db, p.id);
      if (!mayManage(caller, token)) hiddenToken(caller);
      return rotated(c, token, p.expires_at);
    },
  );

  r.route(
    { method: 'DELETE', path: '/personal_access_tokens/:id', summary: 'Revoke a personal access token', tags: TAGS, params: idParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      restrictNonAdmins(caller, p.user_id);
      // `PersonalAccessToken.find(id)`: ActiveRecord's lower-case "404 Not found".
      const token = await findToken(c.var.db, p.id);
      if (!token) throw new ApiError(404, { message: '404 Not found' });
      // RevokeService failure is `bad_request!(nil)`.
      if (!mayRevoke(caller, token)) throw badRequest();
      await revokeToken(c.var.db, token.id);
      return c.body(null, 204);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/users/:user_id/personal_access_tokens',
      summary: 'Create a personal access token for a user (administrators)',
      tags: TAGS,
      params: createTokenParams,
      admin: true,
      responses: { 201: PersonalAccessTokenWithTokenSchema },
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const user = await findUserById(c.var.db, p.user_id);
      if (!user) throw notFound('User');
      return c.json(await createToken(c, user.id, p), 201);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/user/personal_access_tokens',
      summary: 'Create a personal access token with limited scopes for the current user',
      tags: TAGS,
      params: createOwnTokenParams,
      responses: { 201: PersonalAccessTokenWithTokenSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      // `default: -> { 1.day.from_now.to_date }` (users.rb).
      return c.json(await createToken(c, user.id, { ...p, expires_at: p.expires_at ?? addDays(today(), 1) }), 201);
    },
  );
}

/** PersonalAccessTokens::CreateService: validation failures are 422 with the full-messages sentence. */
async function createToken(c: Context<AppEnv>, userId: number, p: { name: string; scopes: string[]; description?: string; expires_at?: string }) {
  const settings = await settingsOf(c);
  const policy = { settings, config: c.var.config };
  const expiresAt = defaultExpiry(policy, p.expires_at);
  const errors = tokenErrors(policy, { name: p.name, scopes: p.scopes, expiresAt, description: p.description });
  if (Object.keys(errors).length) throw unprocessable(fullMessagesSentence(errors));
  const { value, query } = await tokenInsert(c.var.db, c.var.config, settings, { userId, name: p.name, description: p.description, scopes: p.scopes, expiresAt });
  const [row] = await query;
  return personalAccessTokenWithToken(row, value);
}

/** `rotate_token`: 200 with the new token, or `bad_request!(service.message)`. */
async function rotated(c: Context<AppEnv>, token: TokenRow, expiresAt: string | undefined) {
  const result = await rotateToken(c.var.db, c.var.config, await settingsOf(c), token, expiresAt);
  if (!result.ok) throw badRequest(result.message);
  return c.json(personalAccessTokenWithToken(result.row, result.value), 200);
}

/** PersonalAccessTokensFinder filters (created_* and last_used_* inclusive; expires_before exclusive). */
function filterConditions(p: {
  revoked?: boolean;
  state?: 'active' | 'inactive';
  created_before?: number;
  created_after?: number;
  last_used_before?: number;
  last_used_after?: number;
  expires_before?: string;
  expires_after?: string;
  search?: string;
}): (SQL | undefined)[] {
  const t = personalAccessTokens;
  const day = today();
  const conds: (SQL | undefined)[] = [];
  if (p.state === 'active') conds.push(eq(t.revoked, false), or(sql`${t.expiresAt} IS NULL`, sql`${t.expiresAt} > ${day}`));
  if (p.state === 'inactive') conds.push(or(eq(t.revoked, true), lte(t.expiresAt, day)));
  if (p.revoked !== undefined) conds.push(eq(t.revoked, p.revoked));
  if (p.created_before !== undefined) conds.push(lte(t.createdAt, p.created_before));
  if (p.created_after !== undefined) conds.push(gte(t.createdAt, p.created_after));
  if (p.expires_before !== undefined) conds.push(lt(t.expiresAt, p.expires_before));
  if (p.expires_after !== undefined) conds.push(gte(t.expiresAt, p.expires_after));
  if (p.last_used_before !== undefined) conds.push(lte(t.lastUsedAt, p.last_used_before));
  if (p.last_used_after !== undefined) conds.push(gte(t.lastUsedAt, p.last_used_after));
  if (p.search) conds.push(nameSearch(p.search));
  return conds;
}

/**
 * `fuzzy_search(query, [:name])` (Gitlab::SQL::Pattern): every word of 3+ characters must occur in the
 * name, case-insensitively; a query without such words must equal the name. instr() avoids LIKE's
 * pattern-length limit on D1 and wildcard escaping.
 */
function nameSearch(query: string): SQL | undefined {
  const q = query.trim().replace(/\s+/g, ' ');
  if (!q) return undefined;
  const words = q.split(' ').filter((w) => w.length >= 3);
  if (words.length === 0) return sql`lower(${personalAccessTokens.name}) = lower(${q})`;
  return and(...words.map((w) => sql`instr(lower(${personalAccessTokens.name}), lower(${w})) > 0`));
}

/** `sort` takes PersonalAccessToken.simple_sorts keys; anything else keeps the default (id ascending, OffsetPagination). */
function sortOrder(sort: string | undefined): SQL[] {
  const t = personalAccessTokens;
  switch (sort) {
    case 'created_asc':
      return [asc(t.createdAt), asc(t.id)];
    case 'created_desc':
    case 'created_date':
      return [desc(t.createdAt), desc(t.id)];
    case 'id_asc':
      return [asc(t.id)];
    case 'id_desc':
      return [desc(t.id)];
    case 'name_asc':
      return [asc(t.name), asc(t.id)];
    case 'name_desc':
      return [desc(t.name), desc(t.id)];
    case 'updated_asc':
      return [asc(t.updatedAt), asc(t.id)];
    case 'updated_desc':
      return [desc(t.updatedAt), desc(t.id)];
    case 'expires_at_asc_id_desc':
      return [asc(t.expiresAt), desc(t.id)];
    case 'last_used_asc':
      return [asc(t.lastUsedAt), asc(t.id)];
    case 'last_used_desc':
      return [desc(t.lastUsedAt), desc(t.id)];
    default:
      return [asc(t.id)];
  }
}
