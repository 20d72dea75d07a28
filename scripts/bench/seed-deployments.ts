/**
 * The deployments part of the benchmark dataset (issue 16): environments of the GPT-sized project
 * (production, staging and review apps, some stopped) and a few hundred deployments to them over the
 * dataset's time span, mostly successful, written with direct SQL like the rest of seed.ts. The
 * deployment list reads only the deployments with their environment and user, so no repository rows
 * are needed: shas are sha1 digests of seed data.
 */
import { createHash } from 'node:crypto';
import { rng } from './rng';

export interface DeploySeedInput {
  insert: (table: string, row: Record<string, unknown>) => void;
  projectId: number;
  /** Who deploys (developers of the project). */
  users: number[];
  count: number;
  now: number;
  span: number;
}

export interface DeploySeed {
  projectId: number;
  count: number;
  environments: string[];
}

const ENVIRONMENTS: { name: string; tier: string; weight: number }[] = [
  { name: 'production', tier: 'production', weight: 4 },
  { name: 'staging', tier: 'staging', weight: 4 },
  { name: 'testing', tier: 'testing', weight: 2 },
  ...Array.from({ length: 8 }, (_, k) => ({ name: `review/feature-${k + 1}`, tier: 'development', weight: 1 })),
];

const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '-').slice(0, 24);

export function seedDeployments({ insert, projectId, users, count, now, span }: DeploySeedInput): DeploySeed {
  // Its own sequence: the rest of the dataset does not move when this part changes.
  const r = rng(16);
  const created = now - span;
  ENVIRONMENTS.forEach((e, i) => {
    const review = e.tier === 'development';
    insert('environments', {
      id: i + 1,
      project_id: projectId,
      name: e.name,
      slug: slugOf(e.name),
      external_url: `https://${slugOf(e.name)}.example.com`,
      tier: e.tier,
      state: review && i % 2 === 0 ? 'stopped' : 'available',
      created_at: created,
      updated_at: created,
    });
  });
  const weighted = ENVIRONMENTS.flatMap((e, i) => Array.from({ length: e.weight }, () => i + 1));
  const times = Array.from({ length: count }, () => now - r.next() * span).sort((a, b) => a - b);
  for (let k = 0; k < count; k++) {
    const env = r.pick(weighted);
    const at = Math.round(times[k]);
    // The newest few are still running; the rest finished, about one in eight not successfully.
    const status = k >= count - 3 ? 'running' : r.chance(0.88) ? 'success' : r.pick(['failed', 'failed', 'canceled']);
    const finished = status === 'running' ? null : at + r.int(30, 900) * 1000;
    const review = ENVIRONMENTS[env - 1].tier === 'development';
    insert('deployments', {
      id: k + 1,
      project_id: projectId,
      iid: k + 1,
      environment_id: env,
      ref: review ? `feature-${(env % 8) + 1}` : 'main',
      tag: false,
      sha: createHash('sha1').update(`deploy ${projectId} ${k}`).digest('hex'),
      user_id: r.pick(users),
      status,
      created_at: at,
      updated_at: finished ?? at,
      finished_at: finished,
    });
  }
  return { projectId, count, environments: ENVIRONMENTS.map((e) => e.name) };
}
