// What a @gitbeaker/rest user does against this server, case by case.
//
// Run by scripts/test-clients.mjs with GITLAB_URL, GITLAB_ROOT_TOKEN and CLIENT_SSH_KEYS (newline separated public
// keys) in the environment. Prints `PASS <case>` or `FAIL <case> :: <reason>` per case and `END` when done.
// Only the public Gitlab resource API of @gitbeaker/rest is used. It sends JSON bodies with snake_case keys, reads
// pagination from X-* headers and follows the query string of Link rel="next".
import { randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, check, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
// Fallback when the runner could not make keys (no ssh-keygen): fixed ed25519 public keys.
const EMBEDDED_KEYS = [
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMisT26IHX0imKJG9btAFfVCt30hufg1Dbm1cZpwVmpQ fallback-5@clients',
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFmxTNRTavflg68q75fY1b7KqmithwLjNX3+O6AEoRCK fallback-6@clients',
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILsaWicsyAFvfyyCNDwO1u4aU+0JGPm0KDbpTtHhitK+ fallback-7@clients',
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJjbQ7Om/D6baJupZZxzwle2Ifnol4lsoS50qHqOVJTk fallback-8@clients',
];
// An ed25519 OpenPGP public key (no secret part exists anywhere) for the GPG key cases.
const GPG_KEY = `-----BEGIN PGP PUBLIC KEY BLOCK-----

mDMEawKhrRYJKwYBBAHaRw8BAQdA2Ik6sipt3I4WvfLnvKwDWzmxjVnh3Ax3G7er
sNI5KMS0LUNsaWVudCBDaGVjayBnYiA8Y2xpZW50LWNoZWNrLWdiQGV4YW1wbGUu
Y29tPoiQBBMWCAA4FiEEaFM9MQRlKDEzUwruAgI4jxqroLkFAmsCoa0CGwMFCwkI
BwIGFQoJCAsCBBYCAwECHgECF4AACgkQAgI4jxqroLmSlAD/csWaJdtr8hDpfZ+p
CIghrnDE41eh63AQCvpot/GyssIA/RN84btHNXeIQYoy+WN7qSjGAGuI6Tow1yCr
pB0O+kQE
=QUIY
-----END PGP PUBLIC KEY BLOCK-----`;
const envKeys = (process.env.CLIENT_SSH_KEYS ?? '').split('\n').filter((k) => k.trim());
const KEYS = envKeys.length ? envKeys : EMBEDDED_KEYS;
const TAG = randomBytes(3).toString('hex');
const keyBody = (k) => k.split(/\s+/).slice(0, 2).join(' ');

// queryTimeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });
const as = (token, extra = {}) => new Gitlab({ host: URL, token, queryTimeout: 20_000, ...extra });

async function newUser(prefix, extra = {}) {
  const username = `gb-${prefix}-${TAG}`;
  return api.Users.create({
    email: `${username}@example.com`,
    username,
    name: `Gb ${prefix} ${TAG}`,
    password: `Pw-${randomBytes(8).toString('hex')}-x9`,
    skipConfirmation: true,
    ...extra,
  });
}

await testCase('Users.showCurrentUser() as root', async () => {
  const me = await api.Users.showCurrentUser();
  eq(me.username, 'root', 'username');
  eq(me.id, 1, 'id');
  eq(me.is_admin, true, 'is_admin');
});

await testCase('bad token: showCurrentUser rejects with 401', async () => {
  await rejects(401, () => as('glpat-not-a-real-token-000').Users.showCurrentUser(), '401 Unauthorized');
});

await testCase('Users.create (POST /users, JSON body)', async () => {
  const u = await newUser('erin', { bio: 'from gitbeaker', projectsLimit: 7 });
  check(Number.isInteger(u.id), `id ${u.id}`);
  eq(u.username, `gb-erin-${TAG}`, 'username');
  eq(u.email, `gb-erin-${TAG}@example.com`, 'email');
  eq(u.bio, 'from gitbeaker', 'bio');
  eq(u.projects_limit, 7, 'projects_limit');
  eq(u.state, 'active', 'state');
  state.erin = u;
  state.frank = await newUser('frank');
  state.gina = await newUser('gina');
  state.hank = await newUser('hank');
});

await testCase('Users.create duplicate username rejects with 409', async () => {
  const [erin] = need('erin');
  await rejects(
    409,
    () => api.Users.create({ email: `dup-${TAG}@example.com`, username: erin.username, name: 'Dup', password: 'Pw-dup-Secret-91' }),
    'Username has already been taken',
  );
});

await testCase('Users.show(id) as admin', async () => {
  const [erin] = need('erin');
  const u = await api.Users.show(erin.id);
  eq(u.username, erin.username, 'username');
  eq(u.email, erin.email, 'email (admin view)');
  eq(u.is_admin, false, 'is_admin');
});

await testCase('Users.show(missing) rejects with 404 "404 User Not Found"', async () => {
  await rejects(404, () => api.Users.show(987654321), '404 User Not Found');
});

await testCase('Users.edit(id, { bio, location }) (PUT /users/:id)', async () => {
  const [erin] = need('erin');
  const u = await api.Users.edit(erin.id, { bio: 'edited by gitbeaker', location: 'Porto' });
  eq(u.bio, 'edited by gitbeaker', 'bio in the PUT answer');
  const again = await api.Users.show(erin.id);
  eq(again.bio, 'edited by gitbeaker', 'bio read back');
  eq(again.location, 'Porto', 'location read back');
});

await testCase('UserCustomAttributes set / show / all / remove', async () => {
  const [erin] = need('erin');
  const a = await api.UserCustomAttributes.set(erin.id, 'dept', `eng-${TAG}`);
  eq([a.key, a.value], ['dept', `eng-${TAG}`], 'set answer');
  eq((await api.UserCustomAttributes.show(erin.id, 'dept')).value, `eng-${TAG}`, 'show');
  eq((await api.UserCustomAttributes.all(erin.id)).map((x) => x.key), ['dept'], 'all');
  const listed = await api.Users.all({ username: erin.username, withCustomAttributes: true });
  eq(listed[0]?.custom_attributes, [{ key: 'dept', value: `eng-${TAG}` }], 'custom_attributes in Users.all({ withCustomAttributes })');
  const filtered = await api.Users.all({ customAttributes: { dept: `eng-${TAG}` } });
  eq(filtered.map((u) => u.id), [erin.id], 'Users.all({ customAttributes }) sends custom_attributes[dept]=...');
  await api.UserCustomAttributes.remove(erin.id, 'dept');
  eq(await api.UserCustomAttributes.all(erin.id), [], 'all after remove');
});

await testCase('Users.all({ perPage: 2, maxPages: 2 }) stops after two pages', async () => {
  need('hank');
  const users = await api.Users.all({ perPage: 2, maxPages: 2 });
  eq(users.length, 4, 'users returned');
  eq(new Set(users.map((u) => u.id)).size, 4, 'distinct ids');
});

await testCase('Users.all({ perPage: 2, showExpanded }) paginationInfo from X-* headers', async () => {
  need('hank');
  const every = await api.Users.all({ perPage: 100 });
  const { data, paginationInfo } = await api.Users.all({ perPage: 2, page: 1, showExpanded: true });
  eq(data.length, 2, 'page size');
  eq(paginationInfo.total, every.length, 'total');
  eq(paginationInfo.totalPages, Math.ceil(every.length / 2), 'totalPages');
  eq(paginationInfo.perPage, 2, 'perPage');
  eq(paginationInfo.current, 1, 'current');
  eq(paginationInfo.next, 2, 'next');
  eq(paginationInfo.previous, null, 'previous');
});

await testCase('Users.all({ perPage: 2 }) walks every page via Link rel=next', async () => {
  const [erin, frank] = need('erin', 'frank');
  const every = await api.Users.all({ perPage: 100 });
  const walked = await api.Users.all({ perPage: 2 });
  eq(walked.length, every.length, 'users walked');
  eq(new Set(walked.map((u) => u.id)).size, walked.length, 'distinct ids');
  check(walked.some((u) => u.id === erin.id) && walked.some((u) => u.id === frank.id), 'created users missing');
});

await testCase('Users.all({ username }) and ({ search })', async () => {
  const [erin, frank] = need('erin', 'frank');
  eq((await api.Users.all({ username: erin.username })).map((u) => u.id), [erin.id], 'by username');
  const found = (await api.Users.all({ search: `gb-frank-${TAG}` })).map((u) => u.id);
  eq(found, [frank.id], 'by search');
});

await testCase('Users.all({ active: true, orderBy: "id", sort: "asc" }) as admin', async () => {
  const [erin] = need('erin');
  const users = await api.Users.all({ active: true, orderBy: 'id', sort: 'asc', perPage: 100 });
  const ids = users.map((u) => u.id);
  eq(ids, [...ids].sort((a, b) => a - b), 'ascending ids');
  check(ids.includes(erin.id), 'erin missing');
  check(users.every((u) => u.state === 'active'), 'a non-active user listed');
});

// Users.edit sends multipart/form-data (it may carry an avatar) and, unlike its JSON requests, does not snake_case
// the keys: gitbeaker users must write GitLab's own names there, so this case does too.
await testCase('Users.edit multipart form: integer and boolean fields (projects_limit, can_create_group)', async () => {
  const [hank] = need('hank');
  const u = await api.Users.edit(hank.id, { projects_limit: 3, can_create_group: false });
  eq(u.projects_limit, 3, 'projects_limit in the PUT answer');
  const again = await api.Users.show(hank.id);
  eq(again.projects_limit, 3, 'projects_limit read back');
  eq(again.can_create_group, false, 'can_create_group read back');
});

// GitLab's User#ensure_user_rights_and_limits (before_save when external changes): external users get
// projects_limit 0 and can_create_group false.
await testCase('Users.edit external=true applies external limits (projects_limit 0, can_create_group false)', async () => {
  const [frank] = need('frank');
  await api.Users.edit(frank.id, { external: true });
  const u = await api.Users.show(frank.id);
  eq(u.external, true, 'external');
  eq(u.projects_limit, 0, 'projects_limit');
  eq(u.can_create_group, false, 'can_create_group');
  eq(u.can_create_project, false, 'can_create_project');
});

await testCase('Users.createPersonalAccessToken as admin; the token authenticates', async () => {
  const [erin] = need('erin');
  const t = await api.Users.createPersonalAccessToken(erin.id, 'gb-cli', ['api']);
  check(typeof t.token === 'string' && t.token.startsWith('glpat-'), 'no glpat- token');
  eq(t.scopes, ['api'], 'scopes');
  eq(t.user_id, erin.id, 'user_id');
  const me = await as(t.token).Users.showCurrentUser();
  eq(me.username, erin.username, 'username with the new token');
  state.erinToken = t;
  state.erinApi = as(t.token);
});

await testCase('a personal access token also works as oauthToken (Authorization: Bearer)', async () => {
  const [erin, t] = need('erin', 'erinToken');
  const bearer = new Gitlab({ host: URL, oauthToken: t.token, queryTimeout: 20_000 });
  eq((await bearer.Users.showCurrentUser()).username, erin.username, 'username');
});

await testCase('Users.all({ createdAfter, createdBefore }) with ISO datetimes', async () => {
  const [erin] = need('erin');
  const hourAgo = new Date(Date.now() - 3600_000).toISOString();
  const inAnHour = new Date(Date.now() + 3600_000).toISOString();
  const found = await api.Users.all({ createdAfter: hourAgo, createdBefore: inAnHour, perPage: 100 });
  check(found.some((u) => u.id === erin.id), 'erin not found in the window');
  eq(await api.Users.all({ createdAfter: inAnHour }), [], 'nothing created in the future');
});

await testCase('PersonalAccessTokens.all({ userId }) and show({ tokenId }) and show() (self)', async () => {
  const [erin, t, erinApi] = need('erin', 'erinToken', 'erinApi');
  const list = await api.PersonalAccessTokens.all({ userId: erin.id });
  check(list.some((x) => x.id === t.id), 'token not listed');
  check(list.every((x) => !('token' in x)), 'list shows the secret');
  const shown = await api.PersonalAccessTokens.show({ tokenId: t.id });
  eq(shown.name, 'gb-cli', 'name');
  const self = await erinApi.PersonalAccessTokens.show();
  eq(self.id, t.id, 'id of GET /personal_access_tokens/self');
});

await testCase('PersonalAccessTokens.remove({ tokenId }) revokes; the token then gets 401', async () => {
  const [erin] = need('erin');
  const t = await api.Users.createPersonalAccessToken(erin.id, 'gb-revoke', ['read_user']);
  await as(t.token).Users.showCurrentUser();
  await api.PersonalAccessTokens.remove({ tokenId: t.id });
  await rejects(401, () => as(t.token).Users.showCurrentUser());
});

await testCase('PersonalAccessTokens.rotate(id) and rotate("self")', async () => {
  const [erin] = need('erin');
  const t = await api.Users.createPersonalAccessToken(erin.id, 'gb-rotate', ['api']);
  const r1 = await api.PersonalAccessTokens.rotate(t.id);
  check(r1.token && r1.token !== t.token, 'no new token');
  await rejects(401, () => as(t.token).Users.showCurrentUser());
  const r2 = await as(r1.token).PersonalAccessTokens.rotate('self');
  check(r2.token && r2.token !== r1.token, 'no new token from self rotation');
  eq((await as(r2.token).Users.showCurrentUser()).username, erin.username, 'username with the rotated token');
  await rejects(401, () => as(r1.token).Users.showCurrentUser());
});

await testCase('non-admin Users.create rejects with 403', async () => {
  const [erinApi] = need('erinApi');
  await rejects(403, () => erinApi.Users.create({ email: `y-${TAG}@example.com`, username: `gb-y-${TAG}`, name: 'Y', password: 'Pw-y-Secret-9182' }));
});

await testCase('UserImpersonationTokens create, use, all, show, revoke', async () => {
  const [erin] = need('erin');
  const expiresAt = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  const it = await api.UserImpersonationTokens.create(erin.id, 'gb-imp', ['api'], { expiresAt });
  eq(it.impersonation, true, 'impersonation');
  eq(it.expires_at, expiresAt, 'expires_at (a date)');
  check(typeof it.token === 'string' && it.token.length > 0, 'no token');
  eq((await as(it.token).Users.showCurrentUser()).username, erin.username, 'username with the impersonation token');
  const all = await api.UserImpersonationTokens.all(erin.id, { state: 'active' });
  check(all.some((x) => x.id === it.id), 'not listed as active');
  eq((await api.UserImpersonationTokens.show(erin.id, it.id)).name, 'gb-imp', 'name');
  await api.UserImpersonationTokens.revoke(erin.id, it.id);
  const inactive = await api.UserImpersonationTokens.all(erin.id, { state: 'inactive' });
  check(inactive.some((x) => x.id === it.id), 'not listed as inactive after revoke');
  await rejects(401, () => as(it.token).Users.showCurrentUser());
});

await testCase('UserSSHKeys for another user (admin): create, all, show, remove', async () => {
  const [erin] = need('erin');
  const k = await api.UserSSHKeys.create('gb-laptop', KEYS[0], { userId: erin.id });
  eq(k.title, 'gb-laptop', 'title');
  eq(keyBody(k.key), keyBody(KEYS[0]), 'key');
  check((await api.UserSSHKeys.all({ userId: erin.id })).some((x) => x.id === k.id), 'not listed');
  eq((await api.UserSSHKeys.show(k.id, { userId: erin.id })).title, 'gb-laptop', 'title via show');
  await api.UserSSHKeys.remove(k.id, { userId: erin.id });
  check(!(await api.UserSSHKeys.all({ userId: erin.id })).some((x) => x.id === k.id), 'still listed after remove');
});

await testCase('AuditEvents.all({ entityType: "User", entityId }) shows the admin-added SSH key; show(id)', async () => {
  const [erin] = need('erin');
  const events = await api.AuditEvents.all({ entityType: 'User', entityId: erin.id });
  check(events.length > 0, 'no audit events for the user');
  check(events.every((e) => e.entity_type === 'User' && e.entity_id === erin.id), 'an event for another entity');
  eq((await api.AuditEvents.show(events[0].id)).id, events[0].id, 'show');
});

await testCase('UserSSHKeys for the current user: create (expiresAt), all, show, remove', async () => {
  const [erinApi] = need('erinApi');
  const expiresAt = new Date(Date.now() + 30 * 86400_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const k = await erinApi.UserSSHKeys.create('gb-own', KEYS[1], { expiresAt });
  eq(k.title, 'gb-own', 'title');
  check(String(k.expires_at).startsWith(expiresAt.slice(0, 10)), `expires_at ${k.expires_at}`);
  check((await erinApi.UserSSHKeys.all()).some((x) => x.id === k.id), 'not listed');
  eq((await erinApi.UserSSHKeys.show(k.id)).title, 'gb-own', 'title via show');
  await rejects(400, () => erinApi.UserSSHKeys.create('gb-again', KEYS[1]), 'has already been taken');
  await erinApi.UserSSHKeys.remove(k.id);
  await rejects(404, () => erinApi.UserSSHKeys.show(k.id));
});

await testCase('UserGPGKeys for the current user and for another user (admin): create, all, show, remove', async () => {
  const [erinApi, frank] = need('erinApi', 'frank');
  const k = await erinApi.UserGPGKeys.create(GPG_KEY);
  eq(k.key.trim(), GPG_KEY.trim(), 'key');
  eq((await erinApi.UserGPGKeys.all()).map((x) => x.id), [k.id], 'all');
  eq((await erinApi.UserGPGKeys.show(k.id)).id, k.id, 'show');
  await erinApi.UserGPGKeys.remove(k.id);
  eq(await erinApi.UserGPGKeys.all(), [], 'all after remove');
  const a = await api.UserGPGKeys.create(GPG_KEY, { userId: frank.id });
  eq((await api.UserGPGKeys.all({ userId: frank.id })).map((x) => x.id), [a.id], 'all for frank');
  await api.UserGPGKeys.remove(a.id, { userId: frank.id });
  eq(await api.UserGPGKeys.all({ userId: frank.id }), [], 'all for frank after remove');
});

await testCase('sudo request option: Users.showCurrentUser({ sudo })', async () => {
  const [erin, frank] = need('erin', 'frank');
  eq((await api.Users.showCurrentUser({ sudo: erin.username })).username, erin.username, 'sudo by username');
  eq((await api.Users.showCurrentUser({ sudo: frank.id })).username, frank.username, 'sudo by id');
});

await testCase('sudo client option: new Gitlab({ sudo }) acts as that user', async () => {
  const [erin] = need('erin');
  const sudoApi = as(ROOT, { sudo: erin.username });
  eq((await sudoApi.Users.showCurrentUser()).username, erin.username, 'username');
});

await testCase('sudo with a non-admin token rejects with 403', async () => {
  const [erinApi, frank] = need('erinApi', 'frank');
  await rejects(403, () => erinApi.Users.showCurrentUser({ sudo: frank.username }));
});

await testCase('Users.editStatus({ emoji, message, clearStatusAfter }) and showStatus', async () => {
  const [erin, erinApi] = need('erin', 'erinApi');
  const put = await erinApi.Users.editStatus({ emoji: 'rocket', message: 'gb shipping', clearStatusAfter: '1_day' });
  eq(put.message, 'gb shipping', 'message in the PUT answer');
  eq(put.availability, 'not_set', 'availability');
  check(put.clear_status_at, 'clear_status_at not set');
  const mine = await erinApi.Users.showStatus();
  eq(mine.emoji, 'rocket', 'emoji via GET /user/status');
  const byName = await api.Users.showStatus({ iDOrUsername: erin.username });
  eq(byName.message, 'gb shipping', 'message via GET /users/:username/status');
  const byId = await api.Users.showStatus({ iDOrUsername: erin.id });
  eq(byId.emoji, 'rocket', 'emoji via GET /users/:id/status');
});

await testCase('Users.editStatus({ message }) alone gets the speech_balloon emoji', async () => {
  const [frankToken] = [await api.Users.createPersonalAccessToken(need('frank')[0].id, 'gb-status', ['api'])];
  const put = await as(frankToken.token).Users.editStatus({ message: 'only a message' });
  eq(put.emoji, 'speech_balloon', 'default emoji');
  eq(put.clear_status_at, null, 'clear_status_at');
});

await testCase('Users.follow / allFollowers / allFollowing / unfollow', async () => {
  const [erin, erinApi, frank] = need('erin', 'erinApi', 'frank');
  const res = await erinApi.Users.follow(frank.id);
  eq(res.id, frank.id, 'follow answer id');
  eq((await api.Users.allFollowers(frank.id)).map((u) => u.id), [erin.id], 'followers');
  eq((await api.Users.allFollowing(erin.id)).map((u) => u.id), [frank.id], 'following');
  await erinApi.Users.unfollow(frank.id);
  eq((await api.Users.allFollowers(frank.id)).map((u) => u.id), [], 'followers after unfollow');
});

await testCase('Users.editCurrentUserPreferences / showCurrentUserPreferences', async () => {
  const [erinApi, erin] = need('erinApi', 'erin');
  const put = await erinApi.Users.editCurrentUserPreferences(true, true);
  eq(put.view_diffs_file_by_file, true, 'view_diffs_file_by_file');
  const got = await erinApi.Users.showCurrentUserPreferences();
  eq(got.show_whitespace_in_diffs, true, 'show_whitespace_in_diffs read back');
  eq(got.user_id, erin.id, 'user_id');
});

await testCase('Users.showCount() (GET /user_counts)', async () => {
  const [erinApi] = need('erinApi');
  const counts = await erinApi.Users.showCount();
  for (const k of ['merge_requests', 'assigned_issues', 'assigned_merge_requests', 'review_requested_merge_requests', 'todos']) {
    check(typeof counts[k] === 'number', `${k} missing`);
  }
});

await testCase('ApplicationSettings.show / edit', async () => {
  const s = await api.ApplicationSettings.show();
  check('signup_enabled' in s, 'no signup_enabled');
  const edited = await api.ApplicationSettings.edit({ afterSignUpText: `gb ${TAG}` });
  eq(edited.after_sign_up_text, `gb ${TAG}`, 'after_sign_up_text in the PUT answer');
  eq((await api.ApplicationSettings.show()).after_sign_up_text, `gb ${TAG}`, 'read back');
});

await testCase('Users.block / unblock (201 answers) and the blocked filter', async () => {
  const [hank] = need('hank');
  await api.Users.block(hank.id);
  eq((await api.Users.show(hank.id)).state, 'blocked', 'state after block');
  check((await api.Users.all({ blocked: true })).some((u) => u.id === hank.id), 'not listed with blocked: true');
  await api.Users.unblock(hank.id);
  eq((await api.Users.show(hank.id)).state, 'active', 'state after unblock');
});

await testCase('Users.remove(id) (DELETE /users/:id), then show rejects with 404', async () => {
  const [gina] = need('gina');
  await api.Users.remove(gina.id);
  await rejects(404, () => api.Users.show(gina.id));
});

await testCase('Users.remove(id, { hardDelete: true })', async () => {
  const ivy = await newUser('ivy');
  await api.Users.remove(ivy.id, { hardDelete: true });
  await rejects(404, () => api.Users.show(ivy.id));
  await rejects(404, () => api.Users.remove(ivy.id));
});

// --- Projects, groups, members and issues (issue 3) ---------------------------------------------------------------

await testCase('Groups.create, subgroup, Projects.create in it, GroupMembers.add', async () => {
  const group = await api.Groups.create(`Gb Group ${TAG}`, `gb-group-${TAG}`, { visibility: 'private' });
  const sub = await api.Groups.create('Sub', `sub-${TAG}`, { parentId: group.id });
  eq(sub.full_path, `gb-group-${TAG}/sub-${TAG}`, 'subgroup full_path');
  const project = await api.Projects.create({ name: `Gb Issues ${TAG}`, namespaceId: sub.id });
  eq(project.path_with_namespace, `gb-group-${TAG}/sub-${TAG}/gb-issues-${TAG}`, 'path_with_namespace');
  const dev = await newUser('issuedev');
  const member = await api.GroupMembers.add(group.id, 30, { userId: dev.id });
  eq(member.access_level, 30, 'access_level');
  const inherited = await api.ProjectMembers.all(project.id, { includeInherited: true });
  check(inherited.some((m) => m.id === dev.id), 'inherited member missing from members/all');
  eq((await api.Projects.show(project.path_with_namespace)).id, project.id, 'project by full path');
  Object.assign(state, { group, sub, project, issuedev: dev });
});

await testCase('ProjectLabels.create and ProjectMilestones.create', async () => {
  const [project] = need('project');
  const label = await api.ProjectLabels.create(project.id, 'bug', '#d9534f');
  eq([label.name, label.color], ['bug', '#d9534f'], 'label');
  const milestone = await api.ProjectMilestones.create(project.id, `v1-${TAG}`, { dueDate: '2031-01-31' });
  eq([milestone.iid, milestone.state], [1, 'active'], 'milestone');
  state.milestone = milestone;
});

await testCase('Issues.create with labels, assigneeIds and milestoneId; Issues.show by iid', async () => {
  const [project, dev, milestone] = need('project', 'issuedev', 'milestone');
  const issue = await api.Issues.create(project.id, 'Crash on start', { labels: 'bug,p1', assigneeIds: [dev.id], milestoneId: milestone.id, description: '- [ ] a' });
  eq([issue.iid, issue.labels, issue.assignees.map((a) => a.id), issue.milestone.id], [1, ['bug', 'p1'], [dev.id], milestone.id], 'created issue');
  eq(issue.task_status, '0 of 1 checklist item completed', 'task_status');
  const shown = await api.Issues.show(1, { projectId: project.id });
  eq([shown.title, shown.references.full], ['Crash on start', `${project.path_with_namespace}#1`], 'shown');
  for (let n = 2; n <= 5; n++) await api.Issues.create(project.id, `Issue ${n}`, n % 2 ? { labels: 'p2' } : {});
  state.issue = shown;
});

await testCase('Issues.edit: close, reopen, labels and due date', async () => {
  const [project] = need('project', 'issue');
  const closed = await api.Issues.edit(project.id, 1, { stateEvent: 'close', addLabels: 'triaged', dueDate: '2031-02-01' });
  eq([closed.state, closed.labels, closed.due_date], ['closed', ['bug', 'p1', 'triaged'], '2031-02-01'], 'closed');
  eq((await api.Issues.edit(project.id, 1, { stateEvent: 'reopen', removeLabels: 'p1' })).labels, ['bug', 'triaged'], 'labels after reopen');
});

await testCase('Issues.all filters (projectId, labels, state, assigneeId, search, iids) and groupId', async () => {
  const [project, dev, group] = need('project', 'issuedev', 'group');
  eq((await api.Issues.all({ projectId: project.id, labels: 'p2' })).map((i) => i.iid), [5, 3], 'labels=p2');
  eq((await api.Issues.all({ projectId: project.id, assigneeId: dev.id })).map((i) => i.iid), [1], 'assigneeId');
  eq((await api.Issues.all({ projectId: project.id, search: 'Crash' })).map((i) => i.iid), [1], 'search');
  eq((await api.Issues.all({ projectId: project.id, iids: [2, 4], orderBy: 'created_at', sort: 'asc' })).map((i) => i.iid), [2, 4], 'iids');
  eq((await api.Issues.all({ projectId: project.id, state: 'closed' })).length, 0, 'closed');
  eq((await api.Issues.all({ groupId: group.id })).length, 5, 'group issues');
  check((await api.Issues.all({ scope: 'all', perPage: 100, maxPages: 1 })).length >= 5, 'scope=all');
});

await testCase('Issues.all({ projectId, perPage: 2, showExpanded }) paginationInfo', async () => {
  const [project] = need('project');
  const { data, paginationInfo } = await api.Issues.all({ projectId: project.id, perPage: 2, maxPages: 1, showExpanded: true });
  eq(data.length, 2, 'page size');
  eq([paginationInfo.total, paginationInfo.totalPages, paginationInfo.perPage, paginationInfo.next], [5, 3, 2, 2], 'paginationInfo');
  eq((await api.Issues.all({ projectId: project.id, perPage: 2 })).length, 5, 'every page via Link');
});

await testCase('Issues.all({ groupId, perPage: 2, page: 2, maxPages: 1, showExpanded }) is page 2 of 3', async () => {
  const [group] = need('group', 'project');
  const { data, paginationInfo } = await api.Issues.all({ groupId: group.id, perPage: 2, page: 2, maxPages: 1, showExpanded: true });
  eq(data.map((i) => i.iid), [3, 2], 'iids on page 2');
  const p = paginationInfo;
  eq([p.total, p.totalPages, p.current, p.previous, p.next], [5, 3, 2, 1, 3], 'paginationInfo (total, totalPages, current, previous, next)');
  eq((await api.Issues.all({ groupId: group.id, perPage: 2, state: 'opened', labels: 'p2' })).map((i) => i.iid), [5, 3], 'filtered pages');
});

await testCase('time tracking: addTimeEstimate, addSpentTime, showTimeStats, resets', async () => {
  const [project] = need('project');
  eq((await api.Issues.addTimeEstimate(project.id, 1, '1w 2d')).human_time_estimate, '1w 2d', 'estimate');
  eq((await api.Issues.addSpentTime(project.id, 1, '30m')).total_time_spent, 1800, 'spent');
  const stats = await api.Issues.showTimeStats(project.id, 1);
  eq([stats.time_estimate, stats.human_total_time_spent], [201600, '30m'], 'time stats');
  eq((await api.Issues.resetTimeEstimate(project.id, 1)).time_estimate, 0, 'reset estimate');
  eq((await api.Issues.resetSpentTime(project.id, 1)).total_time_spent, 0, 'reset spent');
});

await testCase('Issues.createTodo, TodoLists.all and done; allParticipants; subscribe/unsubscribe', async () => {
  const [project, issue, dev] = need('project', 'issue', 'issuedev');
  eq((await api.Issues.createTodo(project.id, 1)).action_name, 'marked', 'to-do action');
  const todos = (await api.TodoLists.all()).filter((t) => t.target.id === issue.id);
  eq(todos.length, 1, 'pending to-dos');
  await api.TodoLists.done({ todoId: todos[0].id });
  eq((await api.TodoLists.all()).filter((t) => t.target.id === issue.id).length, 0, 'pending after done');
  const names = (await api.Issues.allParticipants(project.id, 1)).map((u) => u.username);
  check(names.includes('root') && names.includes(dev.username), `participants ${names}`);
  eq((await api.Issues.unsubscribe(project.id, 1)).subscribed, false, 'unsubscribed');
  eq((await api.Issues.subscribe(project.id, 1)).subscribed, true, 'subscribed');
});

await testCase('Epics.create and Epics.all; an issue joins the epic', async () => {
  const [group, project] = need('group', 'project');
  const epic = await api.Epics.create(group.id, 'Roadmap', { labels: 'theme' });
  eq([epic.iid, epic.labels], [1, ['theme']], 'epic');
  check((await api.Epics.all(group.id)).some((e) => e.id === epic.id), 'epic not listed');
  const issue = await api.Issues.create(project.id, 'In the epic', { epicId: epic.id });
  eq(issue.epic.iid, epic.iid, 'issue epic');
  state.epic = epic;
});

await testCase('ProjectMembers.add (guest), edit, show, all; remove then show rejects 404', async () => {
  const [project] = need('project');
  const guest = await newUser('guest');
  const m = await api.ProjectMembers.add(project.id, 10, { userId: guest.id });
  eq([m.username, m.access_level], [guest.username, 10], 'added member');
  eq((await api.ProjectMembers.edit(project.id, guest.id, 20)).access_level, 20, 'edited access_level');
  eq((await api.ProjectMembers.show(project.id, guest.id)).access_level, 20, 'shown access_level');
  check((await api.ProjectMembers.all(project.id)).some((x) => x.id === guest.id), 'guest missing from ProjectMembers.all');
  await api.ProjectMembers.edit(project.id, guest.id, 10);
  const temp = await newUser('tempmember');
  await api.ProjectMembers.add(project.id, 30, { userId: temp.id });
  await api.ProjectMembers.remove(project.id, temp.id);
  await rejects(404, () => api.ProjectMembers.show(project.id, temp.id));
  state.guest = guest;
});

await testCase('confidential issue: Issues.show as a guest (sudo) rejects 404, Issues.all hides it, a developer reads it', async () => {
  const [project, guest, dev] = need('project', 'guest', 'issuedev');
  const secret = await api.Issues.create(project.id, 'Secret', { confidential: true });
  eq(secret.confidential, true, 'confidential');
  await rejects(404, () => api.Issues.show(secret.iid, { projectId: project.id, sudo: guest.username }), '404 Not found');
  const seen = (await api.Issues.all({ projectId: project.id, sudo: guest.username })).map((i) => i.iid);
  check(!seen.includes(secret.iid) && seen.includes(1), `guest's list ${JSON.stringify(seen)} (confidential #${secret.iid} must be hidden, #1 shown)`);
  eq((await api.Issues.show(secret.iid, { projectId: project.id, sudo: dev.username })).title, 'Secret', 'developer reads it');
});

await testCase('IssueNotes.create (internal too), all, show, edit, remove; system notes; internal hidden from a guest', async () => {
  const [project, guest] = need('project', 'guest');
  const n1 = await api.IssueNotes.create(project.id, 1, 'First comment');
  eq([n1.body, n1.system, n1.noteable_type, n1.noteable_iid, n1.author.username], ['First comment', false, 'Issue', 1, 'root'], 'created note');
  const n2 = await api.IssueNotes.create(project.id, 1, 'Internal remark', { internal: true });
  eq([n2.internal, n2.confidential], [true, true], 'internal note flags');
  const all = await api.IssueNotes.all(project.id, 1, { sort: 'asc', orderBy: 'created_at' });
  eq(all.filter((n) => !n.system).map((n) => n.body), ['First comment', 'Internal remark'], 'user notes oldest first');
  const system = all.filter((n) => n.system).map((n) => n.body);
  for (const body of ['changed due date to February 1, 2031', 'changed time estimate to 1w 2d', 'removed time spent']) {
    check(system.includes(body), `system note ${JSON.stringify(body)} missing from ${JSON.stringify(system)}`);
  }
  eq((await api.IssueNotes.all(project.id, 1, { sudo: guest.username })).filter((n) => !n.system).map((n) => n.body), ['First comment'], "guest's notes");
  eq((await api.IssueNotes.edit(project.id, 1, n1.id, { body: 'First comment (edited)' })).body, 'First comment (edited)', 'edited body');
  eq((await api.IssueNotes.show(project.id, 1, n1.id)).body, 'First comment (edited)', 'body read back');
  eq((await api.Issues.show(1, { projectId: project.id })).user_notes_count, 2, 'user_notes_count');
  await api.IssueNotes.remove(project.id, 1, n2.id);
  await rejects(404, () => api.IssueNotes.show(project.id, 1, n2.id));
  state.note = n1;
});

await testCase('IssueAwardEmojis award/all/show/remove with upvotes and downvotes; IssueNoteAwardEmojis', async () => {
  const [project, issue, note, dev] = need('project', 'issue', 'note', 'issuedev');
  const up = await api.IssueAwardEmojis.award(project.id, 1, 'thumbsup');
  eq([up.name, up.user.username, up.awardable_type, up.awardable_id], ['thumbsup', 'root', 'Issue', issue.id], 'award');
  await api.IssueAwardEmojis.award(project.id, 1, 'thumbsdown', { sudo: dev.username });
  const shown = await api.Issues.show(1, { projectId: project.id });
  eq([shown.upvotes, shown.downvotes], [1, 1], 'upvotes, downvotes');
  eq((await api.IssueAwardEmojis.all(project.id, 1)).map((a) => a.name).sort(), ['thumbsdown', 'thumbsup'], 'award list');
  eq((await api.IssueAwardEmojis.show(project.id, 1, up.id)).name, 'thumbsup', 'award show');
  await rejects(404, () => api.IssueAwardEmojis.award(project.id, 1, 'thumbsup'));
  await api.IssueAwardEmojis.remove(project.id, 1, up.id);
  eq((await api.Issues.show(1, { projectId: project.id })).upvotes, 0, 'upvotes after remove');
  const tada = await api.IssueNoteAwardEmojis.award(project.id, 1, note.id, 'tada');
  eq([tada.name, tada.awardable_type, tada.awardable_id], ['tada', 'Note', note.id], 'note award');
  eq((await api.IssueNoteAwardEmojis.all(project.id, 1, note.id)).map((a) => a.name), ['tada'], 'note award list');
  await api.IssueNoteAwardEmojis.remove(project.id, 1, note.id, tada.id);
  eq((await api.IssueNoteAwardEmojis.all(project.id, 1, note.id)).length, 0, 'note awards after remove');
});

await testCase('GroupLabels and GroupMilestones: an issue uses them; allAssignedIssues; ProjectLabels.subscribe', async () => {
  const [group, project, milestone] = need('group', 'project', 'milestone');
  const label = await api.GroupLabels.create(group.id, 'frontend', '#428bca');
  eq([label.name, label.color], ['frontend', '#428bca'], 'group label');
  const gm = await api.GroupMilestones.create(group.id, `Q1-${TAG}`, { dueDate: '2031-03-31' });
  eq([gm.title, gm.state, gm.group_id], [`Q1-${TAG}`, 'active', group.id], 'group milestone');
  const planned = await api.Issues.create(project.id, 'Planned', { labels: 'frontend', milestoneId: gm.id });
  eq([planned.labels, planned.milestone.id], [['frontend'], gm.id], 'issue with group label and milestone');
  eq((await api.GroupMilestones.allAssignedIssues(group.id, gm.id)).map((i) => i.title), ['Planned'], 'group milestone issues');
  eq((await api.ProjectMilestones.allAssignedIssues(project.id, milestone.id)).map((i) => i.iid), [1], 'project milestone issues');
  const names = (await api.ProjectLabels.all(project.id)).map((l) => l.name);
  check(names.includes('bug') && names.includes('frontend'), `project labels ${JSON.stringify(names)} lack the group label`);
  check((await api.GroupLabels.all(group.id)).some((l) => l.id === label.id), 'group label not in GroupLabels.all');
  // Not ProjectLabels.subscribe: @gitbeaker/core 43.8.0 posts it to /projects/:id/issues/:label_id/subscribe (a client
  // bug; python-gitlab's label.subscribe() covers the route).
  eq((await api.ProjectLabels.show(project.id, 'bug')).color, '#d9534f', 'ProjectLabels.show by name');
  eq((await api.GroupMilestones.edit(group.id, gm.id, { stateEvent: 'close' })).state, 'closed', 'group milestone closed');
});

// Not EpicAwardEmojis: @gitbeaker/core 43.8.0 builds /epics/:group_id/issues/:epic_iid/award_emoji (a client bug); the
// python-gitlab stage awards emoji on epics.
await testCase('EpicIssues.all, EpicNotes (epic id), Epics.edit closes', async () => {
  const [group, epic] = need('group', 'epic');
  eq((await api.EpicIssues.all(group.id, epic.iid)).map((i) => i.title), ['In the epic'], 'epic issues');
  const note = await api.EpicNotes.create(group.id, epic.id, 'Epic comment');
  eq([note.body, note.noteable_type], ['Epic comment', 'Epic'], 'epic note');
  eq((await api.EpicNotes.all(group.id, epic.id)).filter((n) => !n.system).map((n) => n.body), ['Epic comment'], 'epic notes');
  const edited = await api.Epics.edit(group.id, epic.iid, { title: 'Roadmap 2026', stateEvent: 'close' });
  eq([edited.title, edited.state], ['Roadmap 2026', 'closed'], 'edited epic');
});

// Not Issues.showUserAgentDetails: @gitbeaker/core 43.8.0 asks /user_agent_details (GitLab's route is user_agent_detail,
// a client bug); python-gitlab's issue.user_agent_detail() covers it.
await testCase('Issues.show(id) without projectId (/issues/:id, administrators only)', async () => {
  const [issue, guest] = need('issue', 'guest');
  eq((await api.Issues.show(issue.id)).title, 'Crash on start', 'GET /issues/:id');
  await rejects(403, () => api.Issues.show(issue.id, { sudo: guest.username }));
});

await testCase("assignee's to-do seen with sudo; TodoLists.done() marks all done", async () => {
  const [issue, dev] = need('issue', 'issuedev');
  const todos = (await api.TodoLists.all({ sudo: dev.username })).filter((t) => t.target.id === issue.id);
  eq(todos.map((t) => [t.action_name, t.target.iid]), [['assigned', 1]], "assignee's to-dos");
  await api.TodoLists.done({ sudo: dev.username });
  eq((await api.TodoLists.all({ sudo: dev.username })).length, 0, 'pending to-dos after done()');
});

await testCase('Issues.uploadMetricImage (multipart), allMetricImages, editMetricImage, file served at file_path, removeMetricImage', async () => {
  const [project] = need('project');
  // Metric images belong to incidents (ee/app/policies/ee/issue_policy.rb).
  const incident = await api.Issues.create(project.id, 'Outage', { issueType: 'incident' });
  eq(incident.issue_type, 'incident', 'issue_type');
  const iid = incident.iid;
  // A 1x1 transparent PNG.
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000005000125fa0a3b0000000049454e44ae426082', 'hex');
  // Form bodies keep their keys as given (no decamelizing in @gitbeaker/core 43.8.0's appendFormFromObject), so the
  // typed `urlText` would reach GitLab as an unknown field: a working script passes url_text.
  const img = await api.Issues.uploadMetricImage(project.id, iid, { content: new Blob([png], { type: 'image/png' }), filename: 'graph.png' }, { url: 'https://example.com/dash', url_text: 'Dashboard' });
  eq([img.filename, img.url, img.url_text], ['graph.png', 'https://example.com/dash', 'Dashboard'], 'uploaded image');
  eq((await api.Issues.allMetricImages(project.id, iid)).map((i) => i.id), [img.id], 'listed images');
  eq((await api.Issues.editMetricImage(project.id, iid, img.id, { urlText: 'Grafana' })).url_text, 'Grafana', 'edited url_text');
  const res = await fetch(img.file_path, { headers: { 'PRIVATE-TOKEN': ROOT } });
  eq([res.status, res.headers.get('content-type')], [200, 'image/png'], 'file status and type');
  check(Buffer.from(await res.arrayBuffer()).equals(png), 'file bytes differ from the upload');
  await api.Issues.removeMetricImage(project.id, iid, img.id);
  eq((await api.Issues.allMetricImages(project.id, iid)).length, 0, 'images after remove');
});

// Not Issues.promote: @gitbeaker/core 43.8.0 sends `${body} \n /promote`, and GitLab only runs a quick action at the start of
// a line (Gitlab::QuickActions::Extractor `^\/`), so real GitLab keeps it as a comment too; a script writes the note itself.
await testCase('IssueNotes.create with a comment and /promote: comment kept, the issue becomes an epic of its group', async () => {
  const [project, sub] = need('project', 'sub');
  const issue = await api.Issues.create(project.id, 'Promote me', { labels: 'bug' });
  const note = await api.IssueNotes.create(project.id, issue.iid, 'Bigger than an issue\n/promote');
  eq([note.body, note.commands_changes], ['Bigger than an issue', { promote_to_epic: true }], 'note with commands_changes');
  eq((await api.Issues.show(issue.iid, { projectId: project.id })).state, 'closed', 'promoted issue state');
  eq((await api.Epics.all(sub.id)).filter((e) => e.title === 'Promote me').map((e) => e.labels), [['bug']], "the epic in the project's group");
});

await testCase('Issues.remove, then show rejects with 404', async () => {
  const [project] = need('project');
  const doomed = await api.Issues.create(project.id, 'to delete');
  await api.Issues.remove(project.id, doomed.iid);
  await rejects(404, () => api.Issues.show(doomed.iid, { projectId: project.id }));
});

console.log('END');
