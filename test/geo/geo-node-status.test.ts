/**
 * GeoNodeStatus (ee/app/models/geo_node_status.rb, ee/lib/ee/api/entities/geo_node_status.rb) and
 * the current node's failures, on both runtimes. The current node's status is computed from this
 * server's own records when asked; a node that never reported (every other node) has none.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, rootToken, unique } from '../support';

let base: string;
let currentName: string;
const made: number[] = [];

const create = async (body: Record<string, unknown>) => {
  const res = await api('/geo_nodes', { token: rootToken, body });
  expect(res.status, res.text).toBe(201);
  made.push(res.body.id);
  return res.body;
};
const primary = () => create({ name: currentName, url: base, primary: true });
const secondary = () => create({ name: unique('geo'), url: `https://${unique('s')}.example.com` });

// A 1x1 transparent PNG.
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='), (ch) => ch.charCodeAt(0));

beforeAll(async () => {
  const probe = await secondary();
  base = probe._links.self.replace(/\/api\/v4\/geo_nodes\/\d+$/, '');
  currentName = `${base}/`;
});

afterEach(async () => {
  for (const id of made.splice(0)) await api(`/geo_nodes/${id}`, { method: 'DELETE', token: rootToken });
});

const status = async (id: number) => {
  const res = await api(`/geo_nodes/${id}/status`, { token: rootToken });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('GET /geo_nodes/:id/status', () => {
  it("answers the current node's status, computed now, healthy after its storage check", async () => {
    const node = await primary();
    const before = Math.floor(Date.now() / 1000);
    const s = await status(node.id);
    expect(s).toMatchObject({
      geo_node_id: node.id,
      healthy: true,
      health: 'Healthy',
      health_status: 'Healthy',
      missing_oauth_application: false,
      db_replication_lag_seconds: null,
      lfs_objects_count: 0,
      lfs_objects_synced_count: null,
      lfs_objects_registry_count: null,
      lfs_objects_checksummed_count: null,
      lfs_objects_synced_in_percentage: '0.00%',
      lfs_objects_verified_in_percentage: '0.00%',
      job_artifacts_count: 0,
      container_repositories_synced_in_percentage: '0.00%',
      repositories_synced_in_percentage: '0.00%',
      repositories_checked_count: 0,
      repositories_checked_in_percentage: '0.00%',
      replication_slots_count: 0,
      replication_slots_used_count: 0,
      replication_slots_used_in_percentage: '0.00%',
      last_event_id: null,
      cursor_last_event_id: null,
      revision: 'Unknown',
      selective_sync_type: null,
      _links: { self: `${base}/api/v4/geo_nodes/${node.id}/status`, node: `${base}/api/v4/geo_nodes/${node.id}` },
    });
    expect(s.repositories_count).toBe(s.projects_count);
    expect(s.wikis_count).toBe(s.projects_count);
    expect(s.last_successful_status_check_timestamp).toBeGreaterThanOrEqual(before - 1);
    expect(s.last_successful_status_check_timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
    expect(s.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const [k, v] of Object.entries(s)) if (k.endsWith('_in_percentage')) expect(v, k).toMatch(/^\d+\.\d{2}%$/);
  });

  it('counts the projects, merge request diffs and uploads this server holds', async () => {
    const node = await primary();
    const s0 = await status(node.id);

    const project = await api('/projects', { token: rootToken, body: { name: unique('geo-p') } });
    expect(project.status).toBe(201);
    const pid = project.body.id;
    const commit = (branch: string, file: string, start?: string) =>
      api(`/projects/${pid}/repository/commits`, { token: rootToken, body: { branch, start_branch: start, commit_message: file, actions: [{ action: 'create', file_path: file, content: 'x\n' }] } });
    expect((await commit('main', 'README.md')).status).toBe(201);
    expect((await commit('feature', 'b.txt', 'main')).status).toBe(201);
    const mr = await api(`/projects/${pid}/merge_requests`, { token: rootToken, body: { source_branch: 'feature', target_branch: 'main', title: 'geo' } });
    expect(mr.status).toBe(201);

    const username = unique('geoav');
    const fd = new FormData();
    for (const [k, v] of Object.entries({ email: `${username}@example.com`, name: 'Avatar', username, password: 'secret-pass-123', skip_confirmation: 'true' })) fd.append(k, v);
    fd.append('avatar', new File([PNG], 'face.png', { type: 'image/png' }));
    expect((await api('/users', { token: rootToken, multipart: fd })).status).toBe(201);

    const s1 = await status(node.id);
    expect(s1.projects_count).toBe(s0.projects_count + 1);
    expect(s1.repositories_count).toBe(s0.repositories_count + 1);
    expect(s1.merge_request_diffs_count).toBe(s0.merge_request_diffs_count + 1);
    expect(s1.uploads_count).toBe(s0.uploads_count + 1);
  });

  it('answers 404 for a node without a status (one that never reported) and for an unknown node', async () => {
    const node = await secondary();
    expect(await api(`/geo_nodes/${node.id}/status`, { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Status for Geo node not found Not Found' } });
    expect(await api('/geo_nodes/999999/status', { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await api(`/geo_nodes/${node.id}/status?refresh=maybe`, { token: rootToken })).toMatchObject({ status: 400, body: { error: 'refresh is invalid' } });
  });
});

describe('GET /geo_nodes/status', () => {
  it('lists the statuses there are: none without a current node, the current one beside secondaries', async () => {
    await secondary();
    const none = await api('/geo_nodes/status', { token: rootToken });
    expect(none).toMatchObject({ status: 200, body: [] });
    expect(none.headers.get('x-total')).toBe('0');
    const node = await primary();
    const list = await api('/geo_nodes/status', { token: rootToken });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ geo_node_id: node.id, healthy: true });
    expect(list.headers.get('x-total')).toBe('1');
  });
});

describe('GET /geo_nodes/current/failures', () => {
  it('answers 404 without a current node and 403 on a primary', async () => {
    await secondary();
    expect(await api('/geo_nodes/current/failures', { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Geo node not found Not Found' } });
    await primary();
    expect(await api('/geo_nodes/current/failures', { token: rootToken })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Failures can only be requested from a secondary node' } });
    expect(await api('/geo_nodes/current/failures?type=lfs', { token: rootToken })).toMatchObject({ status: 400, body: { error: 'type does not have a valid value' } });
  });
});

describe('round trips', () => {
  it('answers each read in one storage round trip once the caller is cached', async () => {
    const node = await primary();
    await api('/geo_nodes', { token: rootToken });
    for (const path of ['/geo_nodes', '/geo_nodes/status', `/geo_nodes/${node.id}`, `/geo_nodes/${node.id}/status`, '/geo_nodes/current/failures']) {
      const res = await api(path, { token: rootToken });
      expect(res.status, path).toBeLessThan(500);
      const trips = res.headers.get('x-storage-round-trips');
      expect(trips, path).not.toBeNull();
      expect(Number(trips), path).toBeLessThanOrEqual(2);
    }
  });
});
