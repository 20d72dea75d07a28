// A @gitbeaker/rest administrator's feature flags, application settings and Geo nodes against this server, case by
// case (issue 17).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. What @gitbeaker/core (43.x) has, and what this script uses:
// - instance feature flags (`/features`): no resource at all (its `FeatureFlags` is the project-level Unleash API,
//   /projects/:id/feature_flags), so flags go through a resource's own requester (`raw` below), which sends what
//   every gitbeaker call sends: a JSON body with keys decamelized, the token in PRIVATE-TOKEN.
// - `ApplicationSettings.show()` (GET /application/settings) and `.edit(options)` (PUT, JSON body; with
//   `isForm: true` a multipart form whose values are strings and whose keys are sent as given).
// - `GeoNodes`: all, show, create(name, url, options), edit, repair, remove, showStatus, allFailures; its
//   `allStatuses()` asks for /geo_nodes/statuses, a path GitLab never served (GitLab's is /geo_nodes/status), so it
//   gets GitLab's answer for `/geo_nodes/:id` with id "statuses"; the status list goes through `raw`. gitbeaker's
//   `GeoSites` asks for /geo_sites (GitLab 16+), which this server does not serve and this script does not use.
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, check, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });

// gitbeaker's requester for endpoints it has no method for: relative to /api/v4/, answers { body, headers, status }
// and throws GitbeakerRequestError on a refusal, like every resource method.
const requester = api.ApplicationSettings.requester;
const raw = {
  get: async (path, options = {}) => (await requester.get(path, options)).body,
  post: async (path, body, options = {}) => (await requester.post(path, { body, ...options })).body,
  del: async (path, options = {}) => (await requester.delete(path, options)).status,
};

async function newUser(prefix) {
  const username = `gb-${prefix}-${TAG}`;
  return api.Users.create({ email: `${username}@example.com`, username, name: `Gb ${prefix} ${TAG}`, password: `Pw-${randomBytes(8).toString('hex')}-x9`, skipConfirmation: true });
}

const FLAG = `gb_flag_${TAG}`;
const listedFlag = async (name) => (await raw.get('features')).find((f) => f.name === name);

await testCase('admin setup: a user and her project', async () => {
  const user = await newUser('admin');
  const project = await api.Projects.create({ name: `gb-admin-${TAG}`, sudo: user.username });
  Object.assign(state, { user, project });
});

// ---- feature flags (raw requests: gitbeaker has no instance-level Features resource) ----

await testCase('features: JSON true, a numeric percentage of time, then percentage of actors via key', async () => {
  const on = await raw.post(`features/${FLAG}`, { value: true });
  eq([on.name, on.state, on.gates], [FLAG, 'on', [{ key: 'boolean', value: true }]], 'value: true');
  eq((await listedFlag(FLAG))?.state, 'on', 'listed');
  eq((await raw.post(`features/${FLAG}`, { value: false })).state, 'off', 'value: false');
  const time = await raw.post(`features/${FLAG}`, { value: 30 });
  eq([time.state, time.gates], ['conditional', [{ key: 'boolean', value: false }, { key: 'percentage_of_time', value: 30 }]], 'value: 30');
  const actors = await raw.post(`features/${FLAG}`, { value: 25, key: 'percentage_of_actors' });
  // Flipper's gate order: boolean, actors, percentage_of_actors, percentage_of_time, groups.
  eq(actors.gates, [{ key: 'boolean', value: false }, { key: 'percentage_of_actors', value: 25 }, { key: 'percentage_of_time', value: 30 }], 'percentage_of_actors');
  await rejects(400, () => raw.post(`features/${FLAG}`, { value: 'sometimes' }), `Cannot set '${FLAG}' to "sometimes"`);
});

await testCase('features: user, project and featureGroup (decamelized to feature_group) in one call', async () => {
  const [user, project] = need('user', 'project');
  await raw.post(`features/${FLAG}`, { value: false });
  const f = await raw.post(`features/${FLAG}`, { value: true, user: user.username, project: project.path_with_namespace, featureGroup: 'beta_testers' });
  eq(f.state, 'conditional', 'state');
  eq(f.gates, [{ key: 'boolean', value: false }, { key: 'actors', value: [`User:${user.id}`, `Project:${project.id}`] }, { key: 'groups', value: ['beta_testers'] }], 'gates');
  await rejects(400, () => raw.post(`features/${FLAG}`, { value: true, key: 'percentage_of_actors', user: user.username }), 'key, user are mutually exclusive');
});

await testCase('features: definitions listed; a non-administrator gets 403', async () => {
  const [user] = need('user');
  const defs = await raw.get('features/definitions');
  check(defs.some((d) => d.name === 'only_positive_pagination_values' && d.default_enabled === false), 'only_positive_pagination_values defined, off by default');
  await rejects(403, () => raw.get('features', { sudo: user.username }));
  await rejects(403, () => raw.post(`features/${FLAG}`, { value: true }, { sudo: user.username }));
});

