/** GeoNode presenter (GitLab ee/lib/ee/api/entities/geo_node.rb). Pure. */
import { z } from 'zod';
import type { geoNodes } from '../db/schema';
import { id, int, obj } from '../platform/response-schemas';

export type GeoNodeRow = typeof geoNodes.$inferSelect;

/**
 * The replicable kinds this API reports on, in the spec's order (doc 001 "GeoNodeStatus"). The first
 * is where `web_geo_replication_details_url` points (GeoNode#geo_replication_details_url takes the first
 * replicator).
 */
export const REPLICABLES = [
  'lfs_objects',
  'merge_request_diffs',
  'package_files',
  'pages_deployments',
  'terraform_state_versions',
  'snippet_repositories',
  'group_wiki_repositories',
  'pipeline_artifacts',
  'job_artifacts',
  'uploads',
] as const;

const url = z.string();

export const GeoNodeSchema = obj({
  id,
  name: z.string(),
  url,
  internal_url: url,
  primary: z.boolean(),
  enabled: z.boolean(),
  current: z.boolean(),
  files_max_capacity: int,
  repos_max_capacity: int,
  verification_max_capacity: int,
  container_repositories_max_capacity: int,
  selective_sync_type: z.string().nullable(),
  selective_sync_shards: z.array(z.string()),
  selective_sync_namespace_ids: z.array(int),
  minimum_reverification_interval: int,
  // Secondaries only (`if: ->(geo_node, _) { geo_node.secondary? }`).
  sync_object_storage: z.boolean().optional(),
  clone_protocol: z.literal('http'),
  web_edit_url: url,
  web_geo_projects_url: url.optional(),
  web_geo_replication_details_url: url.optional(),
  _links: obj({ self: url, status: url, repair: url }),
}).meta({ id: 'GeoNode' });
export type GeoNode = z.infer<typeof GeoNodeSchema>;

/** `base` is this server's external URL (no trailing slash); `currentName` the configured node name. */
export function geoNodeEntity(n: GeoNodeRow, base: string, currentName: string): GeoNode {
  const api = `${base}/api/v4/geo_nodes/${n.id}`;
  const secondary = !n.primary;
  return {
    id: n.id,
    name: n.name,
    url: n.url,
    internal_url: n.internalUrl ?? n.url,
    primary: n.primary,
    enabled: n.enabled,
    current: n.name === currentName,
    files_max_capacity: n.filesMaxCapacity,
    repos_max_capacity: n.reposMaxCapacity,
    verification_max_capacity: n.verificationMaxCapacity,
    container_repositories_max_capacity: n.containerRepositoriesMaxCapacity,
    selective_sync_type: n.selectiveSyncType,
    selective_sync_shards: JSON.parse(n.selectiveSyncShards) as string[],
    selective_sync_namespace_ids: JSON.parse(n.namespaceIds) as number[],
    minimum_reverification_interval: n.minimumReverificationInterval,
    ...(secondary ? { sync_object_storage: n.syncObjectStorage } : {}),
    // "Retained for backwards compatibility. Remove in API v5"
    clone_protocol: 'http',
    // edit_admin_geo_node_url: this instance's admin page (the `nodes` resource is routed at `sites`).
    web_edit_url: `${base}/admin/geo/sites/${n.id}/edit`,
    // The two replication pages live on the secondary itself (url_helper_args of the node's own URL).
    ...(secondary
      ? {
          web_geo_projects_url: `${n.url}admin/geo/replication/projects`,
          web_geo_replication_details_url: `${n.url}admin/geo/sites/${n.id}/replication/${REPLICABLES[0]}`,
        }
      : {}),
    _links: { self: api, status: `${api}/status`, repair: `${api}/repair` },
  };
}
