/** GPG keys (GitLab lib/api/users.rb gpg_keys routes; app/models/gpg_key.rb). */
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { findUserById } from './user-queries';
import { gpgKeys } from '../db/schema';
import { type GpgKeyRow, gpgKeyEntity, GpgKeySchema } from './keys-entity';
import { checkUnmodifiedSince } from '../platform/conditional';
import { notFound, validationFailed } from '../platform/errors';
import { GPG_KEY_FORMAT_MESSAGE, hasGpgKeyFormat, parseGpgPublicKey } from './gpg-key';
import { paginateSelect, paginationParams } from '../platform/pagination';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { g, params } from '../platform/validate';
import { requireAdmin, requireUser } from '../platform/guards';
import { routeId } from './users-params';
import { readableUser } from './user-visibility';

const listOwnParams = params({ ...paginationParams });
const ownKeyParams = params({ key_id: g.int() });
const createOwnParams = params({ key: g.string() });
const listUserParams = params({ id: routeId(), ...paginationParams });
const userKeyParams = params({ id: routeId(), key_id: g.int() });
const createUserParams = params({ id: routeId(), key: g.string() });

export function mountGpgKeys(r: Router) {

  r.route(
    {
      method: 'GET',
      path: '/user/gpg_keys',
      summary: "List the current user's GPG keys",
      tags: ['gpg_keys'],
      params: listOwnParams,
      scopes: ['read_user'],
      responses: { 200: z.array(GpgKeySchema) },
    },
    async ({ c, p, caller }) => listGpgKeys(c, p, requireUser(caller)),
  );

  r.route(
    {
      method: 'GET',
      path: '/user/gpg_keys/:key_id',
      summary: 'Get one GPG key of the current user',
      tags: ['gpg_keys'],
      params: ownKeyParams,
      scopes: ['read_user'],
      responses: { 200: GpgKeySchema },
    },
    async ({ c, p, caller }) => c.json(gpgKeyEntity(await findGpgKeyOrFail(c.var.db, requireUser(caller).id, p.key_id))),
  );

  r.route(
    { method: 'POST', path: '/user/gpg_keys', summary: 'Add a GPG key to the current user', tags: ['gpg_keys'], params: createOwnParams, responses: { 201: GpgKeySchema } },
    async ({ c, p, caller }) => c.json(gpgKeyEntity(await createGpgKey(c.var.db, requireUser(caller), p.key)), 201),
  );

  r.route(
    { method: 'DELETE', path: '/user/gpg_keys/:key_id', summary: 'Delete a GPG key of the current user', tags: ['gpg_keys'], params: ownKeyParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      await destroyGpgKey(c, requireUser(caller).id, p.key_id, true);
      return c.body(null, 204);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/user/gpg_keys/:key_id/revoke',
      summary: 'Revoke a GPG key of the current user',
      tags: ['gpg_keys'],
      params: ownKeyParams,
      responses: { 202: Accepted },
    },
    async ({ c, p, caller }) => {
      await destroyGpgKey(c, requireUser(caller).id, p.key_id, false);
      return accepted(c);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id/gpg_keys',
      summary: "List a user's GPG keys (no authentication needed)",
      tags: ['gpg_keys'],
      params: listUserParams,
      scopes: ['read_user'],
      rateLimit: 'user_gpg_keys',
      responses: { 200: z.array(GpgKeySchema) },
    },
    // Public like every GET of users.rb (`authenticate_non_get!`). users.rb only checks existence here;
    // a user hidden from anonymous callers (restricted public level) is hidden here too, as for SSH keys.
    async ({ c, p, caller }) => listGpgKeys(c, p, await readableUser(c, caller, await findUserById(c.var.db, p.id))),
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id/gpg_keys/:key_id',
      summary: "Get one of a user's GPG keys (no authentication needed)",
      tags: ['gpg_keys'],
      params: userKeyParams,
      scopes: ['read_user'],
      rateLimit: 'user_gpg_key',
      responses: { 200: GpgKeySchema },
    },
    async ({ c, p, caller }) => {
      const user = await readableUser(c, caller, await findUserById(c.var.db, p.id));
      return c.json(gpgKeyEntity(await findGpgKeyOrFail(c.var.db, user.id, p.key_id)));
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/users/:id/gpg_keys',
      summary: 'Add a GPG key to a user (administrators)',
      tags: ['gpg_keys'],
      admin: true,
      params: createUserParams,
      responses: { 201: GpgKeySchema },
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const user = await findUserOrFail(c.var.db, p.id);
      return c.json(gpgKeyEntity(await createGpgKey(c.var.db, user, p.key)), 201);
    },
  );

  r.route(
    {
      method: 'DELETE',
      path: '/users/:id/gpg_keys/:key_id',
      summary: "Delete a user's GPG key (administrators)",
      tags: ['gpg_keys'],
      admin: true,
      params: userKeyParams,
      responses: { 204: null },
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const user = await findUserOrFail(c.var.db, p.id);
      await destroyGpgKey(c, user.id, p.key_id, true);
      return c.body(null, 204);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/users/:id/gpg_keys/:key_id/revoke',
      summary: "Revoke a user's GPG key (administrators)",
      tags: ['gpg_keys'],
      admin: true,
      params: userKeyParams,
      responses: { 202: Accepted },
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const user = await findUserOrFail(c.var.db, p.id);
      await destroyGpgKey(c, user.id, p.key_id, false);
      return accepted(c);
    },
  );
}

