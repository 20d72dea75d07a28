// A @gitbeaker/rest user's accounts and namespaces against this server, case by case (issue 18 item 3).
//
// Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
// `FAIL <case> :: <reason>` per case and `END` when done. Resources used: UserEmails (own and, with userId, any
// user's), Users.allMemberships and allActivities, Keys.show({ keyId | fingerprint }), Namespaces.exists and show,
// ProjectCustomAttributes and GroupCustomAttributes. Keys.show({ fingerprint }) writes `keys?fingerprint=…` into the
// endpoint, and gitbeaker 43.8 then replaces the URL's query with the (empty) search parameters, so the request
// arrives without it (a 400 from GitLab as from here); the fingerprint lookups go through a plain fetch instead.
import { createHash, randomBytes } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import { state, check, eq, need, rejects, testCase } from './gbharness.mjs';

const URL = process.env.GITLAB_URL;
const ROOT = process.env.GITLAB_ROOT_TOKEN;
const TAG = randomBytes(3).toString('hex');

const api = new Gitlab({ host: URL, token: ROOT, queryTimeout: 20_000 });
const as = (token) => new Gitlab({ host: URL, token, queryTimeout: 20_000 });

/** A structurally valid ssh-ed25519 public key around random bytes, and its blob. */
function freshKey() {
  const field = (b) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(randomBytes(32))]);
  return { key: `ssh-ed25519 ${blob.toString('base64')} gb-acct@example.com`, blob };
}

await testCase('Users.create, UserImpersonationTokens.create; UserEmails.create with userId (skipConfirmation) and all', async () => {
  const username = `gb-acct-${TAG}`;
  const user = await api.Users.create({ email: `${username}@example.com`, username, name: `Gb Acct ${TAG}`, password: `Pw-${TAG}-long-enough`, skipConfirmation: true });
  const token = (await api.UserImpersonationTokens.create(user.id, 'acct', ['api'])).token;
  const work = await api.UserEmails.create(`${username}-work@example.com`, { userId: user.id, skipConfirmation: true });
  check(work.confirmed_at, `confirmed_at ${work.confirmed_at}`);
  // A confirmed user's primary address has its own emails row, listed first (GitLab's add_primary_email_to_emails!).
  eq((await api.UserEmails.all({ userId: user.id })).map((e) => e.email), [`${username}@example.com`, work.email], 'UserEmails.all({ userId })');
  Object.assign(state, { user, token, work });
});

await testCase('UserEmails as the user: add, show, all, remove; a taken address rejects with 400', async () => {
  const [user, token, work] = need('user', 'token', 'work');
  const me = as(token);
  const home = await me.UserEmails.add(`gb-acct-${TAG}-home@example.com`);
  eq(home.confirmed_at, null, 'unconfirmed');
  eq((await me.UserEmails.show(home.id)).email, home.email, 'show');
  eq((await me.UserEmails.all()).map((e) => e.email).sort(), [user.email, work.email, home.email].sort(), 'all');
  await rejects(400, () => me.UserEmails.add(work.email), 'has already been taken');
  await rejects(400, () => me.UserEmails.add(user.email), 'has already been taken');
  await me.UserEmails.remove(home.id);
  await rejects(404, () => me.UserEmails.show(home.id));
  await api.UserEmails.remove(work.id, { userId: user.id });
  eq((await api.UserEmails.all({ userId: user.id })).map((e) => e.email), [user.email], 'after remove: the primary stays');
});

await testCase('Users.allMemberships (type) after Groups/Projects members; Users.allActivities', async () => {
  const [user] = need('user');
  const group = await api.Groups.create(`Gb Acct ${TAG}`, `gb-acct-grp-${TAG}`);
  const project = await api.Projects.create({ name: 'Gb acct project', path: 'gb-acct-project', namespaceId: group.id });
  await api.GroupMembers.add(group.id, 30, { userId: user.id });
  await api.ProjectMembers.add(project.id, 40, { userId: user.id });
  const all = await api.Users.allMemberships(user.id);
  eq(all.map((m) => [m.source_type, m.source_id, m.access_level]).sort(), [['Namespace', group.id, 30], ['Project', project.id, 40]].sort(), 'memberships');
  eq((await api.Users.allMemberships(user.id, { type: 'Namespace' })).map((m) => m.source_name), [group.name], 'type=Namespace');
  check(Array.isArray(await api.Users.allActivities({ from: '2000-01-01' })), 'allActivities');
  Object.assign(state, { group, project });
});

await testCase('Keys.show by keyId; the key by MD5 and SHA256 fingerprint (fetch: see above)', async () => {
  const [user, token] = need('user', 'token');
  const { key, blob } = freshKey();
  const created = await as(token).UserSSHKeys.create('acct', key);
  const md5 = createHash('md5').update(blob).digest('hex').replace(/(..)(?!$)/g, '$1:');
  const sha = createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
  const byId = await api.Keys.show({ keyId: created.id });
  eq([byId.id, byId.user.id, byId.user.username], [created.id, user.id, user.username], 'by id');
  const byFingerprint = async (f) => {
    const res = await fetch(`${URL}/api/v4/keys?fingerprint=${encodeURIComponent(f)}`, { headers: { 'PRIVATE-TOKEN': ROOT } });
    return [res.status, await res.json()];
  };
  for (const f of [md5, `SHA256:${sha}`]) {
    const [status, body] = await byFingerprint(f);
    eq([status, body.id, body.user.id], [200, created.id, user.id], f);
  }
  eq(await byFingerprint('nope'), [400, { message: 'Failed to return the key' }], 'malformed fingerprint');
  await rejects(404, () => api.Keys.show({ keyId: 999999999 }));
});

await testCase('Namespaces.exists (taken, suggested, free; parentId) and Namespaces.show', async () => {
  const [group] = need('group');
  const taken = await api.Namespaces.exists(group.path);
  eq([taken.exists, taken.suggests], [true, [`${group.path}1`]], 'taken');
  eq(await api.Namespaces.exists(taken.suggests[0]), { exists: false, suggests: [] }, 'suggestion is free');
  const sub = await api.Groups.create('child', 'child', { parentId: group.id });
  eq((await api.Namespaces.exists('child', { parentId: group.id })).exists, true, 'within the parent');
  eq((await api.Namespaces.exists('child')).exists, false, 'top level');
  eq((await api.Namespaces.show(sub.full_path)).id, sub.id, 'show');
});

await testCase('ProjectCustomAttributes and GroupCustomAttributes: set, show, all, remove; Projects.all({ customAttributes })', async () => {
  const [group, project] = need('group', 'project');
  const key = `gb_acct_${TAG}`;
  eq(await api.ProjectCustomAttributes.set(project.id, key, 'blue'), { key, value: 'blue' }, 'project set');
  await api.GroupCustomAttributes.set(group.id, key, 'green');
  eq((await api.ProjectCustomAttributes.show(project.id, key)).value, 'blue', 'project show');
  eq(await api.GroupCustomAttributes.all(group.id), [{ key, value: 'green' }], 'group all');
  const filtered = await (await fetch(`${URL}/api/v4/projects?custom_attributes[${key}]=blue`, { headers: { 'PRIVATE-TOKEN': ROOT } })).json();
  eq(filtered.map((p) => p.id), [project.id], 'custom_attributes filter');
  await api.ProjectCustomAttributes.remove(project.id, key);
  await rejects(404, () => api.ProjectCustomAttributes.show(project.id, key));
});

console.log('END');
