/**
 * Protected branches (GitLab lib/api/protected_branches.rb with ee/lib/ee/api/helpers/
 * protected_branches_helpers.rb, ProtectedBranches::{Api,Create,Update,Destroy}Service,
 * ProtectedRefs::AccessLevelParams, ProtectedBranchPolicy).
 *
 * Rights: reading needs `read_code` (403 otherwise); creating, updating and unprotecting need
 * `admin_project` (maintainer+, administrators), and with Premium's unprotection restrictions the
 * caller must also pass the branch's unprotect access levels (a rule they could not remove later
 * cannot be created either). A project the caller cannot read answers 404 Project Not Found.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { approvalProjectRulesProtectedBranches, namespaces, protectedBranchAccessLevels, protectedBranches, users } from '../db/schema';
import { protectedBranchEntity, ProtectedBranchSchema } from './protected-branch-entity';
import { ACCESS, hasProjectLevel } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { conflict, forbidden, grapeError, recordNotFound } from '../platform/errors';
import { countUpTo, countUpToQuery, linkParamsFrom, pageRequest, paginate } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import {
  type AccessEntry,
  createProtectedBranchParams,
  deleteProtectedBranchParams,
  getProtectedBranchParams,
  listProtectedBranchesParams,
  updateProtectedBranchParams,
} from './protected-branches-params';
import { findReadableProject, readCode } from '../projects/projects';
import { type AccessKind, attachLevels, canUnprotect, findProtectedBranch, type ProtectedBranchWithLevels } from './protected-branches';
import { applyEntry, createEntries, entryErrors, insertLevels, levelRow, lookupIds, type Planned, raceError, unprocessable } from './protected-branch-entries';

const TAGS = ['protected_branches'];
const KINDS: AccessKind[] = ['merge', 'push', 'unprotect'];

const MAX_NAME = 1024;
const premium = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');

/**
 * Gitlab::SQL::Pattern#fuzzy_arel_match on `name` (ProtectedBranch.by_name, query downcased): every
 * word of 3+ characters as a case-insensitive substring, else the whole query as the whole name.
 * Matched in JS because SQLite's lower() folds ASCII only and PostgreSQL's ILIKE folds Unicode.
 */
function nameMatcher(search: string | undefined): ((name: string) => boolean) | null {
  const query = (search ?? '').trim().replace(/\s+/g, ' ').toLowerCase();
  if (!query) return null;
  const quoted = [...query.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const rest = query.replace(/"[^"]+"/g, ' ').split(' ');
  const words = [...quoted, ...rest].filter((w) => w.length >= 3);
  if (words.length) return (name) => words.every((w) => name.toLowerCase().includes(w));
  return (name) => name.toLowerCase() === query;
}

/** Presents protected branches with the names their user and group entries are described by. */
async function present(c: Context<AppEnv>, rows: ProtectedBranchWithLevels[]) {
  const db = c.var.db;
  const levels = rows.flatMap((r) => [...r.push, ...r.merge, ...r.unprotect]);
  const userIds = [...new Set(levels.map((l) => l.userId).filter((x): x is number => x != null))];
  const groupIds = [...new Set(levels.map((l) => l.groupId).filter((x): x is number => x != null))];
  const userNames = new Map<number, string>();
  const groupNames = new Map<number, string>();
  for (let i = 0; i < userIds.length; i += 90)
    for (const u of await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, userIds.slice(i, i + 90))).all()) userNames.set(u.id, u.name);
  for (let i = 0; i < groupIds.length; i += 90)
    for (const g of await db.select({ id: namespaces.id, name: namespaces.name }).from(namespaces).where(inArray(namespaces.id, groupIds.slice(i, i + 90))).all()) groupNames.set(g.id, g.name);
  const x = { premium: premium(c), userNames, groupNames };
  return rows.map((r) => protectedBranchEntity(r, x));
}

/** `authorize_read_code!`: a readable project whose repository the caller may not read answers 403. */
async function readableProject(c: Context<AppEnv>, caller: Caller, id: string) {
  const found = await findReadableProject(c, caller, id);
  if (!readCode(caller, found.project, found.level)) throw forbidden();
  return found;
}

/** `admin_project`, plus (Premium) ProtectedBranchPolicy's `can_unprotect` on the branch as it would be. */
function authorizeAdmin(c: Context<AppEnv>, caller: Caller, level: number, pb?: ProtectedBranchWithLevels) {
  if (!caller.user || !hasProjectLevel(caller, level, ACCESS.MAINTAINER)) throw forbidden();
  if (pb && premium(c) && !canUnprotect(caller, level, pb)) throw forbidden();
}

async function findOr404(c: Context<AppEnv>, projectId: number, name: string): Promise<ProtectedBranchWithLevels> {
  const pb = await findProtectedBranch(c.var.db, projectId, name);
  // `find_by!` raises ActiveRecord::RecordNotFound, which the API renders as "404 Not found".
  if (!pb) throw recordNotFound();
  return pb;
}

// ---------------------------------------------------------------------------------------------

