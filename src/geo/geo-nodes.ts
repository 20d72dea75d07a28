/**
 * The GeoNode model's rules (GitLab ee/app/models/geo_node.rb, ~15.x): attribute normalisation,
 * validations with their messages and order, and the writes of Geo::NodeCreateService /
 * Geo::NodeUpdateService. Each write reads what its checks need in one batch and writes in one
 * statement; the unique indexes settle a race between two writers (db/schema/geo.ts).
 */
import type { Context } from 'hono';
import { eq, or, sql } from 'drizzle-orm';
import { geoNodes, namespaces } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { recordNotFound, validationFailed } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { now } from '../platform/time';
import { isUniqueViolation } from '../platform/unique';
import type { GeoNodeRow } from './geo-node-entity';

/** What POST and PUT declare, after Grape's coercion (`selective_sync_namespace_ids` arrives `as: :namespace_ids`). */
export interface GeoNodeAttrs {
  primary?: boolean;
  enabled?: boolean;
  name?: string;
  url?: string;
  internal_url?: string;
  files_max_capacity?: number;
  repos_max_capacity?: number;
  verification_max_capacity?: number;
  container_repositories_max_capacity?: number;
  sync_object_storage?: boolean;
  selective_sync_type?: string | null;
  selective_sync_shards?: string[];
  selective_sync_namespace_ids?: number[];
  minimum_reverification_interval?: number;
}

type NodeState = Omit<GeoNodeRow, 'id' | 'createdAt' | 'updatedAt'>;

/** `Gitlab.config.geo.node_name`: gitlab.rb `geo_node_name`, else the external URL with a trailing slash. */
export const currentNodeName = (c: Context<AppEnv>): string => c.var.config.geoNodeName ?? addSlash(baseUrl(c));

/** GeoNode#add_ending_slash: blank values stay as they are. */
const addSlash = (v: string): string => (v === '' || v.endsWith('/') ? v : `${v}/`);

/** The column defaults of `geo_nodes` (POST: primary false, enabled true, capacities 10/25/100/10, interval 7). */
const DEFAULTS: NodeState = {
  name: '',
  nameKey: '',
  url: '',
  internalUrl: null,
  primary: false,
  enabled: true,
  filesMaxCapacity: 10,
  reposMaxCapacity: 25,
  verificationMaxCapacity: 100,
  containerRepositoriesMaxCapacity: 10,
  syncObjectStorage: false,
  selectiveSyncType: null,
  selectiveSyncShards: '[]',
  namespaceIds: '[]',
  minimumReverificationInterval: 7,
};

/** Applies the attributes in their declared order, as ActiveRecord's writers do. */
function apply(base: NodeState, a: GeoNodeAttrs): NodeState {
  const s = { ...base };
  if (a.primary !== undefined) s.primary = a.primary;
  if (a.enabled !== undefined) s.enabled = a.enabled;
  // strip_attributes! :name
  if (a.name !== undefined) s.name = a.name.trim();
  if (a.url !== undefined) s.url = addSlash(a.url);
  // GeoNode#internal_url=: the same URL as `url` is not kept (the reader falls back to `url`).
  if (a.internal_url !== undefined) s.internalUrl = a.internal_url === '' || addSlash(a.internal_url) === s.url ? null : addSlash(a.internal_url);
  if (a.files_max_capacity !== undefined) s.filesMaxCapacity = a.files_max_capacity;
  if (a.repos_max_capacity !== undefined) s.reposMaxCapacity = a.repos_max_capacity;
  if (a.verification_max_capacity !== undefined) s.verificationMaxCapacity = a.verification_max_capacity;
  if (a.container_repositories_max_capacity !== undefined) s.containerRepositoriesMaxCapacity = a.container_repositories_max_capacity;
  if (a.sync_object_storage !== undefined) s.syncObjectStorage = a.sync_object_storage;
  if (a.selective_sync_type !== undefined) s.selectiveSyncType = a.selective_sync_type;
  if (a.selective_sync_shards !== undefined) s.selectiveSyncShards = JSON.stringify(a.selective_sync_shards);
  if (a.selective_sync_namespace_ids !== undefined) s.namespaceIds = JSON.stringify([...new Set(a.selective_sync_namespace_ids)]);
  if (a.minimum_reverification_interval !== undefined) s.minimumReverificationInterval = a.minimum_reverification_interval;
  // GeoNode#name: a name that is the URL without its slash reads (and is kept) with it.
  if (s.name !== '' && addSlash(s.name) === s.url) s.name = addSlash(s.name);
  s.nameKey = s.name.toLowerCase();
  return s;
}

