/** SSH keys (GitLab lib/api/users.rb key routes; spec document 2, Users; reference B §1.6). */
import { and, asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { readableUser } from './user-visibility';
import type { Db } from '../db/client';
import { findUserById, findUserByIdOrUsername } from './user-queries';
import { keys } from '../db/schema';
import { type KeyRow, sshKeyEntity, SSHKeySchema, USAGE_TYPES } from './keys-entity';
import { checkUnmodifiedSince } from '../platform/conditional';
import { notFound, validationFailed } from '../platform/errors';
import { baseUrl, paginateSelect, paginationParams } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { checkSshKey, withTakenErrors } from './ssh-key';
import { isUniqueViolation } from '../platform/unique';
import { g, params } from '../platform/validate';
import { requireAdmin, requireUser } from '../platform/guards';
import { routeId } from './users-params';
import { auditEvent, clientIp } from './audit';
import { settingsOf } from '../settings/settings';
import { decimalId } from '../platform/record-id';

/** users.rb `post "keys"`: key, title required (declared in that order, so "key is missing" comes first). */
const keyAttributes = {
  key: g.string(),
  title: g.string(),
  expires_at: g.datetime().optional(),
  usage_type: g.enum(USAGE_TYPES).default('auth_and_signing'),
};

const listOwnParams = params({ ...paginationParams });
/** Spec document 2 types `key_id` of GET /user/keys/:key_id as a string: a non-numeric id is simply not found. */
const ownKeyParams = params({ key_id: g.string() });
const deleteOwnKeyParams = params({ key_id: g.int() });
const createOwnParams = params(keyAttributes);
const listUserKeysParams = params({ id_or_username: g.string(), ...paginationParams });
const userKeyParams = params({ id: routeId(), key_id: g.int() });
const createUserKeyParams = params({ id: routeId(), ...keyAttributes });

export function mountKeys(r: Router) {

  r.route(
    {
      method: 'GET',
      path: '/user/keys',
      summary: "List the current user's SSH keys",
      tags: ['keys'],
      params: listOwnParams,
      scopes: ['read_user'],
      responses: { 200: z.array(SSHKeySchema) },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      return listKeys(c, p, user);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/user/keys/:key_id',
      summary: 'Get one SSH key of the current user',
      tags: ['keys'],
      params: ownKeyParams,
      scopes: ['read_user'],
      responses: { 200: SSHKeySchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      // Another user's key is "not found" even for administrators (users_spec.rb).
      const id = decimalId(p.key_id);
      const key = id !== undefined ? await findKey(c.var.db, user.id, id) : undefined;
      if (!key) throw notFound('Key');
      return c.json(sshKeyEntity(key, user.name, host(c)));
    },
  );

  r.route(
    { method: 'POST', path: '/user/keys', summary: 'Add an SSH key to the current user', tags: ['keys'], params: createOwnParams, responses: { 201: SSHKeySchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const key = await createKey(c, user, p, null);
      return c.json(sshKeyEntity(key, user.name, host(c)), 201);
    },
  );

  r.route(
    { method: 'DELETE', path: '/user/keys/:key_id', summary: 'Delete an SSH key of the current user', tags: ['keys'], params: deleteOwnKeyParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      await destroyKey(c, user.id, p.key_id);
      return c.body(null, 204);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id_or_username/keys',
      summary: "List a user's SSH keys (no authentication needed)",
      tags: ['keys'],
      params: listUserKeysParams,
      scopes: ['read_user'],
      rateLimit: 'user_ssh_keys',
      responses: { 200: z.array(SSHKeySchema) },
    },
    // Public like every GET of users.rb (`authenticate_non_get!`): 404 for a missing or invisible user.
    async ({ c, p, caller }) => {
      const user = await readableUser(c, caller, await findUserByIdOrUsername(c.var.db, p.id_or_username));
      return listKeys(c, p, user);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id/keys/:key_id',
      summary: "Get one of a user's SSH keys (no authentication needed)",
      tags: ['keys'],
      params: userKeyParams,
      scopes: ['read_user'],
      rateLimit: 'user_ssh_key',
      responses: { 200: SSHKeySchema },
    },
    async ({ c, p, caller }) => {
      const user = await readableUser(c, caller, await findUserById(c.var.db, p.id));
      const key = await findKey(c.var.db, user.id, p.key_id);
      if (!key) throw notFound('Key');
      return c.json(sshKeyEntity(key, user.name, host(c)));
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/users/:id/keys',
      summary: 'Add an SSH key to a user (administrators)',
      tags: ['keys'],
      admin: true,
      params: createUserKeyParams,
      responses: { 201: SSHKeySchema },
    },
    async ({ c, p, caller }) => {
      const admin = requireAdmin(caller);
      const user = await findUserById(c.var.db, p.id);
      if (!user) throw notFound('User');
      const key = await createKey(c, user, p, admin);
      return c.json(sshKeyEntity(key, user.name, host(c)), 201);
    },
  );

  r.route(
    { method: 'DELETE', path: '/users/:id/keys/:key_id', summary: "Delete a user's SSH key (administrators)", tags: ['keys'], admin: true, params: userKeyParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const user = await findUserById(c.var.db, p.id);
      if (!user) throw notFound('User');
      await destroyKey(c, user.id, p.key_id);
      return c.body(null, 204);
    },
  );
}

/** `Gitlab.config.gitlab.host`: the host name of the external URL, without scheme or port. */
const host = (c: Context<AppEnv>) => new URL(baseUrl(c)).hostname;

const findKey = (db: Db, userId: number, id: number) =>
  db.select().from(keys).where(and(eq(keys.userId, userId), eq(keys.id, id))).get();

async function listKeys(c: Context<AppEnv>, p: { page?: number; per_page?: number }, owner: UserRow) {
  const rows = await paginateSelect(c, p, { table: keys, where: eq(keys.userId, owner.id), orderBy: [asc(keys.id)] });
  const h = host(c);
  return c.json(rows.map((k) => sshKeyEntity(k, owner.name, h)));
}

interface KeyParams {
  key: string;
  title: string;
  expires_at?: number;
  usage_type: (typeof USAGE_TYPES)[number];
}

/**
 * Keys::CreateService: validate (model order), refuse a fingerprint already registered by anyone,
 * insert, and (premium, administrator acting through POST /users/:id/keys) record "Added SSH key"
 * in the same batch. A concurrent duplicate loses on the unique index and gets the same 400.
 */
async function createKey(c: Context<AppEnv>, owner: UserRow, p: KeyParams, admin: UserRow | null): Promise<KeyRow> {
  const db = c.var.db;
  const settings = await settingsOf(c);
  // The SSH key expiration policy is an Ultimate feature (spec document 2: max_ssh_key_lifetime).
  const maxLifetimeDays = planAllows(c.var.config, 'ultimate') ? Number(settings.max_ssh_key_lifetime) || null : null;
  const check = checkSshKey({ title: p.title, key: p.key, expiresAt: p.expires_at ?? null, maxLifetimeDays }, settings);
  let errors = check.errors;
  const parsed = check.parsed;
  if (parsed) {
    const taken = await db.select({ id: keys.id }).from(keys).where(eq(keys.fingerprintSha256, parsed.fingerprintSha256)).get();
    if (taken) errors = withTakenErrors(errors);
  }
  if (Object.keys(errors).length > 0 || !parsed) throw validationFailed(errors);

  const now = Date.now();
  const insert = db
    .insert(keys)
    .values({
      userId: owner.id,
      title: p.title,
      key: check.storedKey,
      keyType: parsed.type,
      bits: parsed.bits,
      fingerprint: parsed.fingerprintMd5,
      fingerprintSha256: parsed.fingerprintSha256,
      usageType: p.usage_type,
      expiresAt: p.expires_at ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  try {
    if (admin && planAllows(c.var.config, 'premium')) {
      // Spec document 2, Events: adding an SSH key for a specified user records an audit event
      // (EE Keys::CreateService: event add_ssh_key, scope the user, target the key).
      const audit = auditEvent(db, {
        author: admin,
        entity: { id: owner.id, type: 'User', path: owner.username },
        target: { id: sql`(select ${keys.id} from ${keys} where ${keys.fingerprintSha256} = ${parsed.fingerprintSha256})`, type: 'Key', details: p.title },
        eventName: 'add_ssh_key',
        message: 'Added SSH key',
        ipAddress: clientIp(c),
        createdAt: now,
      });
      const [[row]] = await db.batch([insert, audit]);
      return row;
    }
    const [row] = await insert;
    return row;
  } catch (err) {
    if (isUniqueViolation(err, 'fingerprint_sha256')) throw validationFailed(withTakenErrors(check.errors));
    throw err;
  }
}

async function destroyKey(c: Context<AppEnv>, userId: number, keyId: number) {
  const key = await findKey(c.var.db, userId, keyId);
  if (!key) throw notFound('Key');
  checkUnmodifiedSince(c, key.updatedAt);
  await c.var.db.delete(keys).where(and(eq(keys.id, key.id), eq(keys.userId, userId))).run();
}