await testCase('features: DELETE removes the flag, 204 again when it is gone', async () => {
  eq(await raw.del(`features/${FLAG}`), 204, 'delete');
  check((await listedFlag(FLAG)) === undefined, 'still listed after delete');
  eq(await raw.del(`features/${FLAG}`), 204, 'delete again');
});

// ---- application settings ----

await testCase('ApplicationSettings.show() answers the settings', async () => {
  const s = await api.ApplicationSettings.show();
  check(Number.isInteger(s.default_projects_limit), 'default_projects_limit is an integer');
  check(Array.isArray(s.restricted_visibility_levels), 'restricted_visibility_levels is an array');
  eq(s.signin_enabled, s.password_authentication_enabled_for_web, 'signin_enabled mirrors password_authentication_enabled_for_web');
  state.original = {
    default_projects_limit: s.default_projects_limit,
    restricted_visibility_levels: s.restricted_visibility_levels,
    password_authentication_enabled_for_web: s.password_authentication_enabled_for_web,
    import_sources: s.import_sources,
    repository_storages_weighted: s.repository_storages_weighted,
  };
});

await testCase('ApplicationSettings.edit() with a JSON array, a JSON boolean (legacy alias) and an integer; takes effect', async () => {
  need('original');
  const s = await api.ApplicationSettings.edit({ defaultProjectsLimit: 7, restrictedVisibilityLevels: ['public', 'internal'], signinEnabled: false, importSources: ['github', 'git'] });
  eq([s.default_projects_limit, s.restricted_visibility_levels, s.signin_enabled, s.password_authentication_enabled_for_web, s.import_sources], [7, ['public', 'internal'], false, false, ['github', 'git']], 'edit answer');
  eq((await api.ApplicationSettings.show()).restricted_visibility_levels, ['public', 'internal'], 'read back');
  const user = await newUser('limits');
  eq(user.projects_limit, 7, "a new user's projects_limit");
  await rejects(400, () => api.Projects.create({ name: `gb-pub-${TAG}`, visibility: 'internal', sudo: user.username }), 'internal has been restricted by your GitLab administrator');
});

await testCase('ApplicationSettings.edit({ isForm: true }): a multipart form, booleans and numbers as strings', async () => {
  need('original');
  const s = await api.ApplicationSettings.edit({ isForm: true, default_projects_limit: 9, signin_enabled: true, restricted_visibility_levels: 'public' });
  eq([s.default_projects_limit, s.signin_enabled, s.restricted_visibility_levels], [9, true, ['public']], 'form edit answer');
});

await testCase('ApplicationSettings.edit() with a nested hash (JSON, keys decamelized deeply)', async () => {
  need('original');
  const s = await api.ApplicationSettings.edit({ repositoryStoragesWeighted: { default: 60 } });
  eq(s.repository_storages_weighted, { default: 60 }, 'JSON hash');
  await rejects(400, () => api.ApplicationSettings.edit({ repositoryStoragesWeighted: { default: 'lots' } }));
});

await testCase('a raw multipart PUT as GitLab documents it: key[] arrays and key[sub] hashes', async () => {
  need('original');
  const form = new FormData();
  form.append('restricted_visibility_levels[]', 'public');
  form.append('restricted_visibility_levels[]', 'internal');
  form.append('repository_storages_weighted[default]', '80');
  form.append('signin_enabled', 'false');
  const s = (await requester.put('application/settings', { body: form })).body;
  eq([s.restricted_visibility_levels, s.repository_storages_weighted, s.signin_enabled], [['public', 'internal'], { default: 80 }, false], 'form answer');
});

await testCase('ApplicationSettings.edit() refusals: a bad enum, a bad visibility level, a non-administrator', async () => {
  const [user] = need('user');
  await rejects(400, () => api.ApplicationSettings.edit({ defaultBranchProtection: 9 }), 'default_branch_protection does not have a valid value');
  await rejects(400, () => api.ApplicationSettings.edit({ restrictedVisibilityLevels: ['secret'] }));
  await rejects(403, () => api.ApplicationSettings.show({ sudo: user.username }));
  await rejects(403, () => api.ApplicationSettings.edit({ defaultProjectsLimit: 1, sudo: user.username }));
});

await testCase('ApplicationSettings.edit() restores the original settings', async () => {
  const [original] = need('original');
  await api.ApplicationSettings.edit(original);
  const s = await api.ApplicationSettings.show();
  eq(
    [s.default_projects_limit, s.restricted_visibility_levels, s.password_authentication_enabled_for_web, s.import_sources, s.repository_storages_weighted],
    [original.default_projects_limit, original.restricted_visibility_levels, original.password_authentication_enabled_for_web, original.import_sources, original.repository_storages_weighted],
    'restored',
  );
});

