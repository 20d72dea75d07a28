/**
 * The parameter encodings real clients send to /geo_nodes (scripts/clients/gitbeaker-admin-check.mjs,
 * python_gitlab_geo_check.py): JSON arrays and booleans, multipart/urlencoded forms with `key[]` arrays and
 * booleans as strings, comma-separated lists, and gitbeaker's GeoNodes.allStatuses() path, which GitLab never
 * served. Secondaries only, each removed after its test (nodes are instance-wide).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

let owner: TestUser;
let nsId: number;
const made: number[] = [];

beforeAll(async () => {
  owner = await createUser();
  const project = await api('/projects', { token: owner.token, body: { name: unique('p') } });
  expect(project.status).toBe(201);
  nsId = project.body.namespace.id;
});

afterEach(async () => {
  for (const id of made.splice(0)) await api(`/geo_nodes/${id}`, { method: 'DELETE', token: rootToken });
});

const named = () => {
  const name = unique('geo');
  return { name, url: `https://${name}.example.com` };
};

describe('POST and PUT /geo_nodes: client encodings', () => {
  it('JSON: booleans as strings, an array mixing numbers and numeric strings, a shards array', async () => {
    const res = await api('/geo_nodes', {
      token: rootToken,
      body: { ...named(), enabled: 'false', sync_object_storage: 'true', selective_sync_type: 'namespaces', selective_sync_namespace_ids: [nsId, String(nsId)], selective_sync_shards: ['default'] },
    });
    expect(res.status).toBe(201);
    made.push(res.body.id);
    expect(res.body).toMatchObject({ enabled: false, sync_object_storage: true, selective_sync_type: 'namespaces', selective_sync_namespace_ids: [nsId], selective_sync_shards: ['default'] });
  });

  it('an urlencoded form: key[] arrays, 0/1 booleans, a capacity as text; PUT with a comma-separated list', async () => {
    const node = named();
    const res = await api('/geo_nodes', {
      token: rootToken,
      form: { ...node, 'selective_sync_namespace_ids[]': [String(nsId)], 'selective_sync_shards[]': ['default', 'other'], enabled: '0', files_max_capacity: '7' },
    });
    expect(res.status).toBe(201);
    made.push(res.body.id);
    expect(res.body).toMatchObject({ enabled: false, files_max_capacity: 7, selective_sync_namespace_ids: [nsId], selective_sync_shards: ['default', 'other'] });

    const put = await api(`/geo_nodes/${res.body.id}`, { method: 'PUT', token: rootToken, form: { ...node, selective_sync_shards: 'a,b', enabled: 'true' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ enabled: true, selective_sync_shards: ['a', 'b'] });
  });

  it('a multipart form (gitbeaker isForm): booleans and numbers as strings', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ ...named(), enabled: 'false', repos_max_capacity: '5' })) form.append(k, v);
    const res = await api('/geo_nodes', { token: rootToken, multipart: form });
    expect(res.status).toBe(201);
    made.push(res.body.id);
    expect(res.body).toMatchObject({ enabled: false, repos_max_capacity: 5 });
  });

  it('PUT without name and url (gitbeaker GeoNodes.edit with only options) is a Grape 400', async () => {
    const res = await api('/geo_nodes', { token: rootToken, body: named() });
    made.push(res.body.id);
    const put = await api(`/geo_nodes/${res.body.id}`, { method: 'PUT', token: rootToken, body: { enabled: false } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ error: 'name is missing, url is missing' });
  });
});

describe("gitbeaker's paths", () => {
  it('GET /geo_nodes/statuses (GeoNodes.allStatuses) is /geo_nodes/:id with a non-integer id: 400', async () => {
    const res = await api('/geo_nodes/statuses', { token: rootToken });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'id is invalid' });
  });

  it('GET /geo_sites (GeoSites, GitLab 16+) is not served: 404', async () => {
    const res = await api('/geo_sites', { token: rootToken });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: '404 Not Found' });
  });
});
