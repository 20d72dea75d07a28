/**
 * Personal access tokens (GitLab lib/api/personal_access_tokens.rb and the admin route in
 * lib/api/users.rb). Token values appear only in the response that creates them.
 */
import { personalAccessTokenWithToken } from '../entities/personal-access-token';
import { findUserById } from '../db/queries/users';
import { notFound, validationFailed } from '../lib/errors';
import type { Router } from '../lib/router';
import { availableScopes } from '../lib/scopes';
import { addDays, today } from '../lib/time';
import { g, params } from '../lib/validate';
import { requireAdmin } from '../middleware/auth';
import { tokenInsert } from '../services/tokens';
import type { Settings } from '../services/settings';

/** Max token lifetime in days (GitLab: 365 unless the instance lowers it). */
const MAX_LIFETIME_DAYS = 365;

export const createTokenParams = params({
  user_id: g.int(),
  name: g.string(),
  description: g.string().optional(),
  scopes: g.array(g.string()),
  expires_at: g.date().optional(),
});

/** Model validations of PersonalAccessToken, in GitLab's wording. Returns the effective expiry. */
export function checkTokenInput(settings: Settings, isAdminOwner: boolean, input: { name: string; scopes: string[]; expires_at?: string }): string | null {
  const errors: Record<string, string[]> = {};
  if (!input.name.trim()) errors.name = ["can't be blank"];
  const allowed = availableScopes(isAdminOwner);
  if (input.scopes.length === 0 || input.scopes.some((s) => !allowed.includes(s))) errors.scopes = ['can only contain available scopes'];
  const maxDays = Math.min(MAX_LIFETIME_DAYS, Number(settings.max_personal_access_token_lifetime ?? MAX_LIFETIME_DAYS));
  let expiresAt = input.expires_at ?? null;
  if (expiresAt == null && settings.require_personal_access_token_expiry) expiresAt = addDays(today(), maxDays);
  if (expiresAt != null) {
    if (expiresAt < today()) errors.expires_at = ['must not be in the past'];
    else if (expiresAt > addDays(today(), maxDays)) errors.expires_at = [`must be before ${addDays(today(), maxDays)}`];
  }
  if (Object.keys(errors).length) throw validationFailed(errors);
  return expiresAt;
}

export function mountPersonalAccessTokens(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/users/:user_id/personal_access_tokens',
      summary: 'Create a personal access token for a user (administrators)',
      tags: ['personal_access_tokens'],
      params: createTokenParams,
      status: 201,
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const user = await findUserById(c.var.db, p.user_id);
      if (!user) throw notFound('User');
      const settings = await c.var.settings();
      const expiresAt = checkTokenInput(settings, user.isAdmin, p);
      const { value, query } = await tokenInsert(c.var.db, c.var.config, settings, {
        userId: user.id,
        name: p.name,
        description: p.description,
        scopes: p.scopes,
        expiresAt,
      });
      const [row] = await query;
      return c.json(personalAccessTokenWithToken(row, value), 201);
    },
  );
}

