/**
 * Project webhooks (lib/api/project_hooks.rb): every route runs `authenticate!`, then
 * `read_web_hook` / `admin_web_hook`, both maintainers and above (ProjectPolicy); the token is
 * write-only. A hook of another project answers 404 "Not found" (`hooks.find`).
 */
import { and, count, eq, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import { webHookDeliveries, webHookLogs, webHooks } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { conflict, recordNotFound } from '../platform/errors';
import { linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { ACCESS, requireProjectLevel } from '../projects/abilities';
import { findReadableProjectWith } from '../projects/projects';
import { projectHookEntity, ProjectHookSchema } from './hook-entity';
import { hookValues, unchangedSince } from './hook-store';
import { createProjectHookParams, projectHookListParams, projectHookParams, updateProjectHookParams } from './hooks-params';

const TAGS = ['project_hooks'];

export const hookOfProject = (pid: SQL, hookId: number) => and(eq(webHooks.id, hookId), eq(webHooks.type, 'ProjectHook'), eq(webHooks.projectId, pid));

/** The project (maintainer and above) and, in the same round trip, `reads`. */
export async function maintainedProject<const R extends readonly import('drizzle-orm/batch').BatchItem<'sqlite'>[]>(c: Context<AppEnv>, caller: Caller, id: string, reads: (pid: SQL) => R) {
  const found = await findReadableProjectWith(c, caller, id, reads);
  requireProjectLevel(caller, found.level, ACCESS.MAINTAINER);
  return found;
}

/** Deletes a hook with its deliveries and logs (WebHooks::DestroyService). */
export const hookDeletion = (c: Context<AppEnv>, hookId: number) => [
  c.var.db.delete(webHookLogs).where(eq(webHookLogs.webHookId, hookId)),
  c.var.db.delete(webHookDeliveries).where(eq(webHookDeliveries.webHookId, hookId)),
  c.var.db.delete(webHooks).where(eq(webHooks.id, hookId)),
];

export function mountProjectHooks(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/hooks', summary: 'List project hooks', tags: TAGS, signedIn: true, params: projectHookListParams, responses: { 200: z.array(ProjectHookSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const req = pageRequest(p, (await requestParams(c)).per_page);
      const where = (pid: SQL) => and(eq(webHooks.type, 'ProjectHook'), eq(webHooks.projectId, pid));
      const found = await maintainedProject(c, caller, p.id, (pid) => [
        db.select().from(webHooks).where(where(pid)).orderBy(webHooks.id).limit(req.perPage).offset(req.offset),
        db.select({ n: count() }).from(webHooks).where(where(pid)),
      ] as const);
      const [rows, [counted]] = found.reads;
      const n = Number(counted?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(await requestParams(c), {}), n > MAX_COUNT ? null : n, rows.length);
      return c.json(rows.map((h) => projectHookEntity(h)));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/hooks/:hook_id', summary: 'Get a project hook', tags: TAGS, signedIn: true, params: projectHookParams, responses: { 200: ProjectHookSchema } },
    async ({ c, p, caller }) => {
      const found = await maintainedProject(c, caller, p.id, (pid) => [c.var.db.select().from(webHooks).where(hookOfProject(pid, p.hook_id)).limit(1)] as const);
      const [[hook]] = found.reads;
      if (!hook) throw recordNotFound();
      return c.json(projectHookEntity(hook));
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/hooks', summary: 'Add a project hook', tags: TAGS, signedIn: true, params: createProjectHookParams, responses: { 201: ProjectHookSchema } },
    async ({ c, p, caller }) => {
      const found = await maintainedProject(c, caller, p.id, () => [] as const);
      const values = await hookValues(c, p, null, false);
      const [hook] = await c.var.db
        .insert(webHooks)
        .values({ ...values, url: p.url, type: 'ProjectHook', projectId: found.project.id, createdAt: Date.now() })
        .returning();
      return c.json(projectHookEntity(hook), 201);
    },
  );

  r.route(
    { method: 'PUT', path: '/projects/:id/hooks/:hook_id', summary: 'Edit a project hook', tags: TAGS, signedIn: true, params: updateProjectHookParams, responses: { 200: ProjectHookSchema } },
    async ({ c, p, caller }) => {
      const found = await maintainedProject(c, caller, p.id, (pid) => [c.var.db.select().from(webHooks).where(hookOfProject(pid, p.hook_id)).limit(1)] as const);
      const [[before]] = found.reads;
      if (!before) throw recordNotFound();
      const values = await hookValues(c, p, before, false);
      if (!Object.keys(values).length) return c.json(projectHookEntity(before));
      const [hook] = await c.var.db.update(webHooks).set(values).where(unchangedSince(before, values)).returning();
      // Gone meanwhile, or (409) its variables or headers changed since they were read and merged.
      if (!hook) throw 'urlVariables' in values || 'customHeaders' in values ? conflict() : recordNotFound();
      return c.json(projectHookEntity(hook));
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/hooks/:hook_id', summary: 'Delete a project hook', tags: TAGS, signedIn: true, params: projectHookParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const found = await maintainedProject(c, caller, p.id, (pid) => [c.var.db.select({ id: webHooks.id }).from(webHooks).where(hookOfProject(pid, p.hook_id)).limit(1)] as const);
      const [[hook]] = found.reads;
      if (!hook) throw recordNotFound();
      const [first, ...rest] = hookDeletion(c, hook.id);
      await c.var.db.batch([first, ...rest]);
      return c.body(null, 204);
    },
  );
}

