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
import { eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { approvalProjectRulesProtectedBranches, protectedBranchAccessLevels, protectedBranches } from '../db/schema';
import { writeThenRead } from '../db/batch-reads';
import { branchIdByName, branchIdsOf, protectedBranchesFrom, protectedBranchesReads } from './protected-branch-reads';
import { type ProtectedBranchExtras, protectedBranchEntity, ProtectedBranchSchema } from './protected-branch-entity';
import { ACCESS, hasProjectLevel } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { conflict, forbidden, grapeError, recordNotFound } from '../platform/errors';
import { countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
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
import { findReadableProjectWith } from '../projects/projects';
import { readableRepoWith } from './repository-support';
import { type AccessKind, canUnprotect, groupEntryGrants, type ProtectedBranchWithLevels } from './protected-branches';
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

/** Presents protected branches with the names their user and group entries are described by (read beside them: protected-branch-reads.ts). */
function present(c: Context<AppEnv>, rows: ProtectedBranchWithLevels[], names: Pick<ProtectedBranchExtras, 'userNames' | 'groupNames'>) {
  const x = { premium: premium(c), ...names };
  return rows.map((r) => protectedBranchEntity(r, x));
}

/** `admin_project`, plus (Premium) ProtectedBranchPolicy's `can_unprotect` on the branch as it would be. */
async function authorizeAdmin(c: Context<AppEnv>, caller: Caller, level: number, pb?: ProtectedBranchWithLevels & { projectId: number }) {
  if (!caller.user || !hasProjectLevel(caller, level, ACCESS.MAINTAINER)) throw forbidden();
  if (pb && premium(c) && !canUnprotect(caller, level, pb, await groupEntryGrants(c, caller, pb.projectId, [pb]))) throw forbidden();
}

/** The one branch of `protectedBranchesReads(db, branchIdByName(…))`, or `find_by!`'s 404 ("404 Not found"). */
function oneOr404(reads: Parameters<typeof protectedBranchesFrom>[0]) {
  const { branches, names } = protectedBranchesFrom(reads);
  if (!branches[0]) throw recordNotFound();
  return { pb: branches[0], names };
}

// ---------------------------------------------------------------------------------------------

export function mountProtectedBranches(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/protected_branches', summary: "Get a project's protected branches", tags: TAGS, params: listProtectedBranchesParams, responses: { 200: z.array(ProtectedBranchSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const match = nameMatcher(p.search);
      // The page (every rule when searching: a project's rules are few, GitLab loads them all to
      // match a ref, and names are matched here), its levels and names, and the count: one round trip.
      const ids = (pid: SQL) => branchIdsOf(pid, match ? undefined : { limit: req.perPage, offset: req.offset });
      const found = await readableRepoWith(c, caller, p.id, (pid) => [...protectedBranchesReads(db, ids(pid)), countUpToQuery(db, protectedBranches, sql`${protectedBranches.projectId} = ${pid}`, MAX_COUNT + 1)] as const);
      const [rows, levels, userRows, groupRows, counted] = found.reads;
      const { branches, names } = protectedBranchesFrom([rows, levels, userRows, groupRows]);
      const matching = match ? branches.filter((b) => match(b.name)) : branches;
      const page = match ? matching.slice(req.offset, req.offset + req.perPage) : matching;
      const n = match ? matching.length : Number(counted[0]?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), n > MAX_COUNT ? null : n, page.length);
      return c.json(present(c, page, names));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/protected_branches/:name', summary: 'Get a single protected branch', tags: TAGS, params: getProtectedBranchParams, responses: { 200: ProtectedBranchSchema } },
    async ({ c, p, caller }) => {
      const found = await readableRepoWith(c, caller, p.id, (pid) => protectedBranchesReads(c.var.db, branchIdByName(pid, p.name)));
      const { pb, names } = oneOr404(found.reads);
      return c.json(present(c, [pb], names)[0]);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/protected_branches', summary: 'Protect a single branch', tags: TAGS, params: createProtectedBranchParams, responses: { 201: ProtectedBranchSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [db.select({ id: protectedBranches.id }).from(protectedBranches).where(sql`${protectedBranches.id} = ${branchIdByName(pid, p.name)}`).limit(1)] as const);
      const { project, namespace, level } = found;
      await authorizeAdmin(c, caller, level);
      if (found.reads[0][0]) throw conflict(`Protected branch '${p.name}' already exists`);
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
      await authorizeAdmin(c, caller, level, draft);
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
      let created;
      try {
        // The rule, its levels and their answer in one batch.
        created = await writeThenRead(db, statements, protectedBranchesReads(db, pbId));
      } catch (err) {
        throw raceError(err, p.name) ?? err;
      }
      const { pb, names } = oneOr404(created);
      return c.json(present(c, [pb], names)[0], 201);
    },
  );

  r.route(
    { method: 'PATCH', path: '/projects/:id/protected_branches/:name', summary: 'Update a protected branch', tags: TAGS, params: updateProtectedBranchParams, responses: { 200: ProtectedBranchSchema } },
    async ({ c, p, caller }) => {
      const raw = await requestParams(c);
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => protectedBranchesReads(db, branchIdByName(pid, p.name)));
      const { project, namespace, level } = found;
      // `allow_blank: false` on allow_force_push.
      if (raw.allow_force_push === '' || raw.allow_force_push === null) throw grapeError('allow_force_push is empty');
      const { pb, names } = oneOr404(found.reads);
      await authorizeAdmin(c, caller, level, pb);
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
      if (!Object.keys(set).length && !levelsChange) return c.json(present(c, [pb], names)[0]);
      const statements: BatchItem<'sqlite'>[] = [db.update(protectedBranches).set({ ...set, updatedAt: now }).where(eq(protectedBranches.id, pb.id))];
      for (const kind of KINDS)
        for (const q of planned[kind]) {
          if (q.id !== undefined && q.destroy) statements.push(db.delete(protectedBranchAccessLevels).where(eq(protectedBranchAccessLevels.id, q.id)));
          else if (q.id !== undefined) {
            if (q.changed) statements.push(db.update(protectedBranchAccessLevels).set({ ...levelRow(q), updatedAt: now }).where(eq(protectedBranchAccessLevels.id, q.id)));
          }
        }
      statements.push(...insertLevels(c, pb.id, KINDS.flatMap((kind) => planned[kind].filter((q) => q.id === undefined).map((p) => ({ kind, p }))), now));
      let updated;
      try {
        updated = await writeThenRead(db, statements, protectedBranchesReads(db, sql`(${pb.id})`));
      } catch (err) {
        throw raceError(err, p.name) ?? err;
      }
      const after = oneOr404(updated);
      return c.json(present(c, [after.pb], after.names)[0]);
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/protected_branches/:name', summary: 'Unprotect a single branch', tags: TAGS, params: deleteProtectedBranchParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => protectedBranchesReads(db, branchIdByName(pid, p.name)));
      const { pb } = oneOr404(found.reads);
      await authorizeAdmin(c, caller, found.level, pb);
      checkUnmodifiedSince(c, pb.updatedAt);
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
