/**
 * Geo nodes (ee/lib/api/geo_nodes.rb, ee/app/models/geo_node.rb, ee/lib/ee/api/entities/geo_node.rb;
 * spec doc 001 "Replication (geo) nodes"), on both runtimes. Nodes are instance-wide, so every test
 * removes the nodes it made; the instance's own node name is learnt from the links the server builds
 * (its external URL, which is the default node name once a slash is added).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

let user: TestUser;
/** This server's external URL (no trailing slash) and so the default name of its own Geo node. */
let base: string;
let currentName: string;
const made: number[] = [];

const create = async (body: Record<string, unknown>) => {
  const res = await api('/geo_nodes', { token: rootToken, body });
  if (res.status === 201) made.push(res.body.id);
  return res;
};
const secondary = (extra: Record<string, unknown> = {}) => create({ name: unique('geo'), url: `https://${unique('s')}.example.com`, ...extra });

beforeAll(async () => {
  user = await createUser();
  const probe = await secondary();
  expect(probe.status).toBe(201);
  base = probe.body._links.self.replace(/\/api\/v4\/geo_nodes\/\d+$/, '');
  currentName = `${base}/`;
});

afterEach(async () => {
  for (const id of made.splice(0)) await api(`/geo_nodes/${id}`, { method: 'DELETE', token: rootToken });
});

