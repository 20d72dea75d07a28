/**
 * Runner presenters (lib/api/entities/ci/runner.rb, runner_details.rb as of the 14.x REST API the
 * spec describes), in GitLab's field order, and the status a runner shows (reference
 * gitlab-behaviour-2.md 5.2). Pure: the caller passes the contact time this isolate knows
 * (runner-tokens.ts `knownContact`), which may be newer than the stored one. No token, digest or
 * expiry of a token is ever part of these shapes.
 */
import { z } from 'zod';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import type { RunnerRow } from './runner-tokens';

/** Ci::Runner::ONLINE_CONTACT_TIMEOUT: a runner is online when it made contact within the last 2 hours. */
export const ONLINE_CONTACT_TIMEOUT_MS = 2 * 60 * 60 * 1000;

export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;
export const RUNNER_STATUSES = ['online', 'offline', 'paused', 'not_connected'] as const;
export type RunnerStatus = (typeof RUNNER_STATUSES)[number];

/** `online?`: null when the runner never made contact (`contacted_at && …` in Ruby). */
export const isOnline = (contactedAt: number | null, now: number): boolean | null => (contactedAt === null ? null : contactedAt > now - ONLINE_CONTACT_TIMEOUT_MS);

/**
 * Ci::Runner#deprecated_rest_status, the `status` the REST API shows: `not_connected` before the
 * first contact (paused or not), then `paused`, then `online` or `offline` by the contact window.
 */
export function runnerStatus(active: boolean, contactedAt: number | null, now: number): RunnerStatus {
  if (contactedAt === null) return 'not_connected';
  if (!active) return 'paused';
  return isOnline(contactedAt, now) ? 'online' : 'offline';
}

export const RunnerSchema = obj({
  id,
  description: z.string(),
  ip_address: z.string().nullable(),
  /** Deprecated in favour of `paused`. */
  active: z.boolean(),
  paused: z.boolean(),
  is_shared: z.boolean(),
  runner_type: z.enum(RUNNER_TYPES),
  name: z.string().nullable(),
  online: z.boolean().nullable(),
  status: z.enum(RUNNER_STATUSES),
}).meta({ id: 'Runner' });
export type Runner = z.infer<typeof RunnerSchema>;

/** A runner's project as the detail view lists it (spec "Runner": id, name, name_with_namespace, path, path_with_namespace). */
export const RunnerProjectSchema = obj({ id, name: z.string(), name_with_namespace: z.string(), path: z.string(), path_with_namespace: z.string() }).meta({ id: 'RunnerProject' });
/** Entities::BasicGroupDetails. */
export const BasicGroupDetailsSchema = obj({ id, web_url: z.string(), name: z.string() }).meta({ id: 'BasicGroupDetails' });

export const RunnerDetailsSchema = RunnerSchema.extend({
  tag_list: z.array(z.string()),
  run_untagged: z.boolean(),
  locked: z.boolean(),
  maximum_timeout: int.nullable(),
  access_level: z.enum(['not_protected', 'ref_protected']),
  version: z.string().nullable(),
  revision: z.string().nullable(),
  platform: z.string().nullable(),
  architecture: z.string().nullable(),
  contacted_at: timestamp.nullable(),
  /** Only for callers who may update the runner (null otherwise). */
  maintenance_note: z.string().nullable(),
  projects: z.array(RunnerProjectSchema),
  groups: z.array(BasicGroupDetailsSchema),
}).meta({ id: 'RunnerDetails' });
export type RunnerDetails = z.infer<typeof RunnerDetailsSchema>;
export type RunnerProject = z.infer<typeof RunnerProjectSchema>;
export type BasicGroupDetails = z.infer<typeof BasicGroupDetailsSchema>;

/** Entities::Ci::Runner. `contactedAt` is the newest contact known (stored or seen by this isolate). */
export function runnerEntity(r: RunnerRow, contactedAt: number | null, now = Date.now()): Runner {
  return {
    id: r.id,
    description: r.description,
    ip_address: r.ipAddress ?? null,
    active: r.active,
    paused: !r.active,
    is_shared: r.runnerType === 'instance_type',
    runner_type: r.runnerType as Runner['runner_type'],
    name: r.name ?? null,
    online: isOnline(contactedAt, now),
    status: runnerStatus(r.active, contactedAt, now),
  };
}

export interface RunnerDetailsExtras {
  contactedAt: number | null;
  /** The caller may update the runner: only then is the maintenance note shown. */
  canUpdate: boolean;
  /** The runner's projects and groups the caller may see. */
  projects: RunnerProject[];
  groups: BasicGroupDetails[];
}

/** Entities::Ci::RunnerDetails. */
export function runnerDetails(r: RunnerRow, x: RunnerDetailsExtras, now = Date.now()): RunnerDetails {
  return {
    ...runnerEntity(r, x.contactedAt, now),
    tag_list: r.tagList,
    run_untagged: r.runUntagged,
    locked: r.locked,
    maximum_timeout: r.maximumTimeout ?? null,
    access_level: r.accessLevel as RunnerDetails['access_level'],
    version: r.version ?? null,
    revision: r.revision ?? null,
    platform: r.platform ?? null,
    architecture: r.architecture ?? null,
    contacted_at: iso(x.contactedAt),
    maintenance_note: x.canUpdate ? (r.maintenanceNote ?? null) : null,
    projects: x.projects,
    groups: x.groups,
  };
}

/** Entities::Ci::RunnerRegistrationDetails' sibling for resets: the new token, shown once. */
export const RunnerTokenSchema = obj({ token: z.string(), token_expires_at: timestamp.nullable() }).meta({ id: 'RunnerToken' });

const UserRefSchema = z.record(z.string(), z.unknown());
/** Entities::Ci::JobBasicWithProject as the spec's RunnerJob lists it. No job is ever run here yet, so lists are empty. */
export const RunnerJobSchema = obj({
  id,
  ip_address: z.string().nullable(),
  status: z.string(),
  stage: z.string(),
  name: z.string(),
  ref: z.string(),
  tag: z.boolean(),
  coverage: z.number().nullable(),
  created_at: timestamp,
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  duration: z.number().nullable(),
  user: UserRefSchema,
  commit: obj({
    id: z.string(),
    short_id: z.string(),
    title: z.string(),
    created_at: timestamp,
    parent_ids: z.array(z.string()),
    message: z.string(),
    author_name: z.string(),
    author_email: z.string(),
    authored_date: timestamp,
    committer_name: z.string(),
    committer_email: z.string(),
    committed_date: timestamp,
  }),
  pipeline: obj({ id, sha: z.string(), ref: z.string(), status: z.string() }),
  project: obj({ id, description: z.string().nullable(), name: z.string(), name_with_namespace: z.string(), path: z.string(), path_with_namespace: z.string(), created_at: timestamp }),
}).meta({ id: 'RunnerJob' });
