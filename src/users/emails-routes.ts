/**
 * Email addresses (GitLab lib/api/users.rb `emails` routes, Emails::CreateService,
 * Emails::DestroyService, app/models/email.rb): the caller's own under /user/emails, anyone's for
 * administrators under /users/:id/emails. A confirmed user's primary address has its row too
 * (primary-email.ts), listed with the others and never deleted.
 */
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { batchReads } from '../db/batch-reads';
import { emails, users } from '../db/schema';
import { emailEntity, EmailSchema } from './email-entity';
import { ApiError, notFound, validationFailed } from '../platform/errors';
import { requireAdmin, requireUser } from '../platform/guards';
import { paginateSelect, paginationParams } from '../platform/pagination';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { g, params } from '../platform/validate';
import { routeId } from './users-params';

const listOwnParams = params({ ...paginationParams });
const ownEmailParams = params({ email_id: g.int() });
const createOwnParams = params({ email: g.string() });
const listUserParams = params({ id: routeId(), ...paginationParams });
const createUserParams = params({ id: routeId(), email: g.string(), skip_confirmation: g.bool().optional() });
const userEmailParams = params({ id: routeId(), email_id: g.int() });

/** Devise's `email_regexp` (config/initializers/devise.rb), which the `devise_email` validator applies. */
const DEVISE_EMAIL = /^[^@\s]+@[^@\s]+$/;

export function mountEmails(r: Router) {
  r.route(
    { method: 'GET', path: '/user/emails', summary: "List the current user's email addresses", tags: ['emails'], params: listOwnParams, scopes: ['read_user'], responses: { 200: z.array(EmailSchema) } },
    async ({ c, p, caller }) => listEmails(c, p, requireUser(caller).id),
  );

  r.route(
    { method: 'GET', path: '/user/emails/:email_id', summary: 'Get one email address of the current user', tags: ['emails'], params: ownEmailParams, scopes: ['read_user'], responses: { 200: EmailSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const email = await findEmail(c.var.db, user.id, p.email_id);
      if (!email) throw notFound('Email');
      return c.json(emailEntity(email));
    },
  );

  r.route(
    { method: 'POST', path: '/user/emails', summary: 'Add an email address to the current user', tags: ['emails'], params: createOwnParams, responses: { 201: EmailSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      return c.json(emailEntity(await createEmail(c, user.id, p.email, false)), 201);
    },
  );

  r.route(
    { method: 'DELETE', path: '/user/emails/:email_id', summary: 'Delete an email address of the current user', tags: ['emails'], params: ownEmailParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      await destroyEmail(db, (await ownedEmailQuery(db, user.id, p.email_id))[0]);
      return c.body(null, 204);
    },
  );

  r.route(
    { method: 'GET', path: '/users/:id/emails', summary: "List a user's email addresses (administrators)", tags: ['emails'], params: listUserParams, scopes: ['read_user'], responses: { 200: z.array(EmailSchema) } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const user = await findUser(c.var.db, p.id);
      return listEmails(c, p, user.id);
    },
  );

  r.route(
    { method: 'POST', path: '/users/:id/emails', summary: 'Add an email address to a user (administrators)', tags: ['emails'], params: createUserParams, responses: { 201: EmailSchema } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      // The user's existence travels with the uniqueness checks (createEmail): one read round trip.
      return c.json(emailEntity(await createEmail(c, p.id, p.email, p.skip_confirmation === true)), 201);
    },
  );

  r.route(
    { method: 'DELETE', path: '/users/:id/emails/:email_id', summary: "Delete a user's email address (administrators)", tags: ['emails'], params: userEmailParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      const [user, email] = await batchReads(db, [db.select({ id: users.id }).from(users).where(eq(users.id, p.id)).limit(1), ownedEmailQuery(db, p.id, p.email_id)]);
      if (!user[0]) throw notFound('User');
      await destroyEmail(db, email[0]);
      return c.body(null, 204);
    },
  );
}

const emailQuery = (db: Db, userId: number, id: number) => db.select().from(emails).where(and(eq(emails.userId, userId), eq(emails.id, id))).limit(1);
const findEmail = async (db: Db, userId: number, id: number) => (await emailQuery(db, userId, id))[0];

async function findUser(db: Db, id: number): Promise<Pick<UserRow, 'id'>> {
  const user = await db.select({ id: users.id }).from(users).where(eq(users.id, id)).get();
  if (!user) throw notFound('User');
  return user;
}

function listEmails(c: Context<AppEnv>, p: { page?: number; per_page?: number }, userId: number) {
  return paginateSelect(c, p, { table: emails, where: eq(emails.userId, userId), orderBy: [asc(emails.id)] }).then((rows) => c.json(rows.map(emailEntity)));
}

/**
 * Emails::CreateService: Email#email= lowercases and strips; presence, Devise's format, uniqueness among
 * secondary addresses (`uniqueness: true`) and among every user's primary address (`unique_email`), each
 * reported as GitLab's model errors. `skip_confirmation` (administrators) confirms the address at once.
 */
async function createEmail(c: Context<AppEnv>, userId: number, input: string, skipConfirmation: boolean) {
  const db = c.var.db;
  const email = input.trim().toLowerCase();
  const [owner, secondary, primary] = await batchReads(db, [
    db.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1),
    db.select({ id: emails.id }).from(emails).where(eq(emails.email, email)).limit(1),
    // Email#unique_email: the primary address of another user (the owner's own has its row, or may get one).
    db.select({ id: users.id }).from(users).where(and(sql`lower(${users.email}) = ${email}`, ne(users.id, userId))).limit(1),
  ]);
  if (!owner[0]) throw notFound('User');
  const errors: string[] = [];
  if (!email) errors.push("can't be blank");
  else {
    if (secondary[0]) errors.push('has already been taken');
    if (!DEVISE_EMAIL.test(email)) errors.push('is invalid');
    if (primary[0]) errors.push('has already been taken');
  }
  if (email.length > 255) errors.push('is too long (maximum is 255 characters)');
  if (errors.length) throw validationFailed({ email: errors });
  const now = Date.now();
  try {
    const [row] = await db.insert(emails).values({ userId, email, confirmedAt: skipConfirmation ? now : null, createdAt: now }).returning();
    return row;
  } catch (err) {
    // A concurrent request registered the same address first.
    if (isUniqueViolation(err, 'email')) throw validationFailed({ email: ['has already been taken'] });
    throw err;
  }
}

/**
 * An address of the user with the user's primary address, for the deletes. The primary is renamed:
 * in a D1 batch rows are keyed by column name, and two `email` columns would collapse into one.
 */
const ownedEmailQuery = (db: Db, userId: number, id: number) =>
  db.select({ id: emails.id, userId: emails.userId, email: emails.email, primary: sql<string>`${users.email}`.as('primary_email') }).from(emails).innerJoin(users, eq(users.id, emails.userId)).where(and(eq(emails.userId, userId), eq(emails.id, id))).limit(1);

/**
 * Emails::DestroyService: the primary address raises ('Cannot delete primary email'), which GitLab's
 * API lets through as a 500. A client's request is never a 500 here: the same refusal is a 400 with
 * the service's message, nothing deleted.
 */
async function destroyEmail(db: Db, email: { id: number; userId: number; email: string; primary: string } | undefined) {
  if (!email) throw notFound('Email');
  if (email.email.toLowerCase() === email.primary.toLowerCase()) throw new ApiError(400, { message: 'Cannot delete primary email' });
  await db.delete(emails).where(and(eq(emails.id, email.id), eq(emails.userId, email.userId))).run();
}