export function mountProtectedBranches(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/protected_branches', summary: "Get a project's protected branches", tags: TAGS, params: listProtectedBranchesParams, responses: { 200: z.array(ProtectedBranchSchema) } },
    async ({ c, p, caller }) => {
      const { project } = await readableProject(c, caller, p.id);
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const own = eq(protectedBranches.projectId, project.id);
      const match = nameMatcher(p.search);
      let rows: (typeof protectedBranches.$inferSelect)[];
      if (match) {
        // A project's rules are few (GitLab loads them all to match a ref); filter their names here.
        const ids = (await db.select({ id: protectedBranches.id, name: protectedBranches.name }).from(protectedBranches).where(own).orderBy(asc(protectedBranches.id)).all())
          .filter((r) => match(r.name))
          .map((r) => r.id);
        rows = await paginate(
          c,
          req,
          linkParamsFrom(raw, {}),
          async (limit, offset) => {
            const pageIds = ids.slice(offset, offset + limit);
            return pageIds.length ? db.select().from(protectedBranches).where(inArray(protectedBranches.id, pageIds)).orderBy(asc(protectedBranches.id)).all() : [];
          },
          async (limit) => Math.min(ids.length, limit),
        );
      } else {
        rows = await paginate(
          c,
          req,
          linkParamsFrom(raw, {}),
          (limit, offset) => db.select().from(protectedBranches).where(own).orderBy(asc(protectedBranches.id)).limit(limit).offset(offset),
          (limit) => countUpToQuery(db, protectedBranches, own, limit),
        );
      }
      return c.json(await present(c, await attachLevels(db, rows)));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/protected_branches/:name', summary: 'Get a single protected branch', tags: TAGS, params: getProtectedBranchParams, responses: { 200: ProtectedBranchSchema } },
    async ({ c, p, caller }) => {
      const { project } = await readableProject(c, caller, p.id);
      const pb = await findOr404(c, project.id, p.name);
      return c.json((await present(c, [pb]))[0]);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/protected_branches', summary: 'Protect a single branch', tags: TAGS, params: createProtectedBranchParams, responses: { 201: ProtectedBranchSchema } },
    async ({ c, p, caller }) => {
      const { project, namespace, level } = await findReadableProject(c, caller, p.id);
      authorizeAdmin(c, caller, level);
      const db = c.var.db;
      if (await db.select({ id: protectedBranches.id }).from(protectedBranches).where(and(eq(protectedBranches.projectId, project.id), eq(protectedBranches.name, p.name))).get())
        throw conflict(`Protected branch '${p.name}' already exists`);
      const isPremium = premium(c);
      const entries: Record<AccessKind, AccessEntry[]> = {
        push: createEntries('push', p.push_access_level, p.allowed_to_push, isPremium),
        merge: createEntries('merge', p.merge_access_level, p.allowed_to_merge, isPremium),
        unprotect: isPremium ? createEntries('unprotect', p.unprotect_access_level, p.allowed_to_unprotect, true) : [],
      };
      // Nested attributes: an `id` names a row of this (new) branch, which cannot exist; `_destroy` drops the entry.
      for (const kind of KINDS) {
        if (entries[kind].some((e) => e.id != null)) throw recordNotFound();
        entries[kind] = entries[kind].filter((e) => !e._destroy);
      }
      const planned = Object.fromEntries(KINDS.map((k) => [k, entries[k].map((e) => applyEntry(null, e))])) as Record<AccessKind, Planned[]>;
      const now = Date.now();
      const draft: ProtectedBranchWithLevels = {
        id: 0,
        projectId: project.id,
        name: p.name,
        allowForcePush: p.allow_force_push,
        codeOwnerApprovalRequired: false,
        createdAt: now,
        updatedAt: now,
        push: [],
        merge: [],
        unprotect: planned.unprotect.map((q, i) => ({ id: -i - 1, protectedBranchId: 0, kind: 'unprotect', ...levelRow(q), createdAt: now, updatedAt: now })),
      };
      // ProtectedBranches::CreateService#authorized? comes before the record's validations.
      authorizeAdmin(c, caller, level, draft);
      const errors: string[] = [];
      if (!p.name.trim()) errors.push("Name can't be blank");
      // GitLab stores any length; a ref name past this cannot exist in git, and a huge one must not reach the row size limit.
      else if (p.name.length > MAX_NAME) errors.push(`Name is too long (maximum is ${MAX_NAME} characters)`);
      const known = await lookupIds(c, project, namespace, KINDS.flatMap((k) => planned[k]));
      for (const kind of KINDS) errors.push(...entryErrors(kind, planned[kind], [], known));
      if (errors.length) throw unprocessable(errors);

      const pbId = sql`(SELECT id FROM protected_branches WHERE project_id = ${project.id} AND name = ${p.name})`;
      const statements: BatchItem<'sqlite'>[] = [
        db.insert(protectedBranches).values({
          projectId: project.id,
          name: p.name,
          allowForcePush: p.allow_force_push,
          codeOwnerApprovalRequired: isPremium ? (p.code_owner_approval_required ?? false) : false,
          createdAt: now,
          updatedAt: now,
        }),
        ...insertLevels(c, pbId, KINDS.flatMap((kind) => planned[kind].map((p) => ({ kind, p }))), now),
      ];
      try {
        await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
      } catch (err) {
        throw raceError(err, p.name) ?? err;
      }
      const created = await findOr404(c, project.id, p.name);
      return c.json((await present(c, [created]))[0], 201);
    },
  );

  r.route(
    { method: 'PATCH', path: '/projects/:id/protected_branches/:name', summary: 'Update a protected branch', tags: TAGS, params: updateProtectedBranchParams, responses: { 200: ProtectedBranchSchema } },
    async ({ c, p, caller }) => {
      const { project, namespace, level } = await findReadableProject(c, caller, p.id);
      const raw = await requestParams(c);
      // `allow_blank: false` on allow_force_push.
      if (raw.allow_force_push === '' || raw.allow_force_push === null) throw grapeError('allow_force_push is empty');
      const pb = await findOr404(c, project.id, p.name);
      authorizeAdmin(c, caller, level, pb);
      const db = c.var.db;
      const isPremium = premium(c);
      const given: Record<AccessKind, AccessEntry[]> = {
        // CE declares only deploy_key_id entries for allowed_to_push.
        push: (p.allowed_to_push ?? []).filter((e) => isPremium || e.deploy_key_id != null),
        merge: isPremium ? (p.allowed_to_merge ?? []) : [],
        unprotect: isPremium ? (p.allowed_to_unprotect ?? []) : [],
      };
      const planned = {} as Record<AccessKind, Planned[]>;
      for (const kind of KINDS) {
        planned[kind] = [];
        for (const e of given[kind]) {
          if (e.id != null) {
            const base = pb[kind].find((l) => l.id === e.id);
            // accepts_nested_attributes_for raises RecordNotFound for an id outside the association.
            if (!base) throw recordNotFound();
            planned[kind].push(applyEntry(base, e));
          } else if (!e._destroy) planned[kind].push(applyEntry(null, e));
        }
      }
      const errors: string[] = [];
      const known = await lookupIds(c, project, namespace, KINDS.flatMap((k) => planned[k]));
      for (const kind of KINDS) errors.push(...entryErrors(kind, planned[kind], pb[kind], known));
      if (errors.length) throw unprocessable(errors);

      const now = Date.now();
      const set: Partial<typeof protectedBranches.$inferInsert> = {};
      if (p.allow_force_push !== undefined && p.allow_force_push !== pb.allowForcePush) set.allowForcePush = p.allow_force_push;
      if (isPremium && p.code_owner_approval_required !== undefined && p.code_owner_approval_required !== pb.codeOwnerApprovalRequired)
        set.codeOwnerApprovalRequired = p.code_owner_approval_required;
      const levelsChange = KINDS.some((k) => planned[k].some((q) => q.destroy || q.changed));
      // ActiveRecord touches updated_at only when something changed.
      if (!Object.keys(set).length && !levelsChange) return c.json((await present(c, [pb]))[0]);
      const statements: BatchItem<'sqlite'>[] = [db.update(protectedBranches).set({ ...set, updatedAt: now }).where(eq(protectedBranches.id, pb.id))];
      for (const kind of KINDS)
        for (const q of planned[kind]) {
          if (q.id !== undefined && q.destroy) statements.push(db.delete(protectedBranchAccessLevels).where(eq(protectedBranchAccessLevels.id, q.id)));
          else if (q.id !== undefined) {
            if (q.changed) statements.push(db.update(protectedBranchAccessLevels).set({ ...levelRow(q), updatedAt: now }).where(eq(protectedBranchAccessLevels.id, q.id)));
          }
        }
      statements.push(...insertLevels(c, pb.id, KINDS.flatMap((kind) => planned[kind].filter((q) => q.id === undefined).map((p) => ({ kind, p }))), now));
      try {
        await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
      } catch (err) {
        throw raceError(err, p.name) ?? err;
      }
      const updated = await findOr404(c, project.id, p.name);
      return c.json((await present(c, [updated]))[0]);
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/protected_branches/:name', summary: 'Unprotect a single branch', tags: TAGS, params: deleteProtectedBranchParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const { project, level } = await findReadableProject(c, caller, p.id);
      const pb = await findOr404(c, project.id, p.name);
      authorizeAdmin(c, caller, level, pb);
      checkUnmodifiedSince(c, pb.updatedAt);
      const db = c.var.db;
      await db.batch([
        db.delete(protectedBranchAccessLevels).where(eq(protectedBranchAccessLevels.protectedBranchId, pb.id)),
        // approval_project_rules_protected_branches: GitLab's foreign key cascades on the protected branch.
        db.delete(approvalProjectRulesProtectedBranches).where(eq(approvalProjectRulesProtectedBranches.protectedBranchId, pb.id)),
        db.delete(protectedBranches).where(eq(protectedBranches.id, pb.id)),
      ]);
      return c.body(null, 204);
    },
  );
}
