/**
 * SSH keys looked up by id or fingerprint, with their owner (GitLab lib/api/keys.rb, KeysFinder):
 * what an administrator, or the SSH server of a deployment, asks when a key appears on its own.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { aliasedColumns } from '../db/aliased-columns';
import { batchReads } from '../db/batch-reads';
import { keys, users } from '../db/schema';
import { sshKeyEntity, SSHKeySchema } from './keys-entity';
import { userPublic, UserPublicSchema } from './user-entity';
import { userExtrasFrom, userExtrasQueries } from './user-extras';
import { ApiError, notFound, recordNotFound } from '../platform/errors';
import { requireAdmin } from '../platform/guards';
import { baseUrl } from '../platform/pagination';
import { decimalId } from '../platform/record-id';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';

/** Entities::SSHKeyWithUser: the key, then its owner as UserPublic. */
export const SSHKeyWithUserSchema = SSHKeySchema.extend({ user: UserPublicSchema }).meta({ id: 'SSHKeyWithUser' });

const keyIdParams = params({ id: g.string() });
const fingerprintParams = params({ fingerprint: g.string() });

/** KeysFinder#valid_fingerprint_param?: an MD5 `aa:bb:…` (16 pairs, matched from the start only) or a SHA256 digest. */
const MD5_FINGERPRINT = /^([0-9a-fA-F]{2}:){15}[0-9a-fA-F]{2}/;

export function mountKeyLookups(r: Router) {
  r.route(
    { method: 'GET', path: '/keys/:id', summary: 'Get an SSH key and its owner (administrators)', tags: ['keys'], params: keyIdParams, responses: { 200: SSHKeyWithUserSchema } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const id = decimalId(p.id);
      // `Key.find`: ActiveRecord's not-found body.
      return presentKey(c, id === undefined ? undefined : eq(keys.id, id), recordNotFound);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/keys',
      summary: 'Find an SSH key by its fingerprint (administrators)',
      tags: ['keys'],
      params: fingerprintParams,
      responses: { 200: SSHKeyWithUserSchema },
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      return presentKey(c, fingerprintWhere(p.fingerprint), () => notFound('Key'));
    },
  );
}

/**
 * KeysFinder#by_fingerprint: `SHA256:<base64>` (any case of the prefix passes the type check, only
 * `SHA256:` is stripped) must decode to 32 bytes; anything else must look like an MD5 fingerprint.
 * An invalid one is keys.rb's `render_api_error!('Failed to return the key', 400)`.
 */
function fingerprintWhere(fingerprint: string): SQL {
  if (/^sha256:/i.test(fingerprint)) {
    const digest = fingerprint.replaceAll('SHA256:', '');
    if (base64Length(digest) !== 32) throw new ApiError(400, { message: 'Failed to return the key' });
    return eq(keys.fingerprintSha256, digest);
  }
  if (!MD5_FINGERPRINT.test(fingerprint)) throw new ApiError(400, { message: 'Failed to return the key' });
  return eq(keys.fingerprint, fingerprint);
}

/** Bytes Ruby's lenient Base64.decode64 yields: characters outside the alphabet are skipped, padding ends it. */
function base64Length(s: string): number {
  const chars = s.split('=')[0].replace(/[^A-Za-z0-9+/]/g, '').length;
  return Math.floor((chars * 3) / 4);
}

/** The key and its owner with everything UserPublic needs: one round trip. */
async function presentKey(c: Context<AppEnv>, where: SQL | undefined, missing: () => ApiError) {
  if (!where) throw missing();
  const db = c.var.db;
  const ownerId = sql`(SELECT ${keys.userId} FROM ${keys} WHERE ${where} LIMIT 1)`;
  const base = baseUrl(c);
  const opts = { base, viewerId: null, admin: false };
  const [found, ...extras] = await batchReads(db, [
    db.select({ key: aliasedColumns(keys, 'k_'), user: users }).from(keys).innerJoin(users, eq(users.id, keys.userId)).where(where).limit(1),
    ...userExtrasQueries(db, ownerId, null, opts),
  ] as const);
  const row = found[0];
  if (!row) throw missing();
  const owner = userPublic(row.user, userExtrasFrom(row.user, opts, extras as never));
  return c.json({ ...sshKeyEntity(row.key, row.user.name, new URL(base).hostname), user: owner });
}
