import { and, asc, desc, eq, gte, inArray, lte, ne, notInArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { prepared } from '../db/prepared';
import { identities, members, userCustomAttributes, users } from '../db/schema';
import { today } from '../platform/time';
import { decimalId } from '../platform/record-id';

export const findUserById = (db: Db, id: number) =>
  prepared(db, 'user-by-id', (d) => d.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare()).get({ id });

/** Case-insensitive username lookup (GitLab `find_by_username`). */
export const findUserByUsername = (db: Db, username: string) =>
  db.select().from(users).where(sql`lower(${users.username}) = lower(${username})`).get();

/** `:id_or_username` path parameters: digits are ids, anything else a username. */
export const findUserByIdOrUsername = (db: Db, value: string) => {
  const id = decimalId(value);
  return id !== undefined ? findUserById(db, id) : findUserByUsername(db, value);
};

/** GitLab `User::INTERNAL_USER_TYPES` complement: the `non_internal` scope (humans, project bots, service accounts). */
export const NON_INTERNAL_USER_TYPES = ['human', 'project_bot', 'service_account'] as const;

export interface UserListFilters {
  /** The caller may read all resources (administrator): sees every state, searches private emails. */
  admin: boolean;
  username?: string;
  search?: string;
  active?: boolean;
  blocked?: boolean;
  external?: boolean;
  excludeExternal?: boolean;
  excludeInternal?: boolean;
  withoutProjectBots?: boolean;
  admins?: boolean;
  twoFactor?: 'enabled' | 'disabled';
  createdAfter?: number;
  createdBefore?: number;
  externUid?: string;
  provider?: string;
  customAttributes?: [string, string][];
  samlProviderId?: number;
}

export interface UserListOrder {
  /** Column of `order_by`; `created_at` sorts by id like GitLab (order_options_with_tie_breaker). */
  orderBy: 'id' | 'name' | 'username' | 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
}

/** Infix match without LIKE: no pattern-length limit on D1 and no wildcard escaping. */
const contains = (col: SQL | AnyColumn, q: string) => sql`instr(lower(${col}), ${q}) > 0`;

/** UsersFinder#execute as SQL conditions. */
export function userListWhere(f: UserListFilters): SQL | undefined {
  const conds: (SQL | undefined)[] = [];
  // UsersFinder#base_scope: non-administrators never see users pending approval or banned.
  if (!f.admin) conds.push(notInArray(users.state, ['blocked_pending_approval', 'banned']));
  if (f.username !== undefined) conds.push(sql`lower(${users.username}) = lower(${f.username})`);
  if (f.admins && f.admin) conds.push(eq(users.isAdmin, true));
  if (f.search) {
    const q = f.search.toLowerCase();
    // User.search: names and usernames match partially from 3 characters, exactly below; emails only exactly.
    const partial = q.length >= 3;
    const nameMatch = partial ? contains(users.name, q) : sql`lower(${users.name}) = ${q}`;
    const usernameMatch = partial ? contains(users.username, q) : sql`lower(${users.username}) = ${q}`;
    const emailMatches = [sql`lower(${users.publicEmail}) = ${q}`];
    if (f.admin) emailMatches.push(sql`lower(${users.email}) = ${q}`);
    conds.push(or(nameMatch, usernameMatch, ...emailMatches));
  }
  if (f.blocked) conds.push(inArray(users.state, ['blocked', 'ldap_blocked']));
  if (f.active) conds.push(and(eq(users.state, 'active'), inArray(users.userType, [...NON_INTERNAL_USER_TYPES])));
  if (f.externUid !== undefined && f.provider !== undefined) {
    conds.push(
      inArray(
        users.id,
        sql`(select ${identities.userId} from ${identities} where ${identities.provider} = ${f.provider} and lower(${identities.externUid}) = lower(${f.externUid}))`,
      ),
    );
  }
  if (f.external) conds.push(eq(users.external, true));
  if (f.excludeExternal) conds.push(eq(users.external, false));
  if (f.twoFactor === 'enabled') conds.push(eq(users.twoFactorEnabled, true));
  if (f.twoFactor === 'disabled') conds.push(eq(users.twoFactorEnabled, false));
  if (f.createdAfter !== undefined) conds.push(gte(users.createdAt, f.createdAfter));
  if (f.createdBefore !== undefined) conds.push(lte(users.createdAt, f.createdBefore));
  if (f.customAttributes?.length) {
    // Every pair must match. The pairs travel as one JSON parameter, so any number of them stays
    // within D1's 100 bound parameters; each pair is an index lookup on (key, value).
    const pairs = new Map(f.customAttributes);
    conds.push(
      inArray(
        users.id,
        sql`(select uca.user_id from json_each(${JSON.stringify([...pairs])}) as j
              join ${userCustomAttributes} as uca on uca.key = json_extract(j.value, '$[0]') and uca.value = json_extract(j.value, '$[1]')
              group by uca.user_id having count(*) = ${pairs.size})`,
      ),
    );
  }
  if (f.samlProviderId !== undefined) {
    conds.push(inArray(users.id, sql`(select ${identities.userId} from ${identities} where ${identities.samlProviderId} = ${f.samlProviderId})`));
  }
  if (f.excludeInternal) conds.push(inArray(users.userType, [...NON_INTERNAL_USER_TYPES]));
  if (f.withoutProjectBots) conds.push(ne(users.userType, 'project_bot'));
  const present = conds.filter((c): c is SQL => c !== undefined);
  return present.length ? and(...present) : undefined;
}

function userListOrder(o: UserListOrder): SQL[] {
  const dir = (col: AnyColumn) => (o.sort === 'asc' ? asc(col) : desc(col));
  const out: SQL[] = [];
  switch (o.orderBy) {
    case 'name':
      out.push(dir(users.name));
      break;
    case 'username':
      out.push(dir(users.username));
      break;
    case 'updated_at':
      out.push(dir(users.updatedAt));
      break;
  }
  // The id tie-breaker (and the whole order for id and created_at).
  out.push(dir(users.id));
  return out;
}

export const listUsers = (db: Db, where: SQL | undefined, order: UserListOrder, limit: number, offset: number) =>
  db.select().from(users).where(where).orderBy(...userListOrder(order)).limit(limit).offset(offset).all();

/** Bounded count: at most `limit` rows are counted. */
export async function countUsers(db: Db, where: SQL | undefined, limit: number): Promise<number> {
  const sub = db.select({ one: sql`1`.as('one') }).from(users).where(where).limit(limit).as('bounded');
  const row = await db.select({ n: sql<number>`count(*)` }).from(sub).get();
  return Number(row?.n ?? 0);
}

/**
 * `User#highest_role` (users.highest_role via user_highest_roles): the highest access level of the
 * user's current memberships in groups and projects, 0 without any. Uses the members_user_source index.
 */
export async function highestRole(db: Db, userId: number): Promise<number> {
  return Number((await highestRoleQuery(db, userId))[0]?.level ?? 0);
}

/** `highestRole` unexecuted, for a batch: one row `{ level }` (null without memberships). */
export const highestRoleQuery = (db: Db, userId: number) =>
  db
    .select({ level: sql<number | null>`max(${members.accessLevel})` })
    .from(members)
    .where(and(eq(members.userId, userId), sql`(${members.expiresAt} IS NULL OR ${members.expiresAt} > ${today()})`));
