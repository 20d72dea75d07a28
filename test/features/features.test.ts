/**
 * Feature flags (lib/api/features.rb, Admin::SetFeatureFlagService, Flipper): administrators only,
 * GitLab's value rules, Flipper's gate order and state, targets, and GitLab's 400 bodies.
 * Flags are instance-global: every test uses its own flag name and deletes what it set.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let plain: TestUser;
let admin: TestUser;

beforeAll(async () => {
  [plain, admin] = await Promise.all([createUser(), createUser({ admin: true })]);
});

const set = (name: string, body: Record<string, unknown>, token: string | null = rootToken) => api(`/features/${encodeURIComponent(name)}`, { method: 'POST', token, body });
const listed = async (name: string) => (await api('/features', { token: rootToken })).body.find((f: { name: string }) => f.name === name);

describe('who may use /features', () => {
  const routes: [string, string][] = [
    ['GET', '/features'],
    ['GET', '/features/definitions'],
    ['POST', '/features/some_flag'],
    ['DELETE', '/features/some_flag'],
  ];
  it.each(routes)('%s %s: 401 anonymous, 403 for a non-administrator (before the parameters are read)', async (method, path) => {
    const anon = await api(path, { method, body: method === 'POST' ? {} : undefined });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ message: '401 Unauthorized' });
    const denied = await api(path, { method, token: plain.token, body: method === 'POST' ? {} : undefined });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ message: '403 Forbidden' });
  });

  it('an administrator other than root may', async () => {
    const name = unique('ff_');
    expect((await set(name, { value: 'true' }, admin.token)).status).toBe(201);
    expect((await api('/features', { token: admin.token })).status).toBe(200);
    expect((await api(`/features/${name}`, { method: 'DELETE', token: admin.token })).status).toBe(204);
  });
});

describe('GET /features/definitions', () => {
  it("lists every flag this server defines, with its GitLab YAML's fields", async () => {
    const res = await api('/features/definitions', { token: rootToken });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.map((d: { name: string }) => [d.name, d]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['import_project_from_remote_file', 'import_project_from_remote_file_s3', 'only_positive_pagination_values']));
    expect(byName.only_positive_pagination_values).toEqual({
      name: 'only_positive_pagination_values',
      introduced_by_url: 'https://gitlab.com/gitlab-org/gitlab/-/merge_requests/93571',
      rollout_issue_url: 'https://gitlab.com/gitlab-org/gitlab/-/issues/369225',
      milestone: '15.3',
      type: 'development',
      group: 'group::source code',
      default_enabled: false,
    });
    expect(byName.import_project_from_remote_file.default_enabled).toBe(true);
    expect(byName.import_project_from_remote_file_s3.default_enabled).toBe(false);
  });
});

describe('POST /features/:name, globally', () => {
  it('true, a percentage of time and of actors, false: state and gates in Flipper order', async () => {
    const name = unique('ff_');
    const on = await set(name, { value: 'true' });
    expect(on.status).toBe(201);
    expect(on.body).toEqual({ name, state: 'on', gates: [{ key: 'boolean', value: true }], definition: null });
    expect(await listed(name)).toEqual(on.body);

    // A percentage on a fully-enabled flag is refused (lib/feature.rb enable_percentage_of_time).
    const refused = await set(name, { value: '30' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: '400 Bad request - Cannot enable percentage of time for a fully-enabled flag' });
    const refusedActors = await set(name, { value: '30', key: 'percentage_of_actors' });
    expect(refusedActors.body).toEqual({ message: '400 Bad request - Cannot enable percentage of actors for a fully-enabled flag' });

    // `false` clears every gate.
    const off = await set(name, { value: 'false' });
    expect(off.body).toEqual({ name, state: 'off', gates: [{ key: 'boolean', value: false }], definition: null });

    const time = await set(name, { value: '30' });
    expect(time.body.state).toBe('conditional');
    expect(time.body.gates).toEqual([{ key: 'boolean', value: false }, { key: 'percentage_of_time', value: 30 }]);
    // Both percentages held at once, actors before time.
    const actors = await set(name, { value: 42, key: 'percentage_of_actors' });
    expect(actors.body.gates).toEqual([
      { key: 'boolean', value: false },
      { key: 'percentage_of_actors', value: 42 },
      { key: 'percentage_of_time', value: 30 },
    ]);
    // A new percentage replaces the old one; a fraction is kept; 100% of actors is still conditional.
    const fraction = await set(name, { value: '12.5', key: 'percentage_of_time' });
    expect(fraction.body.gates).toContainEqual({ key: 'percentage_of_time', value: 12.5 });
    expect(fraction.body.gates).toHaveLength(3);
    // 100 means on whatever the key (set_feature_flag_service.rb `enable?`), and clears the percentages.
    const hundred = await set(name, { value: '100', key: 'percentage_of_actors' });
    expect(hundred.body).toEqual({ name, state: 'on', gates: [{ key: 'boolean', value: true }], definition: null });
    expect((await set(name, { value: '0.0' })).body.state).toBe('off');
    await api(`/features/${name}`, { method: 'DELETE', token: rootToken });
  });

  it('a fraction of actors is conditional; above 100 is refused and nothing is written', async () => {
    const name = unique('ff_');
    const actors = await set(name, { value: '99.5', key: 'percentage_of_actors' });
    expect(actors.body).toEqual({ name, state: 'conditional', gates: [{ key: 'boolean', value: false }, { key: 'percentage_of_actors', value: 99.5 }], definition: null });
    const tooMuch = await set(name, { value: '101' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toEqual({ message: '400 Bad request - value must be a positive number less than or equal to 100, but was 101' });
    expect((await listed(name)).gates).toEqual(actors.body.gates);
    await api(`/features/${name}`, { method: 'DELETE', token: rootToken });
  });

  it('a JSON boolean value is the string true or false (python-gitlab sends `"value": true`)', async () => {
    const name = unique('ff_');
    expect((await set(name, { value: true })).body.state).toBe('on');
    expect((await set(name, { value: false })).body.state).toBe('off');
    await api(`/features/${name}`, { method: 'DELETE', token: rootToken });
  });

  it("a known flag carries its definition", async () => {
    const res = await set('import_project_from_remote_file_s3', { value: 'false' });
    expect(res.status).toBe(201);
    expect(res.body.definition).toMatchObject({ name: 'import_project_from_remote_file_s3', group: 'group::import', default_enabled: false, milestone: '14.9' });
    expect((await api('/features/import_project_from_remote_file_s3', { method: 'DELETE', token: rootToken })).status).toBe(204);
  });

  it.each([
    [{ value: 'abc' }, "Cannot set 'NAME' to \"abc\""],
    [{ value: 'abc', key: 'percentage_of_time' }, 'Not a percentage'],
    [{ value: 'abc', key: 'percentage_of_actors' }, 'Not a percentage'],
    [{ value: '30', key: 'anything' }, "Cannot set 'NAME' (\"anything\") to \"30\""],
    [{ value: '-5' }, "Cannot set 'NAME' to \"-5\""],
  ])('%j: 400 with GitLab message', async (body, message) => {
    const name = unique('ff_');
    const res = await set(name, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `400 Bad request - ${message.replace('NAME', name)}` });
  });

  it('Grape parameter errors: value is required; key is exclusive with each target', async () => {
    const name = unique('ff_');
    expect((await set(name, {})).body).toEqual({ error: 'value is missing' });
    const both = await set(name, { value: 'true', key: 'percentage_of_actors', user: plain.username });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'key, user are mutually exclusive' });
    for (const t of ['feature_group', 'group', 'namespace', 'project']) {
      expect((await set(name, { value: 'true', key: 'percentage_of_time', [t]: 'x' })).body).toEqual({ error: `key, ${t} are mutually exclusive` });
    }
    expect(await listed(name)).toBeUndefined();
  });
});

describe('POST /features/:name with targets', () => {
  it('users, a project, a group, a namespace and a feature group in one call; false removes one', async () => {
    const name = unique('ff_');
    const other = await createUser();
    const groupPath = unique('g');
    const group = await api('/groups', { token: rootToken, body: { name: groupPath, path: groupPath } });
    expect(group.status).toBe(201);
    const project = await api('/projects', { token: plain.token, body: { name: unique('p') } });
    expect(project.status).toBe(201);

    const res = await set(name, {
      value: 'true',
      user: `${plain.username},${other.username.toUpperCase()}`,
      project: project.body.path_with_namespace,
      group: groupPath,
      namespace: plain.username,
      feature_group: 'beta_testers',
    });
    expect(res.status).toBe(201);
    expect(res.body.state).toBe('conditional');
    expect(res.body.gates).toEqual([
      { key: 'boolean', value: false },
      { key: 'actors', value: [`User:${plain.id}`, `User:${other.id}`, `Project:${project.body.id}`, `Group:${group.body.id}`, `Namespaces::UserNamespace:${project.body.namespace.id}`] },
      { key: 'groups', value: ['beta_testers'] },
    ]);

    const less = await set(name, { value: 'false', user: plain.username, feature_group: 'beta_testers' });
    expect(less.body.gates).toEqual([
      { key: 'boolean', value: false },
      { key: 'actors', value: [`User:${other.id}`, `Project:${project.body.id}`, `Group:${group.body.id}`, `Namespaces::UserNamespace:${project.body.namespace.id}`] },
    ]);
    // A percentage value with a target is not an operation on that target.
    const odd = await set(name, { value: '30', user: other.username });
    expect(odd.status).toBe(400);
    expect(odd.body).toEqual({ message: `400 Bad request - Cannot set '${name}' to "30" for User:${other.id}` });
    await api(`/features/${name}`, { method: 'DELETE', token: rootToken });
  });

  it('an unknown target is a 400 naming it, and nothing is written', async () => {
    const name = unique('ff_');
    const missing = unique('nobody');
    // The known name first: the whole call fails on the unknown one.
    for (const t of ['user', 'project', 'group', 'namespace']) {
      const known = t === 'user' || t === 'namespace' ? `${plain.username},` : '';
      const res = await set(name, { value: 'true', [t]: `${known}${missing}` });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: `400 Bad request - ${missing} is not found!` });
    }
    expect(await listed(name)).toBeUndefined();
  });
});

describe('DELETE /features/:name', () => {
  it('204 whether or not the flag existed; the flag is gone from the list', async () => {
    const name = unique('ff_');
    await set(name, { value: '25' });
    expect(await listed(name)).toBeDefined();
    const first = await api(`/features/${name}`, { method: 'DELETE', token: rootToken });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expect(await listed(name)).toBeUndefined();
    const again = await api(`/features/${name}`, { method: 'DELETE', token: rootToken });
    expect(again.status).toBe(204);
  });
});

describe('the paths python-gitlab 3.12 sends', () => {
  it('POST /features//<name> and GET /features/ answer as GitLab (Grape squeezes slashes)', async () => {
    const name = unique('ff_');
    const res = await api(`/api/v4/features//${name}`, { method: 'POST', token: rootToken, body: { value: true } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe(name);
    const list = await api('/api/v4/features/', { token: rootToken });
    expect(list.status).toBe(200);
    expect(list.body.map((f: { name: string }) => f.name)).toContain(name);
    expect((await api(`/api/v4/features//${name}/`, { method: 'DELETE', token: rootToken })).status).toBe(204);
  });
});

describe('round trips', () => {
  it('POST /features/:name with targets reads in one round trip and writes with its read-back in another', async () => {
    const name = unique('ff_');
    await api('/user', { token: rootToken });
    const res = await set(name, { value: 'true', user: plain.username, namespace: plain.username });
    expect(res.status).toBe(201);
    expect(Number(res.headers.get('x-storage-round-trips'))).toBe(2);
    await api(`/features/${name}`, { method: 'DELETE', token: rootToken });
  });
});
