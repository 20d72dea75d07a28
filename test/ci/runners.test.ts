/**
 * Issue 14: the user-facing runner API (lib/api/ci/runners.rb, 14.x): the Runner and RunnerDetails
 * entities, status and online, GET /runners (owned), /runners/all (administrators), a runner's
 * details, update, pause and delete, with GitLab's permission rules and error bodies.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { instanceToken, noToken, register, runnerWorld } from './runner-fixtures';

const RUNNER_KEYS = ['id', 'description', 'ip_address', 'active', 'paused', 'is_shared', 'runner_type', 'name', 'online', 'status'];
const DETAIL_KEYS = [...RUNNER_KEYS, 'tag_list', 'run_untagged', 'locked', 'maximum_timeout', 'access_level', 'version', 'revision', 'platform', 'architecture', 'contacted_at', 'maintenance_note', 'projects', 'groups'];

describe('GET /runners/:id', () => {
  it("shows a project runner's details to its project's maintainers and administrators, in GitLab's field order", async () => {
    const w = await runnerWorld();
    const info = { name: 'gitlab-runner', version: '14.10.0', revision: 'c6bb62f6', platform: 'linux', architecture: 'amd64' };
    const { id, token } = await register(w.projectToken, { description: 'box', tag_list: 'docker,linux', maintenance_note: 'rack 4', info });
    const res = await api(`/runners/${id}`, { token: w.maintainer.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(DETAIL_KEYS);
    expect(res.body).toMatchObject({
      id,
      description: 'box',
      active: true,
      paused: false,
      is_shared: false,
      runner_type: 'project_type',
      name: 'gitlab-runner',
      online: null,
      status: 'not_connected',
      tag_list: ['docker', 'linux'],
      run_untagged: true,
      locked: false,
      maximum_timeout: null,
      access_level: 'not_protected',
      version: '14.10.0',
      revision: 'c6bb62f6',
      platform: 'linux',
      architecture: 'amd64',
      contacted_at: null,
      maintenance_note: 'rack 4',
      groups: [],
    });
    expect(res.body.projects).toEqual([{ id: w.project.id, name: w.project.name, name_with_namespace: `${w.group.name} / ${w.project.name}`, path: expect.any(String), path_with_namespace: w.project.path_with_namespace }]);
    noToken(res, token);
    expect((await api(`/runners/${id}`, { token: rootToken })).body.projects).toHaveLength(1);
  });

  it('refuses developers and strangers (403 No access granted), answers 404 for a missing runner and 401 anonymously', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken);
    for (const u of [w.developer, w.stranger]) expect((await api(`/runners/${id}`, { token: u.token })).body).toEqual({ message: '403 Forbidden - No access granted' });
    expect((await api('/runners/999999999', { token: w.owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(`/runners/${id}`)).status).toBe(401);
    expect((await api('/runners/abc', { token: w.owner.token })).body).toEqual({ error: 'id is invalid' });
  });

  it('shows instance runners to every signed-in user, without the maintenance note', async () => {
    const { id } = await register(await instanceToken(), { maintenance_note: 'secret-ish' });
    const user = await createUser();
    const res = await api(`/runners/${id}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_shared: true, runner_type: 'instance_type', maintenance_note: null, projects: [], groups: [] });
    expect((await api(`/runners/${id}`, { token: rootToken })).body.maintenance_note).toBe('secret-ish');
  });

  it('shows group runners to the group owner with the group, not to project maintainers', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.groupToken);
    const res = await api(`/runners/${id}`, { token: w.owner.token });
    expect(res.status).toBe(200);
    expect(res.body.runner_type).toBe('group_type');
    expect(res.body.groups).toEqual([{ id: w.group.id, web_url: expect.stringMatching(new RegExp(`/groups/${w.group.full_path}$`)), name: w.group.name }]);
    expect((await api(`/runners/${id}`, { token: w.maintainer.token })).status).toBe(403);
  });

  it('lists only the projects the caller may see', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken);
    // The owner enables the runner in their personal project; the maintainer is no member there.
    expect((await api(`/projects/${w.other.id}/runners`, { token: w.owner.token, body: { runner_id: id } })).status).toBe(201);
    expect((await api(`/runners/${id}`, { token: w.owner.token })).body.projects.map((p: { id: number }) => p.id).sort()).toEqual([w.project.id, w.other.id].sort());
    expect((await api(`/runners/${id}`, { token: w.maintainer.token })).body.projects.map((p: { id: number }) => p.id)).toEqual([w.project.id]);
    expect((await api(`/runners/${id}`, { token: rootToken })).body.projects).toHaveLength(2);
  });
});

describe('status and online', () => {
  it('is not_connected before the first contact, online after it, paused when paused (and not_connected wins)', async () => {
    const w = await runnerWorld();
    const { id, token } = await register(w.projectToken);
    const paused = await register(w.projectToken, { paused: true });
    expect((await api(`/runners/${paused.id}`, { token: w.owner.token })).body).toMatchObject({ active: false, paused: true, status: 'not_connected', online: null });
    expect((await api('/runners/verify', { method: 'POST', body: { token } })).status).toBe(200);
    const after = (await api(`/runners/${id}`, { token: w.owner.token })).body;
    expect(after).toMatchObject({ online: true, status: 'online' });
    expect(Date.now() - Date.parse(after.contacted_at)).toBeLessThan(60_000);
    expect((await api('/jobs/request', { method: 'POST', body: { token: paused.token } })).status).toBe(204);
    expect((await api(`/runners/${paused.id}`, { token: w.owner.token })).body).toMatchObject({ online: true, status: 'paused' });
  });
});

describe('GET /runners and /runners/all', () => {
  it("lists the caller's project and group runners (not instance runners), with pagination headers", async () => {
    const w = await runnerWorld();
    const a = await register(w.projectToken, { description: 'a' });
    const b = await register(w.groupToken, { description: 'b' });
    const inst = await register(await instanceToken());
    const own = await api('/runners', { token: w.owner.token });
    expect(own.status).toBe(200);
    expect(own.body.map((r: { id: number }) => r.id)).toEqual([a.id, b.id]);
    expect(Object.keys(own.body[0])).toEqual(RUNNER_KEYS);
    expect(own.headers.get('x-total')).toBe('2');
    noToken(own, a.token, b.token);
    // The project maintainer owns the project runner only; a developer owns none.
    expect((await api('/runners', { token: w.maintainer.token })).body.map((r: { id: number }) => r.id)).toEqual([a.id]);
    expect((await api('/runners', { token: w.developer.token })).body).toEqual([]);
    const paged = await api('/runners?per_page=1&page=2', { token: w.owner.token });
    expect(paged.body.map((r: { id: number }) => r.id)).toEqual([b.id]);
    expect(paged.headers.get('x-page')).toBe('2');
    expect(paged.headers.get('x-total-pages')).toBe('2');
    // /runners/all is for administrators and includes instance runners.
    expect((await api('/runners/all', { token: w.owner.token })).body).toEqual({ message: '403 Forbidden' });
    const all = await api('/runners/all?per_page=100&type=instance_type', { token: rootToken });
    expect(all.body.map((r: { id: number }) => r.id)).toContain(inst.id);
    expect(all.body.every((r: { is_shared: boolean }) => r.is_shared)).toBe(true);
    expect((await api('/runners')).status).toBe(401);
  });

  it('filters by type, status, paused, tag_list (all listed tags) and the deprecated scope', async () => {
    const w = await runnerWorld();
    const tagged = await register(w.projectToken, { tag_list: 'docker,linux,gpu' });
    const docker = await register(w.projectToken, { tag_list: 'docker' });
    const paused = await register(w.projectToken, { paused: true });
    const group = await register(w.groupToken);
    await api('/runners/verify', { method: 'POST', body: { token: tagged.token } });
    const ids = async (q: string) => {
      const res = await api(`/runners?${q}`, { token: w.owner.token });
      expect(res.status).toBe(200);
      return res.body.map((r: { id: number }) => r.id);
    };
    expect(await ids('type=group_type')).toEqual([group.id]);
    expect(await ids('type=project_type')).toEqual([tagged.id, docker.id, paused.id]);
    expect(await ids('tag_list=docker,linux')).toEqual([tagged.id]);
    expect(await ids('tag_list[]=docker')).toEqual([tagged.id, docker.id]);
    expect(await ids('paused=true')).toEqual([paused.id]);
    expect(await ids('paused=false')).toEqual([tagged.id, docker.id, group.id]);
    expect(await ids('status=online')).toEqual([tagged.id]);
    expect(await ids('status=not_connected')).toEqual([docker.id, paused.id, group.id]);
    expect(await ids('status=offline')).toEqual([]);
    expect(await ids('status=paused')).toEqual([paused.id]);
    expect(await ids('scope=online')).toEqual([tagged.id]);
    expect(await ids('scope=active&type=project_type')).toEqual([tagged.id, docker.id]);
    // Scopes /runners does not take (its `values:` are the statuses: Grape's words), and values nobody takes.
    expect(await api('/runners?scope=shared', { token: w.owner.token })).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    expect(await api('/runners?scope=specific', { token: w.owner.token })).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    expect(await api('/runners?scope=project_type', { token: w.owner.token })).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    expect((await api('/runners?scope=bogus', { token: w.owner.token })).body).toEqual({ error: 'scope does not have a valid value' });
    expect((await api('/runners?type=bogus', { token: w.owner.token })).body).toEqual({ error: 'type does not have a valid value' });
    expect((await api('/runners?status=stale', { token: w.owner.token })).body).toEqual({ error: 'status does not have a valid value' });
    // /runners/all takes the legacy scopes.
    const specific = (await api(`/runners/all?scope=specific&tag_list=gpu`, { token: rootToken })).body.map((r: { id: number }) => r.id);
    expect(specific).toContain(tagged.id);
    expect((await api('/runners/all?scope=shared&type=project_type', { token: rootToken })).body).toEqual([]);
  });
});

describe('PUT /runners/:id', () => {
  it('updates the details and answers RunnerDetails; pausing stops the runner from taking jobs', async () => {
    const w = await runnerWorld();
    const { id, token } = await register(w.projectToken);
    await api('/jobs/request', { method: 'POST', body: { token } });
    const res = await api(`/runners/${id}`, {
      method: 'PUT',
      token: w.maintainer.token,
      body: { description: 'renamed', tag_list: ['ruby', ' ruby', 'mysql'], run_untagged: false, locked: true, access_level: 'ref_protected', maximum_timeout: 3600, maintenance_note: 'n', paused: true },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(DETAIL_KEYS);
    expect(res.body).toMatchObject({ description: 'renamed', tag_list: ['ruby', 'mysql'], run_untagged: false, locked: true, access_level: 'ref_protected', maximum_timeout: 3600, maintenance_note: 'n', active: false, paused: true, status: 'paused' });
    noToken(res, token);
    expect((await api(`/runners/${id}`, { token: w.owner.token })).body).toMatchObject({ description: 'renamed', paused: true });
    expect((await api('/runners/all?paused=true&per_page=100', { token: rootToken })).body.map((r: { id: number }) => r.id)).toContain(id);
    // The deprecated `active` resumes it.
    expect((await api(`/runners/${id}`, { method: 'PUT', token: w.owner.token, body: { active: true } })).body).toMatchObject({ active: true, paused: false });
  });

  it("refuses invalid values with GitLab's bodies, and callers who do not own the runner", async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken);
    const put = (body: Record<string, unknown>, token = w.owner.token) => api(`/runners/${id}`, { method: 'PUT', token, body });
    expect((await put({ maximum_timeout: 599 })).body).toEqual({ message: { maximum_timeout: ['needs to be at least 10 minutes'] } });
    expect((await put({ run_untagged: false })).body).toEqual({ message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } });
    expect((await put({ maintenance_note: 'x'.repeat(1025) })).body).toEqual({ message: { maintenance_note: ['is too long (maximum is 1024 characters)'] } });
    expect((await put({})).body).toEqual({ error: 'description, active, paused, tag_list, run_untagged, locked, access_level, maximum_timeout, maintenance_note are missing, at least one parameter must be provided' });
    expect((await put({ active: true, paused: false })).body).toEqual({ error: 'active, paused are mutually exclusive' });
    expect((await put({ access_level: 'everything' })).body).toEqual({ error: 'access_level does not have a valid value' });
    expect((await put({ description: 'x' }, w.developer.token)).body).toEqual({ message: '403 Forbidden - No access granted' });
    expect((await api('/runners/999999999', { method: 'PUT', token: rootToken, body: { description: 'x' } })).status).toBe(404);
    // Nothing changed.
    expect((await api(`/runners/${id}`, { token: w.owner.token })).body).toMatchObject({ description: '', maximum_timeout: null, run_untagged: true });
    // Instance runners are readable by everyone but updatable by administrators only.
    const inst = await register(await instanceToken());
    expect((await api(`/runners/${inst.id}`, { method: 'PUT', token: w.owner.token, body: { description: 'x' } })).status).toBe(403);
    expect((await api(`/runners/${inst.id}`, { method: 'PUT', token: rootToken, body: { description: unique('shared') } })).status).toBe(200);
  });

  it('clears maximum_timeout given as null (JSON) or blank (form); 599 is still refused', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken, { maximum_timeout: 3600 });
    const put = (opts: { body?: Record<string, unknown>; form?: Record<string, string> }) => api(`/runners/${id}`, { method: 'PUT', token: w.owner.token, ...opts });
    expect((await api(`/runners/${id}`, { token: w.owner.token })).body.maximum_timeout).toBe(3600);
    // Alone, a null key still counts for at_least_one_of (Grape checks key presence).
    const cleared = await put({ body: { maximum_timeout: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.maximum_timeout).toBeNull();
    expect((await api(`/runners/${id}`, { token: w.owner.token })).body.maximum_timeout).toBeNull();
    expect((await put({ body: { maximum_timeout: 7200 } })).body.maximum_timeout).toBe(7200);
    const blank = await put({ form: { maximum_timeout: '', description: 'form' } });
    expect(blank.status).toBe(200);
    expect(blank.body).toMatchObject({ maximum_timeout: null, description: 'form' });
    expect((await put({ body: { maximum_timeout: 599 } })).body).toEqual({ message: { maximum_timeout: ['needs to be at least 10 minutes'] } });
    // Absent, it is kept.
    await put({ body: { maximum_timeout: 900 } });
    expect((await put({ body: { description: 'kept' } })).body.maximum_timeout).toBe(900);
  });

  it('clears the tags given a blank tag_list (form), an empty list or null (JSON)', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken, { tag_list: 'a,b' });
    const put = (opts: { body?: Record<string, unknown>; form?: Record<string, string> }) => api(`/runners/${id}`, { method: 'PUT', token: w.owner.token, ...opts });
    expect((await api(`/runners/${id}`, { token: w.owner.token })).body.tag_list).toEqual(['a', 'b']);
    const blank = await put({ form: { tag_list: '' } });
    expect(blank.status).toBe(200);
    expect(blank.body.tag_list).toEqual([]);
    expect((await put({ body: { tag_list: ['c'] } })).body.tag_list).toEqual(['c']);
    expect((await put({ body: { tag_list: [] } })).body.tag_list).toEqual([]);
    await put({ body: { tag_list: 'e' } });
    expect((await put({ body: { tag_list: null } })).body.tag_list).toEqual([]);
    // Without tags a runner must take untagged jobs: the model's refusal, tags unchanged.
    await put({ body: { tag_list: 'd' } });
    expect((await put({ form: { tag_list: '', run_untagged: 'false' } })).body).toEqual({ message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } });
    expect((await api(`/runners/${id}`, { token: w.owner.token })).body.tag_list).toEqual(['d']);
  });
});

describe('DELETE /runners/:id', () => {
  it('deletes a runner (204): its token stops working and it is gone from lists', async () => {
    const w = await runnerWorld();
    const { id, token } = await register(w.projectToken);
    expect((await api('/runners/verify', { method: 'POST', body: { token } })).status).toBe(200);
    expect((await api(`/runners/${id}`, { method: 'DELETE', token: w.developer.token })).body).toEqual({ message: '403 Forbidden - No access granted' });
    const res = await api(`/runners/${id}`, { method: 'DELETE', token: w.maintainer.token });
    expect(res.status).toBe(204);
    expect((await api('/runners/verify', { method: 'POST', body: { token } })).status).toBe(403);
    expect((await api(`/runners/${id}`, { token: rootToken })).status).toBe(404);
    expect((await api('/runners', { token: w.owner.token })).body).toEqual([]);
    expect((await api(`/runners/${id}`, { method: 'DELETE', token: rootToken })).body).toEqual({ message: '404 Not found' });
  });

  it('refuses a non-administrator for a runner of several projects, and honours If-Unmodified-Since', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken);
    expect((await api(`/projects/${w.other.id}/runners`, { token: w.owner.token, body: { runner_id: id } })).status).toBe(201);
    expect((await api(`/runners/${id}`, { method: 'DELETE', token: w.owner.token })).body).toEqual({ message: '403 Forbidden - Runner associated with more than one project' });
    // Even a caller with no access hears about the projects first (GitLab's order of checks).
    expect((await api(`/runners/${id}`, { method: 'DELETE', token: w.stranger.token })).body).toEqual({ message: '403 Forbidden - Runner associated with more than one project' });
    const stale = await api(`/runners/${id}`, { method: 'DELETE', token: rootToken, headers: { 'If-Unmodified-Since': new Date(Date.now() - 3600_000).toUTCString() } });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ message: '412 Precondition Failed' });
    expect((await api(`/runners/${id}`, { token: rootToken })).status).toBe(200);
    expect((await api(`/runners/${id}`, { method: 'DELETE', token: rootToken, headers: { 'If-Unmodified-Since': new Date(Date.now() + 60_000).toUTCString() } })).status).toBe(204);
  });
});

describe('token scopes', () => {
  it('lets a read_api token read runners but not change them', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken);
    const reader = (await api(`/users/${w.owner.id}/personal_access_tokens`, { token: rootToken, body: { name: unique('ro'), scopes: ['read_api'] } })).body.token;
    expect((await api(`/runners/${id}`, { token: reader })).status).toBe(200);
    expect((await api('/runners', { token: reader })).status).toBe(200);
    const put = await api(`/runners/${id}`, { method: 'PUT', token: reader, body: { description: 'x' } });
    expect(put.status).toBe(403);
    expect(put.body.error).toBe('insufficient_scope');
  });
});
