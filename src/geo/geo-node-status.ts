/**
 * GeoNodeStatus (GitLab ee/app/models/geo_node_status.rb, ee/lib/ee/api/entities/geo_node_status.rb).
 *
 * Only the current node has a status here, and it is always the primary (a secondary may not carry
 * the current node's name, GeoNode#require_current_node_to_be_primary). GitLab's primary fills its
 * status in GeoNodeStatus#load_data_from_current_node: the primary's own totals per replicable kind
 * (`K_count`), `projects_count`, repository checks and replication slots, while the registry, sync
 * and verification counts are a secondary's and stay null. This server computes the same figures from
 * its own tables when asked, and its health from a storage round trip made at the same moment.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import pkg from '../../package.json';
import { int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import type { BlobStore } from '../platform/blobs';
import { REPLICABLES } from './geo-node-entity';

const count = int.nullable();
const percentage = z.string().regex(/^\d+\.\d{2}%$/).meta({ examples: ['33.33%'] });

const KIND_COUNTS = ['count', 'checksum_total_count', 'checksummed_count', 'checksum_failed_count', 'synced_count', 'failed_count', 'registry_count', 'verification_total_count', 'verified_count', 'verification_failed_count'] as const;
const REPO_COUNTS = ['count', 'failed_count', 'synced_count', 'checksummed_count', 'checksum_failed_count', 'verified_count', 'verification_failed_count', 'checksum_mismatch_count', 'retrying_verification_count'] as const;

function shape(): Record<string, z.ZodType> {
  const s: Record<string, z.ZodType> = {
    geo_node_id: int,
    healthy: z.boolean(),
    health: z.string(),
    health_status: z.enum(['Healthy', 'Unhealthy']),
    missing_oauth_application: z.boolean(),
    db_replication_lag_seconds: count,
  };
  for (const k of REPLICABLES) {
    for (const f of KIND_COUNTS) s[`${k}_${f}`] = count;
    s[`${k}_synced_in_percentage`] = percentage;
    s[`${k}_verified_in_percentage`] = percentage;
  }
  s.job_artifacts_synced_missing_on_primary_count = count;
  for (const k of ['container_repositories', 'design_repositories']) {
    for (const f of ['count', 'synced_count', 'failed_count']) s[`${k}_${f}`] = count;
    s[`${k}_synced_in_percentage`] = percentage;
  }
  s.projects_count = count;
  for (const k of ['repositories', 'wikis']) {
    for (const f of REPO_COUNTS) s[`${k}_${f}`] = count;
    for (const f of ['synced', 'checksummed', 'verified']) s[`${k}_${f}_in_percentage`] = percentage;
  }
  s.repositories_checked_count = count;
  s.repositories_checked_failed_count = count;
  s.repositories_checked_in_percentage = percentage;
  Object.assign(s, {
    replication_slots_count: count,
    replication_slots_used_count: count,
    replication_slots_used_in_percentage: percentage,
    replication_slots_max_retained_wal_bytes: count,
    repository_verification_enabled: z.boolean(),
    last_event_id: count,
    last_event_timestamp: count,
    cursor_last_event_id: count,
    cursor_last_event_timestamp: count,
    last_successful_status_check_timestamp: count,
    version: z.string(),
    revision: z.string(),
    selective_sync_type: z.string().nullable(),
    namespaces: z.array(z.never()),
    updated_at: timestamp,
    storage_shards_match: z.boolean(),
    _links: obj({ self: z.string(), node: z.string() }),
  });
  return s;
}

export const GeoNodeStatusSchema = obj(shape()).meta({ id: 'GeoNodeStatus' });
export type GeoNodeStatus = Record<string, unknown>;

/**
 * This server's own totals, as columns to select beside the current node's row (one statement, in
 * the request's one batch). Uploads are GitLab's `uploads` rows: avatars of users, groups and
 * projects, incident metric images and finished export archives. Repositories are projects
 * (`alias_attribute :repositories_count, :projects_count`). Job artifacts: this server runs no jobs.
 */
export const statusCounts = {
  projects: sql<number>`(select count(*) from projects)`,
  mergeRequestDiffs: sql<number>`(select count(*) from merge_request_diffs)`,
  uploads: sql<number>`((select count(*) from users where avatar_path is not null)
    + (select count(*) from namespaces where avatar_path is not null)
    + (select count(*) from projects where avatar_path is not null)
    + (select count(*) from issue_metric_images)
    + (select count(*) from project_export_jobs where status = 'finished' and blob_key is not null))`,
};
export type StatusCounts = { projects: number; mergeRequestDiffs: number; uploads: number };

export interface HealthCheck {
  ok: boolean;
  message: string;
  at: number;
}

