/**
 * Group webhooks (ee/lib/api/group_hooks.rb): `authenticate!`, then `admin_hook` on the group,
 * which GroupPolicy gives owners (and administrators). They fire for events of every project
 * below the group.
 */
import { and, count, desc, eq, gte, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import { projects, webHookLogs, webHooks } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, conflict, forbidden, recordNotFound } from '../platform/errors';
import { linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { ACCESS } from '../projects/abilities';
import { findReadableGroupWith } from '../projects/groups';
import { groupHookEntity, GroupHookSchema, webHookLogEntity, WebHookLogSchema } from './hook-entity';
import { eventsRequest, hookEventsAnswer, hookEventsReads, runHookTest, sampleReads } from './hook-test-routes';
import { hookValues, unchangedSince } from './hook-store';
import { createGroupHookParams, groupHookListParams, hookEventsParams, groupHookParams, resendHookParams, testHookParams, updateGroupHookParams } from './hooks-params';
import { hookDeletion } from './project-hooks-routes';
import { resendLog, ResendSchema } from './resend';

const TAGS = ['group_hooks'];
export const hookOfGroup = (gid: SQL, hookId: number) => and(eq(webHooks.id, hookId), eq(webHooks.type, 'GroupHook'), eq(webHooks.groupId, gid));

export async function ownedGroup<const R extends readonly import('drizzle-orm/batch').BatchItem<'sqlite'>[]>(c: Context<AppEnv>, caller: Caller, id: string, reads: (gid: SQL) => R) {
  const found = await findReadableGroupWith(c, caller, id, reads);
  if (!caller.isAdmin && found.level < ACCESS.OWNER) throw forbidden();
  return found;
}

export function mountGroupHooks(r: Router) {
  r.route(
    { method: 'GET', path: '/groups/:id/hooks', summary: 'List group hooks', tags: TAGS, signedIn: true, params: groupHookListParams, responses: { 200: z.array(GroupHookSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const req = pageRequest(p, (await requestParams(c)).per_page);
      const where = (gid: SQL) => and(eq(webHooks.type, 'GroupHook'), eq(webHooks.groupId, gid));
      const found = await ownedGroup(c, caller, p.id, (gid) => [
        db.select().from(webHooks).where(where(gid)).orderBy(webHooks.id).limit(req.perPage).offset(req.offset),
        db.select({ n: count() }).from(webHooks).where(where(gid)),
      ] as const);
      const [rows, [counted]] = found.reads;
      const n = Number(counted?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(await requestParams(c), {}), n > MAX_COUNT ? null : n, rows.length);
      return c.json(rows.map((h) => groupHookEntity(h)));
    },
  );

  r.route(
    { method: 'GET', path: '/groups/:id/hooks/:hook_id', summary: 'Get a group hook', tags: TAGS, signedIn: true, params: groupHookParams, responses: { 200: GroupHookSchema } },
    async ({ c, p, caller }) => {
      const found = await ownedGroup(c, caller, p.id, (gid) => [c.var.db.select().from(webHooks).where(hookOfGroup(gid, p.hook_id)).limit(1)] as const);
      const [[hook]] = found.reads;
      if (!hook) throw recordNotFound();
      return c.json(groupHookEntity(hook));
    },
  );

  r.route(
    { method: 'POST', path: '/groups/:id/hooks', summary: 'Add a group hook', tags: TAGS, signedIn: true, params: createGroupHookParams, responses: { 201: GroupHookSchema } },
    async ({ c, p, caller }) => {
      const found = await ownedGroup(c, caller, p.id, () => [] as const);
      const values = await hookValues(c, p, null, true);
      const [hook] = await c.var.db
        .insert(webHooks)
        .values({ ...values, url: p.url, type: 'GroupHook', groupId: found.group.id, createdAt: Date.now() })
        .returning();
      return c.json(groupHookEntity(hook), 201);
    },
  );

  r.route(
    { method: 'PUT', path: '/groups/:id/hooks/:hook_id', summary: 'Edit a group hook', tags: TAGS, signedIn: true, params: updateGroupHookParams, responses: { 200: GroupHookSchema } },
    async ({ c, p, caller }) => {
      const found = await ownedGroup(c, caller, p.id, (gid) => [c.var.db.select().from(webHooks).where(hookOfGroup(gid, p.hook_id)).limit(1)] as const);
      const [[before]] = found.reads;
      if (!before) throw recordNotFound();
      const values = await hookValues(c, p, before, true);
      if (!Object.keys(values).length) return c.json(groupHookEntity(before));
      const [hook] = await c.var.db.update(webHooks).set(values).where(unchangedSince(before, values)).returning();
      // Gone meanwhile, or (409) its variables or headers changed since they were read and merged.
      if (!hook) throw 'urlVariables' in values || 'customHeaders' in values ? conflict() : recordNotFound();
      return c.json(groupHookEntity(hook));
    },
  );

  r.route(
    { method: 'DELETE', path: '/groups/:id/hooks/:hook_id', summary: 'Delete a group hook', tags: TAGS, signedIn: true, params: groupHookParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const found = await ownedGroup(c, caller, p.id, (gid) => [c.var.db.select({ id: webHooks.id }).from(webHooks).where(hookOfGroup(gid, p.hook_id)).limit(1)] as const);
      const [[hook]] = found.reads;
      if (!hook) throw recordNotFound();
      const [first, ...rest] = hookDeletion(c, hook.id);
      await c.var.db.batch([first, ...rest]);
      return c.body(null, 204);
    },
  );

  // GET /groups/:id/hooks/:hook_id/events: group_hooks.rb mounts the same API::Hooks::Events as projects.
  r.route(
    { method: 'GET', path: '/groups/:id/hooks/:hook_id/events', summary: 'List the events of a group hook', tags: TAGS, signedIn: true, params: hookEventsParams, responses: { 200: z.array(WebHookLogSchema) } },
    async ({ c, p, caller }) => {
      const page = await eventsRequest(c, p);
      const found = await ownedGroup(c, caller, p.id, (gid) => hookEventsReads(c.var.db, { type: 'GroupHook', column: 'group_id', id: gid }, p.hook_id, page));
      return hookEventsAnswer(c, page, found.reads as never);
    },
  );

  // POST /groups/:id/hooks/:hook_id/test/:trigger (TestHooks::GroupService): the project test, run
  // with the group's first project that has commits (Group#first_non_empty_project).
  r.route(
    { method: 'POST', path: '/groups/:id/hooks/:hook_id/test/:trigger', summary: 'Trigger a test group hook', tags: TAGS, signedIn: true, params: testHookParams, responses: { 201: z.object({ message: z.string() }) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const firstProject = (gid: SQL) => sql`(SELECT id FROM projects WHERE namespace_id = ${gid} AND EXISTS (SELECT 1 FROM repo_branches b WHERE b.project_id = projects.id) ORDER BY id LIMIT 1)`;
      const found = await ownedGroup(c, caller, p.id, (gid) => [
        db.select().from(webHooks).where(hookOfGroup(gid, p.hook_id)).limit(1),
        db.select({ id: projects.id, defaultBranch: projects.defaultBranch }).from(projects).where(sql`${projects.id} = ${firstProject(gid)}`).limit(1),
        ...sampleReads(db, firstProject(gid)),
      ] as const);
      const [[hook], [project], [issue], [note], [mr]] = found.reads;
      if (!hook) throw recordNotFound();
      if (!project) throw new ApiError(422, { message: 'Ensure the group has a project with commits.' });
      return runHookTest(c, caller, hook, project, p.trigger, { issue, note, mr });
    },
  );

  r.route(
    { method: 'POST', path: '/groups/:id/hooks/:hook_id/events/:hook_log_id/resend', summary: 'Resend a group webhook event', tags: TAGS, signedIn: true, params: resendHookParams, responses: { 201: ResendSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await ownedGroup(c, caller, p.id, (gid) => [
        db.select().from(webHooks).where(hookOfGroup(gid, p.hook_id)).limit(1),
        db.select().from(webHookLogs).where(and(eq(webHookLogs.id, p.hook_log_id), sql`${webHookLogs.webHookId} = (SELECT id FROM web_hooks WHERE id = ${p.hook_id} AND type = 'GroupHook' AND group_id = ${gid})`)).limit(1),
      ] as const);
      const [[hook], [log]] = found.reads;
      return resendLog(c, caller, hook, log);
    },
  );
}