// ---- Geo nodes ----

await testCase('GeoNodes.create(name, url) a secondary; the primary named after this instance is current', async () => {
  const secondary = await api.GeoNodes.create(`gb-geo-${TAG}`, `https://gb-geo-${TAG}.example.com`, { filesMaxCapacity: 4 });
  eq([secondary.url, secondary.primary, secondary.files_max_capacity], [`https://gb-geo-${TAG}.example.com/`, false, 4], 'secondary');
  const base = secondary._links.self.split('/api/v4/')[0];
  const primary = await api.GeoNodes.create(base, base, { primary: true });
  eq([primary.name, primary.current, primary.primary], [`${base}/`, true, true], 'primary');
  Object.assign(state, { secondary, primary });
});

await testCase('GeoNodes.all(), show(), edit() (name and url sent back), repair()', async () => {
  const [secondary, primary] = need('secondary', 'primary');
  const ids = (await api.GeoNodes.all()).map((n) => n.id);
  check(ids.includes(secondary.id) && ids.includes(primary.id), `both nodes listed: ${JSON.stringify(ids)}`);
  eq((await api.GeoNodes.show(secondary.id)).name, secondary.name, 'show');
  const edited = await api.GeoNodes.edit(secondary.id, { name: secondary.name, url: secondary.url, enabled: false, reposMaxCapacity: 5, selectiveSyncShards: ['default'] });
  eq([edited.enabled, edited.repos_max_capacity, edited.selective_sync_shards], [false, 5, ['default']], 'edit');
  await rejects(400, () => api.GeoNodes.edit(primary.id, { name: primary.name, url: primary.url, enabled: false }), 'Geo primary node cannot be disabled');
  // This server's PUT requires name and url (spec doc 001), so GeoNodes.edit with options alone is a Grape 400.
  await rejects(400, () => api.GeoNodes.edit(secondary.id, { enabled: true }), 'name is missing, url is missing');
  eq((await api.GeoNodes.repair(secondary.id)).id, secondary.id, 'repair');
});

await testCase('GeoNodes.edit(): a JSON array of namespace ids; isForm: booleans and a comma-separated list as strings', async () => {
  const [secondary, project] = need('secondary', 'project');
  const nsId = project.namespace.id;
  const edited = await api.GeoNodes.edit(secondary.id, { name: secondary.name, url: secondary.url, selectiveSyncType: 'namespaces', selectiveSyncNamespaceIds: [nsId] });
  eq([edited.selective_sync_type, edited.selective_sync_namespace_ids], ['namespaces', [nsId]], 'JSON edit');
  const form = await api.GeoNodes.edit(secondary.id, { isForm: true, name: secondary.name, url: secondary.url, enabled: 'true', sync_object_storage: 'true', selective_sync_shards: 'default,other' });
  eq([form.enabled, form.sync_object_storage, form.selective_sync_shards], [true, true, ['default', 'other']], 'form edit');
});

await testCase('GeoNodes.showStatus(): the primary is healthy, the secondary has none; the status list via raw', async () => {
  const [secondary, primary] = need('secondary', 'primary');
  // `refresh: true` goes in the query string as refresh=true.
  const status = await api.GeoNodes.showStatus(primary.id, { refresh: true });
  eq([status.geo_node_id, status.healthy, status.health_status], [primary.id, true, 'Healthy'], 'status');
  check(/^\d+\.\d\d%$/.test(status.uploads_synced_in_percentage), `percentage ${status.uploads_synced_in_percentage}`);
  await rejects(404, () => api.GeoNodes.showStatus(secondary.id), 'Status for Geo node not found');
  eq((await raw.get('geo_nodes/status')).map((s) => s.geo_node_id), [primary.id], 'GET /geo_nodes/status');
  // GeoNodes.allStatuses() asks for /geo_nodes/statuses: to GitLab that is /geo_nodes/:id with a non-integer id.
  await rejects(400, () => api.GeoNodes.allStatuses(), 'id is invalid');
});

await testCase('GeoNodes.allFailures() is refused on a primary; a non-administrator is refused', async () => {
  const [user] = need('user', 'primary');
  await rejects(403, () => api.GeoNodes.allFailures(), 'Failures can only be requested from a secondary node');
  await rejects(403, () => api.GeoNodes.all({ sudo: user.username }));
});

await testCase('GeoNodes.remove() deletes both nodes', async () => {
  const [secondary, primary] = need('secondary', 'primary');
  for (const node of [secondary, primary]) {
    await api.GeoNodes.remove(node.id);
    await rejects(404, () => api.GeoNodes.show(node.id));
  }
});

console.log('END');
process.exit(0);
