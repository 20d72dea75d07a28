/**
 * Geo nodes (GitLab ee/lib/api/geo_nodes.rb, ~15.x; spec doc 001 "Replication (geo) nodes"):
 * premium, administrators only. `before { authenticate_admin_or_geo_node! }` answers 401/403 before
 * parameters are validated; the plan is checked next, so a free instance refuses an administrator
 * with 403 whatever the parameters.
 */
import type { Context } from 'hono';
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { geoNodes } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { forbidden, notFound, recordNotFound } from '../platform/errors';
import { requireAdmin } from '../platform/guards';
import { requestParams } from '../platform/params';
import { baseUrl, linkParamsFrom, pageRequest, paginate, paginateSelect, paginationParams } from '../platform/pagination';
import { requirePlan } from '../platform/plan';
import { int, obj } from '../platform/response-schemas';
import type { RouteContext, RouteDef, Router } from '../platform/router';
import { g, params, validateParams, type ParamSpec } from '../platform/validate';
import { geoNodeEntity, GeoNodeSchema, type GeoNodeRow } from './geo-node-entity';
import { geoNodeStatusEntity, GeoNodeStatusSchema, runHealthCheck, statusCounts, type StatusCounts } from './geo-node-status';
import { createGeoNode, currentNodeName, updateGeoNode, type GeoNodeAttrs } from './geo-nodes';

const nodeAttrs = {
  enabled: g.bool().optional(),
  internal_url: g.string().optional(),
  files_max_capacity: g.int32().optional(),
  repos_max_capacity: g.int32().optional(),
  verification_max_capacity: g.int32().optional(),
  container_repositories_max_capacity: g.int32().optional(),
  sync_object_storage: g.bool().optional(),
  selective_sync_type: g.string().optional(),
  selective_sync_shards: g.csv().optional(),
  selective_sync_namespace_ids: g.intCsv().optional(),
  minimum_reverification_interval: g.int32().optional(),
};
const createParams = params({ primary: g.bool().optional(), name: g.string(), url: g.string(), ...nodeAttrs });
// The spec (doc 001) lists `name` and `url` as required on PUT.
const updateParams = params({ id: g.int(), name: g.string(), url: g.string(), ...nodeAttrs });
const idParams = params({ id: g.int() });
const statusParams = params({ id: g.int(), refresh: g.bool().optional() });
const failuresParams = params({ type: g.enum(['wiki', 'repository'] as const).optional(), failure_type: g.string().default('sync'), ...paginationParams });

/** GeoProjectRegistryEntity: a secondary's failed project registries (never any here). */
const GeoProjectRegistrySchema = obj({ id: int, project_id: int }).meta({ id: 'GeoProjectRegistry' });

/**
 * A route of this API: the router runs the admin check (401/403), then this checks the plan and
 * only then the parameters, in GitLab's order (`before` blocks run before Grape's validations).
 */
function geoRoute<S extends z.ZodRawShape>(r: Router, def: Omit<RouteDef<S>, 'admin' | 'tags'> & { params?: ParamSpec<S> }, handler: (ctx: RouteContext<S>) => Promise<Response>) {
  r.route({ ...def, params: undefined, admin: true, tags: ['geo_nodes'] }, async ({ c, caller }) => {
    requireAdmin(caller);
    requirePlan(c.var.config, 'premium');
    const p = def.params ? validateParams(def.params, await requestParams(c)) : ({} as z.output<z.ZodObject<S>>);
    return handler({ c, p, caller });
  });
  const record = r.records[r.records.length - 1];
  if (record && def.params) record.params = def.params as ParamSpec;
}

const present = (c: Context<AppEnv>, row: GeoNodeRow) => geoNodeEntity(row, baseUrl(c), currentNodeName(c));

/** A node row with this server's totals beside it: one statement. */
const nodeWithCounts = (c: Context<AppEnv>) => c.var.db.select({ node: geoNodes, ...statusCounts }).from(geoNodes);

/** `GeoNodeStatus.fast_current_node_status`: the current node's status, computed now with its check. */
async function currentStatus(c: Context<AppEnv>, rows: PromiseLike<({ node: GeoNodeRow } & StatusCounts)[]>) {
  const [found, health] = await Promise.all([rows, runHealthCheck(c.var.blobs)]);
  return { found, health };
}

