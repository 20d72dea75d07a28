/** Feature flags (GitLab lib/api/features.rb, app/services/admin/set_feature_flag_service.rb), administrators only. */
import { inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { batchReads, writeThenRead } from '../db/batch-reads';
import { namespaces, projects, users } from '../db/schema';
import { badRequest } from '../platform/errors';
import { obj } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { definitionOf, FEATURE_DEFINITIONS } from './definitions';
import { gateStatements, type GateOp, removeStatements } from './flag-writes';
import { flagsRead, invalidateFlags, readFlags, type FlagSnapshot } from './flags';
import { type Actor, groupActor, gateValues, type GateValues, presentGates, projectActor, stateOf, userActor, userNamespaceActor } from './flipper';

const TAGS = ['features'];

const DefinitionSchema = obj({
  name: z.string(),
  introduced_by_url: z.string().nullable(),
  rollout_issue_url: z.string().nullable(),
  milestone: z.string().nullable(),
  type: z.string(),
  group: z.string(),
  default_enabled: z.boolean(),
}).meta({ id: 'FeatureDefinition' });

const FeatureSchema = obj({
  name: z.string(),
  state: z.enum(['on', 'off', 'conditional']),
  gates: z.array(obj({ key: z.string(), value: z.union([z.boolean(), z.number(), z.array(z.string())]) })),
  definition: DefinitionSchema.nullable(),
}).meta({ id: 'Feature' });

const TARGETS = ['feature_group', 'user', 'group', 'namespace', 'project'] as const;

const nameParams = params({ name: g.string() });
const setParams = params(
  {
    name: g.string(),
    value: g.string(),
    key: g.string().optional(),
    feature_group: g.string().optional(),
    user: g.string().optional(),
    group: g.string().optional(),
    namespace: g.string().optional(),
    project: g.string().optional(),
    force: g.bool().optional(),
  },
  TARGETS.map((t) => ({ mutuallyExclusive: ['key', t] })),
);

const present = (name: string, values: GateValues | undefined) => {
  const v = values ?? gateValues([]);
  return { name, state: stateOf(v), gates: presentGates(v), definition: definitionOf(name) };
};

export function mountFeatures(r: Router) {
  r.route({ method: 'GET', path: '/features', summary: 'List all persisted features, with their gate values', tags: TAGS, admin: true, responses: { 200: z.array(FeatureSchema) } }, async ({ c }) => {
    const flags = await readFlags(c.var.db);
    return c.json([...flags].map(([name, values]) => present(name, values)));
  });

  r.route({ method: 'GET', path: '/features/definitions', summary: 'List all feature definitions', tags: TAGS, admin: true, responses: { 200: z.array(DefinitionSchema) } }, ({ c }) =>
    c.json(FEATURE_DEFINITIONS.map((d) => ({ ...d }))),
  );

  r.route({ method: 'POST', path: '/features/:name', summary: 'Set or create a feature', tags: TAGS, admin: true, params: setParams, responses: { 201: FeatureSchema } }, async ({ c, p }) => {
    const db = c.var.db;
    const given = TARGETS.filter((t) => p[t] !== undefined);
    const [flags, targets] = await readState(db, p);
    const ops = given.length ? targetOps(p.name, p.value, targets) : globalOps(p.name, p.value, p.key, flags.get(p.name));
    const [rows] = await writeThenRead(db, gateStatements(db, p.name, ops), [gatesOfQuery(db, p.name)]);
    invalidateFlags(db);
    return c.json(present(p.name, gateValues(rows)), 201);
  });

  r.route({ method: 'DELETE', path: '/features/:name', summary: 'Delete a feature (the same answer whether or not it existed)', tags: TAGS, admin: true, params: nameParams, responses: { 204: null } }, async ({ c, p }) => {
    await c.var.db.batch(removeStatements(c.var.db, p.name) as never);
    invalidateFlags(c.var.db);
    return c.body(null, 204);
  });
}

const gatesOfQuery = (db: Db, name: string) => db.select({ key: sql<string>`key`, value: sql<string>`value` }).from(sql`feature_gates`).where(sql`feature_key = ${name}`).orderBy(sql`id`);

type SetParams = { name: string; value: string; key?: string } & Partial<Record<(typeof TARGETS)[number], string>>;

/** `Feature::Target#targets`: every listed target, in GitLab's order; an unknown one is a 400. */
type Target = { label: string; gate: { key: 'actors'; actor: Actor } | { key: 'groups'; group: string } };

const list = (s: string | undefined) => (s === undefined ? [] : s.split(','));
const lowered = (s: string[]) => s.map((x) => x.toLowerCase());

/** The current flags and the rows the targets name, in one round trip (the write and its read-back are the second). */
async function readState(db: Db, p: SetParams): Promise<[FlagSnapshot, Target[]]> {
  const [u, pr, gr, ns] = [list(p.user), list(p.project), list(p.group), list(p.namespace)];
  const fullPath = sql<string>`lower(${namespaces.fullPath} || '/' || ${projects.path})`;
  const flagsNow = flagsRead(db);
  const [flagRows, userRows, projectRows, groupRows, namespaceRows] = await batchReads(db, [
    flagsNow.query,
    u.length ? db.select({ id: users.id, path: sql<string>`lower(${users.username})` }).from(users).where(inArray(sql`lower(${users.username})`, lowered(u))) : undefined,
    pr.length ? db.select({ id: projects.id, path: fullPath }).from(projects).innerJoin(namespaces, sql`${namespaces.id} = ${projects.namespaceId}`).where(inArray(fullPath, lowered(pr))) : undefined,
    gr.length ? db.select({ id: namespaces.id, path: sql<string>`lower(${namespaces.fullPath})` }).from(namespaces).where(sql`${namespaces.kind} = 'Group' and ${inArray(sql`lower(${namespaces.fullPath})`, lowered(gr))}`) : undefined,
    ns.length ? db.select({ id: namespaces.id, kind: namespaces.kind, path: sql<string>`lower(${namespaces.fullPath})` }).from(namespaces).where(inArray(sql`lower(${namespaces.fullPath})`, lowered(ns))) : undefined,
  ]);
  const flags = flagsNow.snapshot(flagRows);
  const find = <R extends { path: string }>(rows: R[] | undefined, arg: string): R => {
    const row = rows?.find((x) => x.path === arg.toLowerCase());
    if (!row) throw badRequest(`${arg} is not found!`);
    return row;
  };
  const targets: Target[] = [
    ...(p.feature_group !== undefined ? [{ label: p.feature_group, gate: { key: 'groups' as const, group: p.feature_group } }] : []),
    ...u.map((arg) => actorTarget(userActor(find(userRows, arg).id))),
    ...pr.map((arg) => actorTarget(projectActor(find(projectRows, arg).id))),
    ...gr.map((arg) => actorTarget(groupActor(find(groupRows, arg).id))),
    ...ns.map((arg) => {
      const row = find(namespaceRows, arg);
      return actorTarget(row.kind === 'Group' ? groupActor(row.id) : userNamespaceActor(row.id));
    }),
  ];
  return [flags, targets];
}

const actorTarget = (actor: Actor): Target => ({ label: actor.flipperId, gate: { key: 'actors', actor } });

// `key` is not considered: 100 and 0 mean on and off whatever the key says (set_feature_flag_service.rb).
const isEnable = (v: string) => ['100', '100.0', 'true'].includes(v);
const isDisable = (v: string) => ['0', '0.0', 'false'].includes(v);
const isNumeric = (v: string) => /^\d+(\.\d+)?$/.test(v);
const inspect = (v: string) => JSON.stringify(v);

function targetOps(name: string, value: string, targets: Target[]): GateOp[] {
  return targets.map((t): GateOp => {
    const op = isEnable(value) ? 'enableIn' : isDisable(value) ? 'disableIn' : null;
    if (!op) throw badRequest(`Cannot set '${name}' to ${inspect(value)} for ${t.label}`);
    return t.gate.key === 'groups' ? { op, key: 'groups', value: t.gate.group } : { op, key: 'actors', value: t.gate.actor.flipperId };
  });
}

function globalOps(name: string, value: string, key: string | undefined, current: GateValues | undefined): GateOp[] {
  if (isEnable(value)) return [{ op: 'enable' }];
  if (isDisable(value)) return [{ op: 'disable' }];
  const ofActors = key === 'percentage_of_actors';
  const ofTime = key === 'percentage_of_time' || (key === undefined && isNumeric(value));
  if (!ofActors && !ofTime) throw badRequest(key !== undefined ? `Cannot set '${name}' (${inspect(key)}) to ${inspect(value)}` : `Cannot set '${name}' to ${inspect(value)}`);
  if (!isNumeric(value)) throw badRequest('Not a percentage');
  const percentage = Number(value);
  // lib/feature.rb enable_percentage_of_*: refused on a flag that is already fully on.
  if (current && stateOf(current) === 'on') throw badRequest(`Cannot enable percentage of ${ofActors ? 'actors' : 'time'} for a fully-enabled flag`);
  // Flipper::Types::Percentage raises this ArgumentError (GitLab lets it become a 500; a 400 says the same).
  if (percentage > 100) throw badRequest(`value must be a positive number less than or equal to 100, but was ${value}`);
  return [{ op: 'percentage', key: ofActors ? 'percentage_of_actors' : 'percentage_of_time', value: Math.trunc(percentage) === percentage ? Math.trunc(percentage) : percentage }];
}
