/**
 * Protected environments of a project (ee/lib/api/protected_environments.rb, Premium): every route
 * runs `authorize! :admin_protected_environments` (maintainers and above, and only where the plan
 * has the feature: 403 otherwise) after the project lookup (404 for a hidden project).
 */
import { asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { writeThenRead } from '../db/batch-reads';
import { protectedEnvironmentEntries, protectedEnvironments } from '../db/schema';
import { checkUnmodifiedSince } from '../platform/conditional';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, conflict, grapeError, recordNotFound } from '../platform/errors';
import { countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { requirePlan } from '../platform/plan';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { ACCESS, requireProjectLevel } from '../projects/abilities';
import { findReadableProjectWith } from '../projects/projects';
import type { Context } from 'hono';
import { protectedEnvironmentEntity, ProtectedEnvironmentSchema } from './protected-environment-entity';
import {
  approvalRuleParamErrors,
  createProtectedEnvironmentParams,
  listProtectedEnvironmentsParams,
  oneProtectedEnvironmentParams,
  updateProtectedEnvironmentParams,
} from './protected-environments-params';
import {
  entryNameReads,
  entryNames,
  entryStatements,
  paramGroupIds,
  paramUserIds,
  planEntries,
  protectedEnvironmentErrors,
  protectedEnvironmentReads,
  refuseApprovalCount,
  sharedGroupsRead,
  usersWithLevel,
} from './protected-environments';

const TAGS = ['protected_environments'];

/** `admin_protected_environments`: the plan's feature, then maintainer access. */
function authorizeAdmin(c: Context<AppEnv>, caller: Caller, level: number) {
  requirePlan(c.var.config, 'premium');
  requireProjectLevel(caller, level, ACCESS.MAINTAINER);
}

/** What planEntries judges entries on, from the lookup batch's reads of the named users and groups. */
const qualifiers = (userRows: { id: number; level: unknown }[], groupRows: { id: number }[]) => ({
  levels: new Map(userRows.map((u) => [u.id, Number(u.level)])),
  shared: new Set(groupRows.map((g) => g.id)),
});

const invalid = (messages: string[]) => new ApiError(422, { message: messages });

export function mountProtectedEnvironments(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/protected_environments', summary: 'List all protected environments for a project', tags: TAGS, params: listProtectedEnvironmentsParams, responses: { 200: z.array(ProtectedEnvironmentSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      // sorted_by_name; the page's entries and the names they show hang off the page query.
      const ofProject = (pid: unknown) => sql`${protectedEnvironments.projectId} = ${pid}`;
      const pageIds = (pid: unknown) => sql`(SELECT id FROM (SELECT ${protectedEnvironments.id} AS id FROM ${protectedEnvironments} WHERE ${ofProject(pid)} ORDER BY ${protectedEnvironments.name}, ${protectedEnvironments.id} LIMIT ${req.perPage} OFFSET ${req.offset}))`;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        db.select().from(protectedEnvironments).where(ofProject(pid)).orderBy(asc(protectedEnvironments.name), asc(protectedEnvironments.id)).limit(req.perPage).offset(req.offset),
        db.select().from(protectedEnvironmentEntries).where(sql`${protectedEnvironmentEntries.protectedEnvironmentId} IN ${pageIds(pid)}`).orderBy(protectedEnvironmentEntries.id),
        ...entryNameReads(db, sql`protected_environment_id IN ${pageIds(pid)}`),
        countUpToQuery(db, protectedEnvironments, ofProject(pid), MAX_COUNT + 1),
      ] as const);
      authorizeAdmin(c, caller, found.level);
      const [rows, entries, userNames, groupNames, counted] = found.reads;
      const n = Number(counted[0]?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), n > MAX_COUNT ? null : n, rows.length);
      const names = entryNames(userNames, groupNames);
      return c.json(rows.map((pe) => protectedEnvironmentEntity(pe, entries, names)));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/protected_environments/:name', summary: 'Retrieve a protected environment for a project', tags: TAGS, params: oneProtectedEnvironmentParams, responses: { 200: ProtectedEnvironmentSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      let peId: ReturnType<typeof protectedEnvironmentReads>['peId'] | undefined;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => {
        const one = protectedEnvironmentReads(db, pid, p.name);
        peId = one.peId;
        return [...one.reads, ...entryNameReads(db, sql`protected_environment_id = ${peId}`)] as const;
      });
      authorizeAdmin(c, caller, found.level);
      const [pes, entries, userNames, groupNames] = found.reads;
      if (!pes[0]) throw recordNotFound();
      return c.json(protectedEnvironmentEntity(pes[0], entries, entryNames(userNames, groupNames)));
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/protected_environments', summary: 'Protect an environment for a project', tags: TAGS, params: createProtectedEnvironmentParams, responses: { 201: ProtectedEnvironmentSchema } },
    async ({ c, p, caller }) => {
      const paramErrors = approvalRuleParamErrors(p.approval_rules);
      if (paramErrors.length) throw grapeError(paramErrors.join(', '));
      const db = c.var.db;
      const userIds = paramUserIds(p.deploy_access_levels, p.approval_rules);
      const groupIds = paramGroupIds(p.deploy_access_levels, p.approval_rules);
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [protectedEnvironmentReads(db, pid, p.name).reads[0], usersWithLevel(db, pid, userIds), sharedGroupsRead(db, pid, groupIds)] as const);
      authorizeAdmin(c, caller, found.level);
      refuseApprovalCount(p.required_approval_count);
      const [existing, userRows, groupRows] = found.reads;
      if (existing[0]) throw conflict(`Environment '${p.name}' is already protected`);
      const plan = planEntries([], p.deploy_access_levels, p.approval_rules, qualifiers(userRows, groupRows));
      const errors = protectedEnvironmentErrors(p.name, p.required_approval_count, plan);
      if (errors.length) throw invalid(errors);
      const projectId = found.project.id;
      const now = Date.now();
      const { peId, reads } = protectedEnvironmentReads(db, sql`${projectId}`, p.name);
      const [pes, entries] = await guarded(p.name, () =>
        writeThenRead(
          db,
          [
            db.insert(protectedEnvironments).values({ projectId, name: p.name, requiredApprovalCount: p.required_approval_count, createdAt: now, updatedAt: now }),
            ...entryStatements(db, peId, plan),
          ],
          reads,
        ),
      );
      return c.json(protectedEnvironmentEntity(pes[0], entries, entryNames([], groupRows, userRows)), 201);
    },
  );

  r.route(
    { method: 'PUT', path: '/projects/:id/protected_environments/:name', summary: 'Update a protected environment for a project', tags: TAGS, params: updateProtectedEnvironmentParams, responses: { 200: ProtectedEnvironmentSchema } },
    async ({ c, p, caller }) => {
      const paramErrors = approvalRuleParamErrors(p.approval_rules);
      if (paramErrors.length) throw grapeError(paramErrors.join(', '));
      const db = c.var.db;
      const userIds = paramUserIds(p.deploy_access_levels, p.approval_rules);
      const groupIds = paramGroupIds(p.deploy_access_levels, p.approval_rules);
      let peIdSql: ReturnType<typeof protectedEnvironmentReads>['peId'] | undefined;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => {
        const one = protectedEnvironmentReads(db, pid, p.name);
        peIdSql = one.peId;
        return [...one.reads, usersWithLevel(db, pid, userIds), sharedGroupsRead(db, pid, groupIds), ...entryNameReads(db, sql`protected_environment_id = ${peIdSql}`)] as const;
      });
      authorizeAdmin(c, caller, found.level);
      const [pes, existing, userRows, groupRows, userNames, groupNames] = found.reads;
      const pe = pes[0];
      if (!pe) throw recordNotFound();
      refuseApprovalCount(p.required_approval_count);
      const plan = planEntries(existing, p.deploy_access_levels, p.approval_rules, qualifiers(userRows, groupRows));
      const count = p.required_approval_count ?? pe.requiredApprovalCount;
      const errors = protectedEnvironmentErrors(pe.name, count, plan);
      if (errors.length) throw invalid(errors);
      const [after, entries] = await writeThenRead(
        db,
        [db.update(protectedEnvironments).set({ requiredApprovalCount: count, updatedAt: Date.now() }).where(eq(protectedEnvironments.id, pe.id)), ...entryStatements(db, pe.id, plan)],
        protectedEnvironmentReads(db, sql`${pe.projectId}`, pe.name).reads,
      );
      return c.json(protectedEnvironmentEntity(after[0], entries, entryNames(userNames, [...groupNames, ...groupRows], userRows)));
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/protected_environments/:name', summary: 'Unprotect a protected environment for a project', tags: TAGS, params: oneProtectedEnvironmentParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [protectedEnvironmentReads(db, pid, p.name).reads[0]] as const);
      authorizeAdmin(c, caller, found.level);
      const pe = found.reads[0][0];
      if (!pe) throw recordNotFound();
      checkUnmodifiedSince(c, pe.updatedAt);
      await db.batch([db.delete(protectedEnvironmentEntries).where(eq(protectedEnvironmentEntries.protectedEnvironmentId, pe.id)), db.delete(protectedEnvironments).where(eq(protectedEnvironments.id, pe.id))]);
      return c.body(null, 204);
    },
  );
}

/** Two requests protecting one name at once: the loser gets the 409 the check gives. */
async function guarded<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`Environment '${name}' is already protected`);
    throw err;
  }
}