export function mountGeoNodes(r: Router) {
  geoRoute(r, { method: 'POST', path: '/geo_nodes', summary: 'Create a new Geo node', params: createParams, responses: { 201: GeoNodeSchema } }, async ({ c, p }) => {
    const row = await createGeoNode(c, withNulls(await requestParams(c), p));
    return c.json(present(c, row), 201);
  });

  geoRoute(r, { method: 'GET', path: '/geo_nodes', summary: 'Retrieve the Geo nodes', params: params({ ...paginationParams }), responses: { 200: z.array(GeoNodeSchema) } }, async ({ c, p }) => {
    const rows = await paginateSelect(c, p, { table: geoNodes, orderBy: [asc(geoNodes.id)] });
    return c.json(rows.map((row) => present(c, row)));
  });

  // GeoNodeStatus.all: only the current node has a status; a secondary never reports to this server.
  geoRoute(r, { method: 'GET', path: '/geo_nodes/status', summary: 'Get the status of every Geo node', params: params({ ...paginationParams }), responses: { 200: z.array(GeoNodeStatusSchema) } }, async ({ c, p }) => {
    const { found, health } = await currentStatus(c, nodeWithCounts(c).where(eq(geoNodes.name, currentNodeName(c))));
    const all = found.map((f) => geoNodeStatusEntity(f.node, f, health, baseUrl(c)));
    const req = pageRequest(p, (await requestParams(c)).per_page);
    const page = await paginate(c, req, linkParamsFrom(await requestParams(c), {}), (limit, offset) => Promise.resolve(all.slice(offset, offset + limit)), () => Promise.resolve(all.length));
    return c.json(page);
  });

  geoRoute(r, { method: 'GET', path: '/geo_nodes/current/failures', summary: "Get the current Geo node's project registry failures", params: failuresParams, responses: { 200: z.array(GeoProjectRegistrySchema) } }, async ({ c, p }) => {
    const current = await c.var.db.select().from(geoNodes).where(eq(geoNodes.name, currentNodeName(c))).get();
    if (!current) throw notFound('Geo node not found');
    if (current.primary) throw forbidden('Failures can only be requested from a secondary node');
    if (!['sync', 'verification', 'checksum_mismatch'].includes(p.failure_type)) throw notFound('Failure type unknown');
    // A secondary's project registry: this server replicates nothing, so no registry ever failed.
    const req = pageRequest(p, (await requestParams(c)).per_page);
    return c.json(await paginate(c, req, linkParamsFrom(await requestParams(c), { failure_type: 'sync' }), () => Promise.resolve([]), () => Promise.resolve(0)));
  });

  geoRoute(r, { method: 'GET', path: '/geo_nodes/:id', summary: 'Get a single Geo node', params: idParams, responses: { 200: GeoNodeSchema } }, async ({ c, p }) => {
    const row = await c.var.db.select().from(geoNodes).where(eq(geoNodes.id, p.id)).get();
    // GeoNode.find raises ActiveRecord::RecordNotFound.
    if (!row) throw recordNotFound();
    return c.json(present(c, row));
  });

  geoRoute(r, { method: 'GET', path: '/geo_nodes/:id/status', summary: 'Get the status of a single Geo node', params: statusParams, responses: { 200: GeoNodeStatusSchema } }, async ({ c, p }) => {
    const { found, health } = await currentStatus(c, nodeWithCounts(c).where(eq(geoNodes.id, p.id)));
    const row = found[0];
    if (!row) throw recordNotFound();
    if (row.node.name !== currentNodeName(c)) throw notFound('Status for Geo node not found');
    return c.json(geoNodeStatusEntity(row.node, row, health, baseUrl(c)));
  });

  // The spec (doc 001) answers the node. Nothing needs repairing: the primary has no OAuth
  // application (GeoNode#missing_oauth_application? is false) and a secondary never signs in here.
  geoRoute(r, { method: 'POST', path: '/geo_nodes/:id/repair', summary: "Repair a Geo node's OAuth authentication", params: idParams, responses: { 200: GeoNodeSchema } }, async ({ c, p }) => {
    const row = await c.var.db.select().from(geoNodes).where(eq(geoNodes.id, p.id)).get();
    if (!row) throw recordNotFound();
    return c.json(present(c, row), 200);
  });

  geoRoute(r, { method: 'PUT', path: '/geo_nodes/:id', summary: 'Update a Geo node', params: updateParams, responses: { 200: GeoNodeSchema } }, async ({ c, p }) => {
    const { id, ...attrs } = p;
    const row = await updateGeoNode(c, id, withNulls(await requestParams(c), attrs));
    return c.json(present(c, row));
  });

  geoRoute(r, { method: 'DELETE', path: '/geo_nodes/:id', summary: 'Delete a Geo node', params: idParams, responses: { 204: null } }, async ({ c, p }) => {
    const gone = await c.var.db.delete(geoNodes).where(eq(geoNodes.id, p.id)).returning({ id: geoNodes.id });
    if (!gone.length) throw recordNotFound();
    return c.body(null, 204);
  });
}

/** `selective_sync_type: null` is declared and sent as nil: it resets selective sync (the validator drops nulls). */
function withNulls(raw: Record<string, unknown>, p: GeoNodeAttrs): GeoNodeAttrs {
  return raw.selective_sync_type === null ? { ...p, selective_sync_type: null } : p;
}
