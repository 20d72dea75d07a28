/**
 * PUT/DELETE …/hooks/:hook_id/url_variables/:key and …/custom_headers/:key, for project and group
 * hooks (lib/api/hooks/url_variables.rb, custom_headers.rb, mounted by project_hooks.rb and
 * group_hooks.rb): `hook.update` of the merged map, so the model's callbacks and validations run
 * (hook-store.ts); 204 on success, 422 with the route's words when the hook would be invalid, 404
 * for an unknown hook or (on delete) key.
 */
import type { SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { webHooks } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { conflict, notFound, recordNotFound, unprocessable } from '../platform/errors';
import type { Router } from '../platform/router';
import type { WebHookRow } from './hook-entity';
import { applyResets, draftErrors, type HookDraft, unchangedSince, urlMoved, varColumns } from './hook-store';
import { mergeVars, openVars } from './hook-variables';
import { customHeaderParams, setCustomHeaderParams, setUrlVariableParams, urlVariableParams } from './hooks-params';
import { hookOfGroup, ownedGroup } from './group-hooks-routes';
import { hookOfProject, maintainedProject } from './project-hooks-routes';

type Find = (c: Context<AppEnv>, caller: Caller, id: string, hookId: number) => Promise<WebHookRow | undefined>;

const projectHook: Find = async (c, caller, id, hookId) => {
  const found = await maintainedProject(c, caller, id, (pid: SQL) => [c.var.db.select().from(webHooks).where(hookOfProject(pid, hookId)).limit(1)] as const);
  return found.reads[0][0];
};
const groupHook: Find = async (c, caller, id, hookId) => {
  const found = await ownedGroup(c, caller, id, (gid: SQL) => [c.var.db.select().from(webHooks).where(hookOfGroup(gid, hookId)).limit(1)] as const);
  return found.reads[0][0];
};

type Kind = 'vars' | 'headers';
/** Compare-and-set tries before a 409: enough for every concurrent writer a hook plausibly has. */
const ATTEMPTS = 8;

/**
 * `hook.update(kind => change(map))`: the change, the model's resets and validations, one
 * compare-and-set write. A concurrent change of the maps makes the write miss; it is redone on the
 * fresh row, so neither request's key is lost (409 only if that keeps happening).
 */
async function updateMap(c: Context<AppEnv>, find: () => Promise<WebHookRow | undefined>, kind: Kind, change: (map: HookDraft[Kind]) => HookDraft[Kind] | 'missing', refusal: string, missing: string) {
  for (let attempt = 0; ; attempt++) {
    const hook = await find();
    if (!hook) throw recordNotFound();
    const was: HookDraft = { url: hook.url, vars: await openVars(c.var.config, hook.urlVariables), headers: await openVars(c.var.config, hook.customHeaders) };
    const changed = change(was[kind]);
    if (changed === 'missing') throw notFound(missing);
    const draft = applyResets(was, { ...was, [kind]: changed });
    if (Object.keys(await draftErrors(c, draft, urlMoved(was, draft))).length) throw unprocessable(refusal);
    const values = await varColumns(c, was, draft);
    if (!Object.keys(values).length) return c.body(null, 204);
    const written = await c.var.db.update(webHooks).set(values).where(unchangedSince(hook, values)).returning({ id: webHooks.id });
    if (written.length) return c.body(null, 204);
    if (attempt >= ATTEMPTS - 1) throw conflict();
  }
}

function mountFor(r: Router, base: string, tags: string[], find: Find, noun: string) {
  r.route(
    { method: 'PUT', path: `${base}/:hook_id/url_variables/:key`, summary: `Set a URL variable of a ${noun} hook`, tags, signedIn: true, params: setUrlVariableParams, responses: { 204: null } },
    async ({ c, p, caller }) =>
      updateMap(c, () => find(c, caller, p.id, p.hook_id), 'vars', (vars) => mergeVars(vars, [[p.key, p.value]]), 'Illegal key or value', 'URL variable'),
  );
  r.route(
    { method: 'DELETE', path: `${base}/:hook_id/url_variables/:key`, summary: `Delete a URL variable of a ${noun} hook`, tags, signedIn: true, params: urlVariableParams, responses: { 204: null } },
    async ({ c, p, caller }) =>
      updateMap(c, () => find(c, caller, p.id, p.hook_id), 'vars', (vars) => (vars.some(([k]) => k === p.key) ? vars.filter(([k]) => k !== p.key) : 'missing'), 'Could not unset variable', 'URL variable'),
  );
  r.route(
    { method: 'PUT', path: `${base}/:hook_id/custom_headers/:key`, summary: `Set a custom header of a ${noun} hook`, tags, signedIn: true, params: setCustomHeaderParams, responses: { 204: null } },
    async ({ c, p, caller }) =>
      updateMap(c, () => find(c, caller, p.id, p.hook_id), 'headers', (headers) => mergeVars(headers, [[p.key, p.value]]), 'Illegal key or value', 'Custom header'),
  );
  r.route(
    { method: 'DELETE', path: `${base}/:hook_id/custom_headers/:key`, summary: `Delete a custom header of a ${noun} hook`, tags, signedIn: true, params: customHeaderParams, responses: { 204: null } },
    async ({ c, p, caller }) =>
      updateMap(c, () => find(c, caller, p.id, p.hook_id), 'headers', (headers) => (headers.some(([k]) => k === p.key) ? headers.filter(([k]) => k !== p.key) : 'missing'), 'Could not unset custom header', 'Custom header'),
  );
}

export function mountHookVariables(r: Router) {
  mountFor(r, '/projects/:id/hooks', ['project_hooks'], projectHook, 'project');
  mountFor(r, '/groups/:id/hooks', ['group_hooks'], groupHook, 'group');
}