/**
 * users.rb revoke ends with `status :accepted`, whose value (202) Grape renders as the JSON body.
 * Revoking destroys the key (GpgKey#revoke: signatures become unverified, then `destroy`).
 */
const Accepted = z.literal(202);
const accepted = (c: Context<AppEnv>) => c.json(202 satisfies z.infer<typeof Accepted>, 202);

async function findUserOrFail(db: Db, id: number): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw notFound('User');
  return user;
}

async function findGpgKeyOrFail(db: Db, userId: number, id: number): Promise<GpgKeyRow> {
  const key = await db.select().from(gpgKeys).where(and(eq(gpgKeys.userId, userId), eq(gpgKeys.id, id))).get();
  if (!key) throw notFound('GPG Key');
  return key;
}

async function listGpgKeys(c: Context<AppEnv>, p: { page?: number; per_page?: number }, owner: UserRow) {
  const rows = await paginateSelect(c, p, { table: gpgKeys, where: eq(gpgKeys.userId, owner.id), orderBy: [asc(gpgKeys.id)] });
  return c.json(rows.map(gpgKeyEntity));
}

/**
 * GpgKey validations in model order: key presence, uniqueness, format; then — only when `key` has
 * no error — fingerprint and primary_keyid presence and uniqueness. Identical key text elsewhere is
 * "key has already been taken"; the same key material in another armor is a taken fingerprint.
 */
function gpgErrors(text: string, existing: GpgKeyRow | undefined, parsed: ReturnType<typeof parseGpgPublicKey>): Record<string, string[]> {
  const key: string[] = [];
  if (!text) key.push("can't be blank");
  if (existing && existing.key === text) key.push('has already been taken');
  if (!hasGpgKeyFormat(text)) key.push(GPG_KEY_FORMAT_MESSAGE);
  if (key.length) return { key };
  if (!parsed) return { fingerprint: ["can't be blank"], primary_keyid: ["can't be blank"] };
  if (existing) return { fingerprint: ['has already been taken'], primary_keyid: ['has already been taken'] };
  return {};
}

async function createGpgKey(db: Db, owner: UserRow, input: string): Promise<GpgKeyRow> {
  // `GpgKey#key=` strips the value.
  const text = input.trim();
  const parsed = hasGpgKeyFormat(text) ? parseGpgPublicKey(text) : null;
  const existingFor = (fp: string) => db.select().from(gpgKeys).where(eq(gpgKeys.fingerprint, fp)).get();
  const existing = parsed ? await existingFor(parsed.fingerprint) : undefined;
  const errors = gpgErrors(text, existing, parsed);
  if (Object.keys(errors).length > 0 || !parsed) throw validationFailed(errors);
  try {
    const [row] = await db
      .insert(gpgKeys)
      .values({ userId: owner.id, key: text, primaryKeyid: parsed.keyId, fingerprint: parsed.fingerprint, createdAt: Date.now() })
      .returning();
    return row;
  } catch (err) {
    // A concurrent request registered the same key first: answer what the validation would have.
    if (isUniqueViolation(err, 'fingerprint')) {
      const raced = gpgErrors(text, await existingFor(parsed.fingerprint), parsed);
      throw validationFailed(Object.keys(raced).length ? raced : { fingerprint: ['has already been taken'], primary_keyid: ['has already been taken'] });
    }
    throw err;
  }
}

async function destroyGpgKey(c: Context<AppEnv>, userId: number, keyId: number, conditional: boolean) {
  const key = await findGpgKeyOrFail(c.var.db, userId, keyId);
  // GPG keys are never modified: created_at stands in for updated_at (destroy_conditionally!).
  if (conditional) checkUnmodifiedSince(c, key.createdAt);
  await c.var.db.delete(gpgKeys).where(and(eq(gpgKeys.id, key.id), eq(gpgKeys.userId, userId))).run();
}
