/**
 * Geo nodes (GitLab EE `geo_nodes`): the replication sites an administrator registers. Names are
 * unique case-insensitively (`name_key` holds the lower-cased name under a unique index) and at most
 * one node is primary (a partial unique index), so a race between two writes is settled by storage.
 * Statuses are not stored: the current node's is computed when asked (geo/geo-node-status.ts) and
 * no other node ever reports to this server.
 */
import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const bool = (name: string) => integer(name, { mode: 'boolean' });

export const geoNodes = sqliteTable(
  'geo_nodes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    /** Stored with its trailing slash (GeoNode#url=). */
    url: text('url').notNull(),
    /** Null when it equals `url` (GeoNode#internal_url=); the entity falls back to `url`. */
    internalUrl: text('internal_url'),
    primary: bool('primary').notNull().default(false),
    enabled: bool('enabled').notNull().default(true),
    filesMaxCapacity: integer('files_max_capacity').notNull().default(10),
    reposMaxCapacity: integer('repos_max_capacity').notNull().default(25),
    verificationMaxCapacity: integer('verification_max_capacity').notNull().default(100),
    containerRepositoriesMaxCapacity: integer('container_repositories_max_capacity').notNull().default(10),
    syncObjectStorage: bool('sync_object_storage').notNull().default(false),
    selectiveSyncType: text('selective_sync_type'),
    /** JSON array of storage names. */
    selectiveSyncShards: text('selective_sync_shards').notNull().default('[]'),
    /** JSON array of namespace ids (GitLab's geo_node_namespace_links). */
    namespaceIds: text('namespace_ids').notNull().default('[]'),
    minimumReverificationInterval: integer('minimum_reverification_interval').notNull().default(7),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('geo_nodes_name_key').on(t.nameKey), uniqueIndex('geo_nodes_primary').on(t.primary).where(sql`"primary" = 1`)],
);
