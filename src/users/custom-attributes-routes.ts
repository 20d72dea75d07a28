/** Custom attributes of users (GitLab lib/api/custom_attributes_endpoints.rb, mounted by users.rb). */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { customAttributeEntity, CustomAttributeSchema } from './custom-attribute-entity';
import { findUserById } from './user-queries';
import { userCustomAttributes } from '../db/schema';
import { notFound, recordNotFound, validationFailed } from '../platform/errors';
import type { Router } from '../platform/router';
import { requireAdmin } from '../platform/guards';
import { customAttributeKeyParams, putCustomAttributeParams, userIdParams } from './users-params';
import { upsertCustomAttribute } from './users';

/** Entity `{key, value}`, administrators only. */
export function mountUserCustomAttributes(r: Router) {
  const load = async (c: Context<AppEnv>, caller: Caller, id: number) => {
    // Administrators only, decided before the user is looked up (reference B §7): GitLab finds the
    // user first, so a non-administrator could tell existing ids (403) from missing ones (404), and
    // anonymous callers got 403 for a GET. Here: 401 anonymous, 403 non-administrator, whatever the id.
    requireAdmin(caller);
    const user = await findUserById(c.var.db, id);
    if (!user) throw notFound();
    return user;
  };

  r.route(
    {
      method: 'GET',
      path: '/users/:id/custom_attributes',
      summary: 'List custom attributes of a user',
      tags: ['custom_attributes'],
      params: userIdParams,
      scopes: ['read_user'],
      responses: { 200: z.array(CustomAttributeSchema) },
    },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      // Creation order, like GitLab's ids (rowid survives upserts).
      const rows = await c.var.db.select().from(userCustomAttributes).where(eq(userCustomAttributes.userId, user.id)).orderBy(sql`rowid`).all();
      return c.json(rows.map(customAttributeEntity));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id/custom_attributes/:key',
      summary: 'Get a custom attribute of a user',
      tags: ['custom_attributes'],
      params: customAttributeKeyParams,
      scopes: ['read_user'],
      responses: { 200: CustomAttributeSchema },
    },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      const row = await findCustomAttribute(c.var.db, user.id, p.key);
      if (!row) throw recordNotFound();
      return c.json(customAttributeEntity(row));
    },
  );

  r.route(
    {
      method: 'PUT',
      path: '/users/:id/custom_attributes/:key',
      summary: 'Set a custom attribute of a user',
      tags: ['custom_attributes'],
      params: putCustomAttributeParams,
      responses: { 200: CustomAttributeSchema },
    },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      checkCustomAttribute(p.key, p.value);
      await upsertCustomAttribute(c.var.db, user.id, p.key, p.value).run();
      return c.json(customAttributeEntity({ key: p.key, value: p.value }));
    },
  );

  r.route(
    {
      method: 'DELETE',
      path: '/users/:id/custom_attributes/:key',
      summary: 'Delete a custom attribute of a user',
      tags: ['custom_attributes'],
      params: customAttributeKeyParams,
      responses: { 204: null },
    },
    async ({ c, p, caller }) => {
      const user = await load(c, caller, p.id);
      const row = await findCustomAttribute(c.var.db, user.id, p.key);
      // `custom_attributes.find_by!(key:)`: ActiveRecord's not-found body.
      if (!row) throw recordNotFound();
      await c.var.db.delete(userCustomAttributes).where(and(eq(userCustomAttributes.userId, user.id), eq(userCustomAttributes.key, p.key))).run();
      return c.body(null, 204);
    },
  );
}

const findCustomAttribute = (db: Db, userId: number, key: string) =>
  db.select().from(userCustomAttributes).where(and(eq(userCustomAttributes.userId, userId), eq(userCustomAttributes.key, key))).get();

/** The model validations of every custom attribute (user, project, group): presence and 255 characters. */
export function checkCustomAttribute(key: string, value: string): void {
  const errors: Record<string, string[]> = {};
  if (!key.trim()) errors.key = ["can't be blank"];
  if (!value.trim()) errors.value = ["can't be blank"];
  if (key.length > 255) (errors.key ??= []).push('is too long (maximum is 255 characters)');
  if (value.length > 255) (errors.value ??= []).push('is too long (maximum is 255 characters)');
  if (Object.keys(errors).length) throw validationFailed(errors);
}