/** AddressableUrlValidator (http and https, local addresses allowed): "must be a valid URL". */
function validUrl(v: string): boolean {
  if (/\s/.test(v)) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

const atLeast = (n: number) => `must be greater than or equal to ${n}`;

/** GeoNode's validations in declaration order; `others` are the other nodes that could clash. */
function validate(s: NodeState, others: GeoNodeRow[], currentName: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, message: string) => (errors[attr] ??= []).push(message);
  if (s.name === '') add('name', "can't be blank");
  else if (others.some((o) => o.nameKey === s.nameKey)) add('name', 'has already been taken');
  if ([...s.name].length > 255) add('name', 'is too long (maximum is 255 characters)');
  if (s.url === '') add('url', "can't be blank");
  if (!validUrl(s.url)) add('url', 'must be a valid URL');
  if (s.internalUrl !== null && !validUrl(s.internalUrl)) add('internal_url', 'must be a valid URL');
  if (s.primary && others.some((o) => o.primary)) add('primary', 'node already exists');
  // `validates :enabled, if: :primary, acceptance: { message: 'Geo primary node cannot be disabled' }`
  if (s.primary && !s.enabled) add('enabled', 'Geo primary node cannot be disabled');
  if (s.selectiveSyncType && !['namespaces', 'shards'].includes(s.selectiveSyncType)) add('selective_sync_type', 'is not included in the list');
  if (s.reposMaxCapacity < 0) add('repos_max_capacity', atLeast(0));
  if (s.filesMaxCapacity < 0) add('files_max_capacity', atLeast(0));
  if (s.verificationMaxCapacity < 0) add('verification_max_capacity', atLeast(0));
  if (s.containerRepositoriesMaxCapacity < 0) add('container_repositories_max_capacity', atLeast(0));
  if (s.minimumReverificationInterval < 1) add('minimum_reverification_interval', atLeast(1));
  // require_current_node_to_be_primary: "Prevent locking yourself out"
  if (!s.primary && s.name === currentName) add('base', 'Current node must be the primary node or you will be locking yourself out');
  return errors;
}

/**
 * One read for a write: the node itself (PUT), every node its name or primary flag could clash with,
 * and the namespaces it names for selective sync.
 */
async function readForWrite(c: Context<AppEnv>, id: number | null, a: GeoNodeAttrs) {
  const db = c.var.db;
  const name = (a.name ?? '').trim().toLowerCase();
  const keys = JSON.stringify([name, addSlash(name)]);
  const ids = JSON.stringify(a.selective_sync_namespace_ids ?? []);
  const [nodes, found] = await db.batch([
    db
      .select()
      .from(geoNodes)
      .where(or(id === null ? undefined : eq(geoNodes.id, id), sql`${geoNodes.nameKey} in (select value from json_each(${keys}))`, eq(geoNodes.primary, true))),
    db.select({ id: namespaces.id }).from(namespaces).where(sql`${namespaces.id} in (select value from json_each(${ids}))`),
  ]);
  // `namespace_ids=` on a has_many :through raises ActiveRecord::RecordNotFound for an unknown id.
  if (a.selective_sync_namespace_ids && found.length !== new Set(a.selective_sync_namespace_ids).size) throw recordNotFound();
  return nodes;
}

/** Geo::NodeCreateService: `GeoNode.create(params)`. */
export async function createGeoNode(c: Context<AppEnv>, a: GeoNodeAttrs): Promise<GeoNodeRow> {
  const others = await readForWrite(c, null, a);
  const state = apply(DEFAULTS, a);
  const errors = validate(state, others, currentNodeName(c));
  if (Object.keys(errors).length) throw validationFailed(errors);
  const at = now();
  const [row] = await guardRace(() => c.var.db.insert(geoNodes).values({ ...state, createdAt: at, updatedAt: at }).returning());
  return row;
}

/** Geo::NodeUpdateService: `geo_node.update(params)`; an unknown id is ActiveRecord's 404. */
export async function updateGeoNode(c: Context<AppEnv>, id: number, a: GeoNodeAttrs): Promise<GeoNodeRow> {
  const nodes = await readForWrite(c, id, a);
  const node = nodes.find((n) => n.id === id);
  if (!node) throw recordNotFound();
  const state = apply(node, a);
  const errors = validate(state, nodes.filter((n) => n.id !== id), currentNodeName(c));
  if (Object.keys(errors).length) throw validationFailed(errors);
  const [row] = await guardRace(() => c.var.db.update(geoNodes).set({ ...state, updatedAt: now() }).where(eq(geoNodes.id, id)).returning());
  if (!row) throw recordNotFound();
  return row;
}

/** A write that lost a race to another writer answers the message the read would have given. */
async function guardRace<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, 'geo_nodes.name_key')) throw validationFailed({ name: ['has already been taken'] });
    if (isUniqueViolation(err, 'geo_nodes.primary')) throw validationFailed({ primary: ['node already exists'] });
    throw err;
  }
}