/**
 * The status check GitLab runs as `HealthCheck::Utils.process_checks(['geo'])`: here a write and a
 * read back of a small object in the blob store (where uploads, archives and repository blobs
 * live). The database half is the statement that loaded the node and its counts, which succeeded
 * already. The probe's content is fixed, so concurrent checks cannot spoil each other's read.
 */
const PROBE_KEY = 'geo/status-check';
const PROBE = 'geo status check';

export async function runHealthCheck(blobs: BlobStore): Promise<HealthCheck> {
  try {
    await blobs.put(PROBE_KEY, PROBE, 'text/plain');
    const back = await blobs.get(PROBE_KEY);
    const text = back ? await new Response(back.body).text() : null;
    if (text !== PROBE) return { ok: false, message: 'Blob storage check failed: the probe written was not read back', at: Date.now() };
    return { ok: true, message: 'Healthy', at: Date.now() };
  } catch (err) {
    return { ok: false, message: `Blob storage check failed: ${err instanceof Error ? err.message : String(err)}`, at: Date.now() };
  }
}

/** `number_to_percentage(value, precision: 2)`; GeoNodeStatus.attr_in_percentage is 0 without a total. */
const pct = (n: number | null, total: number | null) => `${(total ? ((n ?? 0) / total) * 100 : 0).toFixed(2)}%`;

export function geoNodeStatusEntity(
  node: { id: number; selectiveSyncType: string | null },
  counts: StatusCounts,
  health: HealthCheck,
  base: string,
): GeoNodeStatus {
  const primaryTotals: Record<string, number> = { merge_request_diffs: Number(counts.mergeRequestDiffs), uploads: Number(counts.uploads) };
  const projects = Number(counts.projects);
  const out: GeoNodeStatus = {
    geo_node_id: node.id,
    healthy: health.ok,
    health: health.message,
    health_status: health.ok ? 'Healthy' : 'Unhealthy',
    // The primary needs no OAuth application (GeoNode#missing_oauth_application?).
    missing_oauth_application: false,
    // A secondary's figure (Gitlab::Geo::HealthCheck#db_replication_lag_seconds).
    db_replication_lag_seconds: null,
  };
  for (const k of REPLICABLES) {
    // replicator.primary_total_count: every kind is counted; kinds this server does not hold are 0.
    out[`${k}_count`] = primaryTotals[k] ?? 0;
    // Checksums only when the kind's verification is enabled (this server checksums nothing); the rest are a secondary's.
    for (const f of KIND_COUNTS.slice(1)) out[`${k}_${f}`] = null;
    out[`${k}_synced_in_percentage`] = pct(null, null);
    out[`${k}_verified_in_percentage`] = pct(null, null);
  }
  out.job_artifacts_synced_missing_on_primary_count = null;
  for (const k of ['container_repositories', 'design_repositories']) {
    for (const f of ['count', 'synced_count', 'failed_count']) out[`${k}_${f}`] = null;
    out[`${k}_synced_in_percentage`] = pct(null, null);
  }
  out.projects_count = projects;
  for (const k of ['repositories', 'wikis']) {
    for (const f of REPO_COUNTS) out[`${k}_${f}`] = f === 'count' ? projects : null;
    for (const f of ['synced', 'checksummed', 'verified']) out[`${k}_${f}_in_percentage`] = pct(null, projects);
  }
  // Project.where.not(last_repository_check_at: nil): this server never runs repository checks.
  out.repositories_checked_count = 0;
  out.repositories_checked_failed_count = 0;
  out.repositories_checked_in_percentage = pct(0, projects);
  const at = Math.floor(health.at / 1000);
  Object.assign(out, {
    // No PostgreSQL replication slots: SQLite/D1 replicate without them.
    replication_slots_count: 0,
    replication_slots_used_count: 0,
    replication_slots_used_in_percentage: pct(0, 0),
    replication_slots_max_retained_wal_bytes: null,
    repository_verification_enabled: false,
    // No Geo event log: nothing is ever queued for a secondary.
    last_event_id: null,
    last_event_timestamp: null,
    cursor_last_event_id: null,
    cursor_last_event_timestamp: null,
    // load_data_from_current_node sets it whenever the status is loaded.
    last_successful_status_check_timestamp: at,
    version: pkg.version,
    // Gitlab.revision without a REVISION file or git checkout.
    revision: 'Unknown',
    selective_sync_type: node.selectiveSyncType,
    namespaces: [],
    updated_at: iso(health.at),
    storage_shards_match: true,
    _links: { self: `${base}/api/v4/geo_nodes/${node.id}/status`, node: `${base}/api/v4/geo_nodes/${node.id}` },
  });
  return out;
}
