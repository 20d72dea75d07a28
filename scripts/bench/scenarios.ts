/**
 * The measured requests. Each scenario makes its next request from the seeded manifest; the mix
 * draws its filter values from what exists in the big project so every filter returns rows.
 */
import { FLOOR_PATH } from './floor';
import { hookFanoutScenario } from './hook-fanout';
import { importExportScenario } from './import-export';
import type { Req } from './load';
import { rng } from './rng';
import { runnerToken, type Manifest } from './seed';

export interface Scenario {
  id: string;
  title: string;
  /** GitLab GPT test this lines up with (performance.md 1.3), if any. */
  gpt?: string;
  /** Writes rows: run after the reads. */
  writes?: boolean;
  next: () => Req;
  /** After every mode ran: checks the state the writes left against what they should have left (a summary for the report). */
  verify?: (port: number) => Promise<string>;
  /** Before the first mode: brings the server to the scenario's steady state (a summary for the report). */
  /** `cpuMs`: the server's CPU so far (the Node process, or workerd's from /proc), null where unknown. */
  prepare?: (port: number, server?: { cpuMs(): Promise<number | null> }) => Promise<string>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function scenarios(m: Manifest): Scenario[] {
  const r = rng(7);
  const member = { 'PRIVATE-TOKEN': m.memberToken };
  const admin = { 'PRIVATE-TOKEN': m.rootToken };
  const big = m.bigProjectId;
  const bigIssues = m.memberProjects.find((p) => p.id === big)!.issues;
  const readable = m.memberProjects.filter((p) => p.issues > 0);
  let created = 0;

  const mix: (() => Req)[] = [
    () => ({ kind: 'labels', method: 'GET', path: `/api/v4/projects/${big}/issues?labels=${encodeURIComponent(r.sample(m.big.labels, 2).join(','))}&state=opened`, headers: member }),
    () => ({ kind: 'milestone', method: 'GET', path: `/api/v4/projects/${big}/issues?milestone=${encodeURIComponent(r.pick(m.big.milestones))}`, headers: member }),
    () => ({ kind: 'assignee', method: 'GET', path: `/api/v4/projects/${big}/issues?assignee_id=${r.pick(m.big.userIds)}`, headers: member }),
    () => ({ kind: 'author', method: 'GET', path: `/api/v4/projects/${big}/issues?author_id=${r.pick(m.big.userIds)}&state=opened`, headers: member }),
    () => {
      const after = m.from + r.next() * (m.to - m.from) * 0.8;
      return { kind: 'dates', method: 'GET', path: `/api/v4/projects/${big}/issues?created_after=${iso(after)}&updated_before=${iso(after + 120 * 86_400_000)}`, headers: member };
    },
    () => ({ kind: 'order', method: 'GET', path: `/api/v4/projects/${big}/issues?order_by=updated_at&sort=asc&state=closed`, headers: member }),
    // Deep offset: page 400 of 20 when the project has 8,000+ issues (performance.md 4.4 S4).
    () => ({ kind: 'deep_page', method: 'GET', path: `/api/v4/projects/${big}/issues?page=${Math.min(400, Math.floor(bigIssues / 20))}`, headers: member }),
    () => ({ kind: 'search', method: 'GET', path: `/api/v4/projects/${big}/issues?search=${r.pick(m.searchTerms)}`, headers: member }),
  ];

  const gptMrs = m.mergeRequests.find((p) => p.id === m.gptProjectId)?.mergeRequests ?? 0;

  return [
    { id: 'bare', title: `bare route (\`GET ${FLOOR_PATH}\`)`, next: () => ({ method: 'GET', path: FLOOR_PATH }) },
    { id: 'user', title: '`GET /user`', gpt: 'api_v4_user', next: () => ({ method: 'GET', path: '/api/v4/user', headers: member }) },
    {
      id: 'issue',
      title: 'single issue `GET /projects/:id/issues/:iid`',
      gpt: 'api_v4_projects_issues_issue',
      next: () => {
        const p = r.chance(0.5) ? { id: big, issues: bigIssues } : r.pick(readable);
        return { method: 'GET', path: `/api/v4/projects/${p.id}/issues/${r.int(1, p.issues)}`, headers: member };
      },
    },
    {
      id: 'list_default',
      title: `project issues, default query (${m.memberProjects.find((p) => p.id === m.gptProjectId)?.issues} issues)`,
      gpt: 'api_v4_projects_issues',
      next: () => ({ method: 'GET', path: `/api/v4/projects/${m.gptProjectId}/issues`, headers: member }),
    },
    {
      id: 'list_big',
      title: `project issues, default query (${bigIssues} issues, no x-total)`,
      next: () => ({ method: 'GET', path: `/api/v4/projects/${big}/issues`, headers: member }),
    },
    { id: 'list_mix', title: `filtered lists mix (${bigIssues} issues)`, next: () => r.pick(mix)() },
    {
      id: 'group_list',
      title: 'group issues, default query (group of the big project, with subgroups)',
      gpt: 'api_v4_groups_issues',
      next: () => ({ method: 'GET', path: `/api/v4/groups/${m.memberGroupIds[0]}/issues`, headers: member }),
    },
    { id: 'all_admin', title: '`GET /issues?scope=all` (administrator)', next: () => ({ method: 'GET', path: '/api/v4/issues?scope=all', headers: admin }) },
    {
      id: 'all_member',
      title: `\`GET /issues?scope=all\` (member of ${m.memberProjects.length} projects)`,
      next: () => ({ method: 'GET', path: '/api/v4/issues?scope=all', headers: member }),
    },
    {
      id: 'mr_list',
      title: `project merge requests, default query (${gptMrs} merge requests)`,
      gpt: 'api_v4_projects_merge_requests',
      next: () => ({ method: 'GET', path: `/api/v4/projects/${m.gptProjectId}/merge_requests`, headers: member }),
    },
    {
      id: 'mr_group_list',
      title: 'group merge requests, default query (group of the big project, with subgroups)',
      gpt: 'api_v4_groups_merge_requests',
      next: () => ({ method: 'GET', path: `/api/v4/groups/${m.memberGroupIds[0]}/merge_requests`, headers: member }),
    },
    {
      id: 'mr_all_member',
      title: `\`GET /merge_requests?scope=all\` (member of ${m.memberProjects.length} projects)`,
      next: () => ({ method: 'GET', path: '/api/v4/merge_requests?scope=all', headers: member }),
    },
    {
      id: 'mr',
      title: 'single merge request `GET /projects/:id/merge_requests/:iid`',
      gpt: 'api_v4_projects_merge_requests_merge_request',
      next: () => ({ method: 'GET', path: `/api/v4/projects/${m.gptProjectId}/merge_requests/${r.int(1, gptMrs)}`, headers: member }),
    },
    {
      id: 'deployments',
      title: `project deployments, default query (${m.deployments.count} deployments, ${m.deployments.environments.length} environments)`,
      next: () => ({ method: 'GET', path: `/api/v4/projects/${m.deployments.projectId}/deployments`, headers: member }),
    },
    approvalsScenario(m),
    runnersScenario(m),
    importExportScenario(m),
    {
      id: 'create',
      title: 'create issue `POST /projects/:id/issues`',
      gpt: 'scenario_api_new_issues',
      writes: true,
      next: () => {
        const p = r.pick(readable);
        const body: Record<string, unknown> = { title: `Bench issue ${++created}`, description: 'Created by the benchmark.\n\n- [ ] check it' };
        if (p.id === big) Object.assign(body, { labels: r.sample(m.big.labels, 2).join(','), assignee_ids: [r.pick(m.big.userIds)] });
        return { method: 'POST', path: `/api/v4/projects/${p.id}/issues`, headers: member, body };
      },
    },
    hookFanoutScenario(m),
  ];
}

/**
 * S5 (performance.md 4.4): approve and unapprove over the S5 merge requests by the S5 developers,
 * plus 30 % `GET …/approvals`. The (merge request, approver) pairs are visited in a fixed cycle, the
 * merge request changing with every step, so no pair is written twice at once and each pass
 * alternates: the first approves every pair (with the HEAD sha, as clients send it), the next
 * unapproves them, and so on. Each answer tells what the pair's state is now (201 or 401 to approve:
 * approved; 201 or 404 to unapprove: not approved); a request that got no answer (an overloaded
 * fixed-rate run) leaves its pair unknown until a later answer. `verify` reads every merge request's
 * approvals afterwards and compares them with the known pairs.
 */
function approvalsScenario(m: Manifest): Scenario {
  const r = rng(11);
  const a = m.approve;
  const pairs = a.mrs.length * a.tokens.length;
  let step = 0;
  const known = new Map<number, boolean>();
  const base = `/api/v4/projects/${a.projectId}/merge_requests`;
  return {
    id: 'approve',
    title: `approve / unapprove (${a.mrs.length} merge requests × ${a.tokens.length} developers) + 30 % \`GET …/approvals\``,
    writes: true,
    next: () => {
      if (r.chance(0.3)) {
        const mr = r.pick(a.mrs);
        return { kind: 'approvals', method: 'GET', path: `${base}/${mr.iid}/approvals`, headers: { 'PRIVATE-TOKEN': r.pick(a.tokens) } };
      }
      const k = step % pairs;
      const approving = Math.floor(step / pairs) % 2 === 0;
      step++;
      const mr = a.mrs[k % a.mrs.length];
      const headers = { 'PRIVATE-TOKEN': a.tokens[Math.floor(k / a.mrs.length)] };
      const onDone = (status: number | null) => {
        if (approving && (status === 201 || status === 401)) known.set(k, true);
        else if (!approving && (status === 201 || status === 404)) known.set(k, false);
        else known.delete(k);
      };
      return approving
        ? { kind: 'approve', method: 'POST', path: `${base}/${mr.iid}/approve`, headers, body: { sha: mr.sha }, onDone }
        : { kind: 'unapprove', method: 'POST', path: `${base}/${mr.iid}/unapprove`, headers, onDone };
    },
    async verify(port) {
      const approvers = new Set(a.userIds);
      let mismatched = 0;
      let approved = 0;
      const check = async (i: number) => {
        const res = await fetch(`http://127.0.0.1:${port}${base}/${a.mrs[i].iid}/approvals`, { headers: { 'PRIVATE-TOKEN': m.rootToken } });
        const body = (await res.json()) as { approved_by: { user: { id: number } }[] };
        const got = new Set(body.approved_by.map((x) => x.user.id).filter((id) => approvers.has(id)));
        approved += got.size;
        for (let u = 0; u < a.tokens.length; u++) {
          const want = known.get(u * a.mrs.length + i);
          if (want !== undefined && want !== got.has(a.userIds[u])) mismatched++;
        }
      };
      for (let i = 0; i < a.mrs.length; i += 8) await Promise.all(Array.from({ length: Math.min(8, a.mrs.length - i) }, (_, j) => check(i + j)));
      const touched = Math.min(step, pairs);
      return `final state after ${step} writes: ${approved} approvals; of ${touched} pairs written, ${known.size} known from their last answer, ${mismatched} of those differ, ${touched - known.size} unanswered`;
    },
  };
}

/** What gitlab-runner 17.x reports about itself with every runner request (reference gitlab-behaviour-2.md 5.4; common/network.go VersionInfo). */
export const RUNNER_INFO = {
  name: 'gitlab-runner',
  version: '17.5.0',
  revision: '1d3ef4c3',
  platform: 'linux',
  architecture: 'amd64',
  executor: 'docker',
  shell: 'bash',
  features: {
    variables: true, image: true, services: true, artifacts: true, cache: true, fallback_cache_keys: true, shared: true, upload_multiple_artifacts: true,
    upload_raw_artifacts: true, session: true, terminal: true, refspecs: true, masking: true, proxy: true, raw_variables: true, artifacts_exclude: true,
    multi_build_steps: true, trace_reset: true, trace_checksum: true, trace_size: true, vault_secrets: true, cancelable: true, return_exit_code: true,
    service_variables: true, service_multiple_aliases: true, image_executor_opts: true, service_executor_opts: true, cancel_gracefully: true,
  },
  config: { gpus: '' },
};

/**
 * S6 (performance.md 4.4): a fleet of registered runners polling. Each request is the next runner's
 * (round robin over all of them, so every runner polls once per pass): 90 % `POST /jobs/request` with
 * the `last_update` that runner got from its previous poll, as gitlab-runner echoes
 * `X-GitLab-Last-Update`, and 10 % `POST /runners/verify`. Both carry the token in the body and the
 * `RUNNER-TOKEN` header, a `system_id` and the runner's `info`. `prepare` is each runner's first poll
 * after the server started (a fleet that was polling; run.ts freshens the seeded contacts so none is
 * due to be persisted): it loads the runner into the isolate's cache and collects the stamp the
 * measured polls send back. The cache keeps an entry until the runner change log names it
 * (src/ci/runner-changes.ts), so however slow a pass over the fleet is, a measured poll is answered
 * from the cache; the log check adds one round trip per 10 s per isolate.
 */
function runnersScenario(m: Manifest): Scenario {
  const n = m.runners?.count ?? 0;
  const r = rng(13);
  const stamps: (string | undefined)[] = new Array(n);
  const systemId = (k: number) => `s_${k.toString(16).padStart(12, '0')}`;
  const poll = (k: number): Req => {
    const token = runnerToken(k);
    return {
      kind: 'poll',
      method: 'POST',
      path: '/api/v4/jobs/request',
      headers: { 'RUNNER-TOKEN': token },
      body: { info: RUNNER_INFO, token, system_id: systemId(k), ...(stamps[k] ? { last_update: stamps[k] } : {}) },
    };
  };
  let step = 0;
  return {
    id: 'runner',
    title: `runners polling (${n} runners): 90 % \`POST /jobs/request\` with last_update, 10 % \`POST /runners/verify\``,
    next: () => {
      const k = step++ % Math.max(1, n);
      if (!r.chance(0.1)) return poll(k);
      const token = runnerToken(k);
      return { kind: 'verify', method: 'POST', path: '/api/v4/runners/verify', headers: { 'RUNNER-TOKEN': token }, body: { token, system_id: systemId(k), info: RUNNER_INFO } };
    },
    async prepare(port) {
      const t0 = performance.now();
      let next = 0;
      let trips = 0;
      const statuses: Record<number, number> = {};
      const worker = async () => {
        for (let k = next++; k < n; k = next++) {
          const req = poll(k);
          const res = await fetch(`http://127.0.0.1:${port}${req.path}`, { method: 'POST', headers: { ...req.headers, 'Content-Type': 'application/json' }, body: JSON.stringify(req.body) });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          trips += Number(res.headers.get('x-storage-round-trips') ?? 0);
          stamps[k] = res.headers.get('x-gitlab-last-update') ?? undefined;
        }
      };
      await Promise.all(Array.from({ length: 32 }, worker));
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      return `first polls of ${n} runners in ${s} s: ${Object.entries(statuses).map(([k, v]) => `${v} × ${k}`).join(', ')}, ${(trips / Math.max(1, n)).toFixed(2)} round trips each`;
    },
  };
}