describe('POST /geo_nodes', () => {
  it('creates a secondary with the model defaults and presents it as GeoNode', async () => {
    const name = unique('Site');
    const res = await create({ name, url: 'https://secondary.example.com' });
    expect(res.status).toBe(201);
    const id = res.body.id;
    const api4 = `${base}/api/v4/geo_nodes/${id}`;
    expect(res.body).toEqual({
      id,
      name,
      url: 'https://secondary.example.com/',
      internal_url: 'https://secondary.example.com/',
      primary: false,
      enabled: true,
      current: false,
      files_max_capacity: 10,
      repos_max_capacity: 25,
      verification_max_capacity: 100,
      container_repositories_max_capacity: 10,
      selective_sync_type: null,
      selective_sync_shards: [],
      selective_sync_namespace_ids: [],
      minimum_reverification_interval: 7,
      sync_object_storage: false,
      clone_protocol: 'http',
      web_edit_url: `${base}/admin/geo/sites/${id}/edit`,
      web_geo_projects_url: 'https://secondary.example.com/admin/geo/replication/projects',
      web_geo_replication_details_url: `https://secondary.example.com/admin/geo/sites/${id}/replication/lfs_objects`,
      _links: { self: api4, status: `${api4}/status`, repair: `${api4}/repair` },
    });
    const shown = await api(`/geo_nodes/${id}`, { token: rootToken });
    expect(shown).toMatchObject({ status: 200, body: res.body });
  });

  it('takes every attribute, with comma-separated lists and existing namespaces', async () => {
    const group = await api('/groups', { token: rootToken, body: { name: unique('g'), path: unique('g') } });
    expect(group.status).toBe(201);
    const res = await create({
      name: unique('geo'),
      url: 'http://replica.example.com:8080/gitlab',
      internal_url: 'http://10.0.0.5:8080/gitlab',
      enabled: false,
      files_max_capacity: 0,
      repos_max_capacity: 3,
      verification_max_capacity: 4,
      container_repositories_max_capacity: 5,
      sync_object_storage: true,
      selective_sync_type: 'namespaces',
      selective_sync_shards: 'default,other',
      selective_sync_namespace_ids: `${group.body.id}`,
      minimum_reverification_interval: 30,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      url: 'http://replica.example.com:8080/gitlab/',
      internal_url: 'http://10.0.0.5:8080/gitlab/',
      enabled: false,
      files_max_capacity: 0,
      repos_max_capacity: 3,
      verification_max_capacity: 4,
      container_repositories_max_capacity: 5,
      sync_object_storage: true,
      selective_sync_type: 'namespaces',
      selective_sync_shards: ['default', 'other'],
      selective_sync_namespace_ids: [group.body.id],
      minimum_reverification_interval: 30,
      web_geo_projects_url: 'http://replica.example.com:8080/gitlab/admin/geo/replication/projects',
    });
  });

  it('normalises names and URLs: a trailing slash, a name that is the URL, an internal URL equal to the URL, a stripped name', async () => {
    const host = `https://${unique('n')}.example.com`;
    const same = await create({ name: host, url: host, internal_url: `${host}/` });
    expect(same.status).toBe(201);
    expect(same.body).toMatchObject({ name: `${host}/`, url: `${host}/`, internal_url: `${host}/` });
    const name = unique('padded');
    const padded = await secondary({ name: `  ${name}  ` });
    expect(padded.body.name).toBe(name);
  });

  it('answers the model validation errors in their order', async () => {
    const taken = await secondary();
    const res = await api('/geo_nodes', {
      token: rootToken,
      body: {
        name: taken.body.name.toUpperCase(),
        url: 'ftp://example.com',
        internal_url: 'not a url',
        selective_sync_type: 'projects',
        repos_max_capacity: -1,
        files_max_capacity: -1,
        verification_max_capacity: -1,
        container_repositories_max_capacity: -1,
        minimum_reverification_interval: 0,
      },
    });
    expect(res).toMatchObject({
      status: 400,
      body: {
        message: {
          name: ['has already been taken'],
          url: ['must be a valid URL'],
          internal_url: ['must be a valid URL'],
          selective_sync_type: ['is not included in the list'],
          repos_max_capacity: ['must be greater than or equal to 0'],
          files_max_capacity: ['must be greater than or equal to 0'],
          verification_max_capacity: ['must be greater than or equal to 0'],
          container_repositories_max_capacity: ['must be greater than or equal to 0'],
          minimum_reverification_interval: ['must be greater than or equal to 1'],
        },
      },
    });
    expect(Object.keys(res.body.message)).toEqual(['name', 'url', 'internal_url', 'selective_sync_type', 'repos_max_capacity', 'files_max_capacity', 'verification_max_capacity', 'container_repositories_max_capacity', 'minimum_reverification_interval']);
    expect((await api('/geo_nodes', { token: rootToken, body: { name: ' ', url: '' } })).body).toEqual({ message: { name: ["can't be blank"], url: ["can't be blank", 'must be a valid URL'] } });
    expect((await api('/geo_nodes', { token: rootToken, body: { name: 'x'.repeat(256), url: 'https://long.example.com' } })).body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
  });

  it('refuses a secondary carrying the current node name, a second primary and a disabled primary', async () => {
    expect(await api('/geo_nodes', { token: rootToken, body: { name: currentName, url: 'https://elsewhere.example.com' } })).toMatchObject({
      status: 400,
      body: { message: { base: ['Current node must be the primary node or you will be locking yourself out'] } },
    });
    expect((await api('/geo_nodes', { token: rootToken, body: { name: unique('p'), url: 'https://p.example.com', primary: true, enabled: false } })).body).toEqual({
      message: { enabled: ['Geo primary node cannot be disabled'] },
    });
    const primary = await create({ name: currentName, url: base, primary: true });
    expect(primary.status).toBe(201);
    expect(primary.body).toMatchObject({ primary: true, current: true, enabled: true });
    // A primary shows neither sync_object_storage nor the secondary's replication pages.
    expect(Object.keys(primary.body)).not.toContain('sync_object_storage');
    expect(Object.keys(primary.body)).not.toContain('web_geo_projects_url');
    expect(await api('/geo_nodes', { token: rootToken, body: { name: unique('p'), url: 'https://p2.example.com', primary: true } })).toMatchObject({
      status: 400,
      body: { message: { primary: ['node already exists'] } },
    });
  });

  it('answers Grape parameter errors and an unknown namespace', async () => {
    expect(await api('/geo_nodes', { token: rootToken, body: {} })).toMatchObject({ status: 400, body: { error: 'name is missing, url is missing' } });
    expect(await api('/geo_nodes', { token: rootToken, body: { name: 'a', url: 'https://a.example.com', files_max_capacity: 'many' } })).toMatchObject({
      status: 400,
      body: { error: 'files_max_capacity is invalid' },
    });
    expect(await api('/geo_nodes', { token: rootToken, body: { name: unique('a'), url: 'https://a.example.com', selective_sync_namespace_ids: [999999] } })).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    const list = await api('/geo_nodes?per_page=100', { token: rootToken });
    expect(list.body.map((n: { url: string }) => n.url)).not.toContain('https://a.example.com/');
  });
});

describe('concurrent creation', () => {
  it('lets one of several simultaneous primaries, and one of several nodes of the same name, in', async () => {
    const primaries = await Promise.all([0, 1, 2, 3].map((i) => create({ name: unique(`p${i}`), url: `https://p${i}.example.com`, primary: true })));
    expect(primaries.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of primaries.filter((x) => x.status !== 201)) expect(r).toMatchObject({ status: 400, body: { message: { primary: ['node already exists'] } } });
    const name = unique('twin');
    const twins = await Promise.all([0, 1, 2, 3].map((i) => create({ name: i % 2 ? name : name.toUpperCase(), url: `https://t${i}.example.com` })));
    expect(twins.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of twins.filter((x) => x.status !== 201)) expect(r).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
    const list = await api('/geo_nodes?per_page=100', { token: rootToken });
    expect(list.body.filter((n: { primary: boolean }) => n.primary)).toHaveLength(1);
  });
});

describe('administrators only', () => {
  it('answers 401 to anonymous callers and 403 to users before looking at parameters', async () => {
    const node = await secondary();
    const routes: [string, string][] = [
      ['POST', '/geo_nodes'],
      ['GET', '/geo_nodes'],
      ['GET', '/geo_nodes/status'],
      ['GET', '/geo_nodes/current/failures'],
      ['GET', `/geo_nodes/${node.body.id}`],
      ['GET', `/geo_nodes/${node.body.id}/status`],
      ['POST', `/geo_nodes/${node.body.id}/repair`],
      ['PUT', `/geo_nodes/${node.body.id}`],
      ['DELETE', `/geo_nodes/${node.body.id}`],
    ];
    for (const [method, path] of routes) {
      expect(await api(path, { method, token: null, body: method === 'GET' ? undefined : {} }), `${method} ${path}`).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
      expect(await api(path, { method, token: user.token, body: method === 'GET' ? undefined : {} }), `${method} ${path}`).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    }
    expect((await api(`/geo_nodes/${node.body.id}`, { token: rootToken })).status).toBe(200);
  });
});

describe('GET /geo_nodes', () => {
  it('lists the nodes by id with pagination headers', async () => {
    const a = await secondary();
    const b = await secondary();
    const res = await api('/geo_nodes?per_page=100', { token: rootToken });
    expect(res.status).toBe(200);
    const ids = res.body.map((n: { id: number }) => n.id);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));
    expect(ids).toEqual(expect.arrayContaining([a.body.id, b.body.id]));
    expect(res.headers.get('x-total')).toBe(String(ids.length));
    const page = await api('/geo_nodes?per_page=1', { token: rootToken });
    expect(page.body).toHaveLength(1);
    expect(page.headers.get('x-next-page')).toBe('2');
  });

  it('answers 404 Not found for an unknown node', async () => {
    expect(await api('/geo_nodes/999999', { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});

describe('PUT /geo_nodes/:id', () => {
  it('updates what is given and validates the result', async () => {
    const node = await secondary();
    const id = node.body.id;
    const res = await api(`/geo_nodes/${id}`, { method: 'PUT', token: rootToken, body: { name: node.body.name, url: 'https://moved.example.com', repos_max_capacity: 7, selective_sync_type: 'shards', selective_sync_shards: ['default'] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, url: 'https://moved.example.com/', internal_url: 'https://moved.example.com/', repos_max_capacity: 7, files_max_capacity: 10, selective_sync_type: 'shards', selective_sync_shards: ['default'] });
    expect((await api(`/geo_nodes/${id}`, { token: rootToken })).body).toEqual(res.body);

    const cleared = await api(`/geo_nodes/${id}`, { method: 'PUT', token: rootToken, body: { name: node.body.name, url: 'https://moved.example.com', selective_sync_type: null } });
    expect(cleared.body.selective_sync_type).toBeNull();

    expect(await api(`/geo_nodes/${id}`, { method: 'PUT', token: rootToken, body: { name: node.body.name, url: 'https://moved.example.com', verification_max_capacity: -5 } })).toMatchObject({
      status: 400,
      body: { message: { verification_max_capacity: ['must be greater than or equal to 0'] } },
    });
    expect((await api(`/geo_nodes/${id}`, { token: rootToken })).body.verification_max_capacity).toBe(100);
    const other = await secondary();
    expect(await api(`/geo_nodes/${id}`, { method: 'PUT', token: rootToken, body: { name: other.body.name, url: 'https://moved.example.com' } })).toMatchObject({
      status: 400,
      body: { message: { name: ['has already been taken'] } },
    });
    expect(await api(`/geo_nodes/${id}`, { method: 'PUT', token: rootToken, body: { url: 'https://x.example.com' } })).toMatchObject({ status: 400, body: { error: 'name is missing' } });
    expect(await api('/geo_nodes/999999', { method: 'PUT', token: rootToken, body: { name: 'n', url: 'https://x.example.com' } })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('keeps the primary enabled and the current node primary', async () => {
    const primary = await create({ name: currentName, url: base, primary: true });
    expect(primary.status).toBe(201);
    const id = primary.body.id;
    expect(await api(`/geo_nodes/${id}`, { method: 'PUT', token: rootToken, body: { name: currentName, url: base, enabled: false } })).toMatchObject({
      status: 400,
      body: { message: { enabled: ['Geo primary node cannot be disabled'] } },
    });
    const renamed = await api(`/geo_nodes/${id}`, { method: 'PUT', token: rootToken, body: { name: 'Primary', url: base, files_max_capacity: 1 } });
    expect(renamed.body).toMatchObject({ name: 'Primary', current: false, files_max_capacity: 1, enabled: true });
  });
});

describe('DELETE /geo_nodes/:id and POST /geo_nodes/:id/repair', () => {
  it('repairs (nothing to repair: the node is answered) and deletes', async () => {
    const node = await secondary();
    const id = node.body.id;
    expect(await api(`/geo_nodes/${id}/repair`, { method: 'POST', token: rootToken })).toMatchObject({ status: 200, body: node.body });
    const gone = await api(`/geo_nodes/${id}`, { method: 'DELETE', token: rootToken });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect((await api(`/geo_nodes/${id}`, { token: rootToken })).status).toBe(404);
    expect(await api(`/geo_nodes/${id}`, { method: 'DELETE', token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await api(`/geo_nodes/${id}/repair`, { method: 'POST', token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // The name is free again.
    expect((await create({ name: node.body.name, url: 'https://again.example.com' })).status).toBe(201);
  });
});
