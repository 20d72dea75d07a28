/**
 * Protected branches API (lib/api/protected_branches.rb + EE helpers) on a Premium-or-above
 * instance (tests run as ultimate): create with defaults and explicit levels, wildcards, the entity's
 * field order, list with search and pagination, get by URL-encoded name, update with nested
 * attributes, unprotect, and GitLab's error bodies.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

let owner: TestUser;
let developer: TestUser;
let outsider: TestUser;
let projectId: number;
let groupId: number;

const pb = (path = '') => `/projects/${projectId}/protected_branches${path}`;

beforeAll(async () => {
  [owner, developer, outsider] = await Promise.all([createUser(), createUser(), createUser()]);
  const path = unique('pbg');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  if (g.status !== 201) throw new Error(g.text);
  groupId = g.body.id;
  const p = await api('/projects', { token: owner.token, body: { path: 'repo', namespace_id: groupId, visibility: 'private' } });
  if (p.status !== 201) throw new Error(p.text);
  projectId = p.body.id;
  const m = await api(`/projects/${projectId}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } });
  if (m.status !== 201) throw new Error(m.text);
});

const role = (id: number, level: number, description: string) => ({ id, access_level: level, access_level_description: description, user_id: null, group_id: null });

describe('POST /projects/:id/protected_branches', () => {
  it('protects a branch with Maintainer defaults, in GitLab field order', async () => {
    const res = await api(pb(), { token: owner.token, body: { name: 'main' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([
      'id',
      'name',
      'push_access_levels',
      'merge_access_levels',
      'allow_force_push',
      'unprotect_access_levels',
      'code_owner_approval_required',
      'inherited',
    ]);
    const [push, merge, unprotect] = [res.body.push_access_levels, res.body.merge_access_levels, res.body.unprotect_access_levels];
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'main',
      push_access_levels: [role(push[0].id, 40, 'Maintainers')],
      merge_access_levels: [role(merge[0].id, 40, 'Maintainers')],
      allow_force_push: false,
      unprotect_access_levels: [role(unprotect[0].id, 40, 'Maintainers')],
      code_owner_approval_required: false,
      inherited: false,
    });
    expect(Object.keys(push[0])).toEqual(['id', 'access_level', 'access_level_description', 'user_id', 'group_id']);
    const back = await api(pb('/main'), { token: owner.token });
    expect(back.status).toBe(200);
    expect(back.body).toEqual(res.body);
  });

  it('takes explicit levels, a wildcard name and allow_force_push as form parameters', async () => {
    const res = await api(pb(), {
      token: owner.token,
      form: { name: '*-stable', push_access_level: '30', merge_access_level: '0', unprotect_access_level: '60', allow_force_push: 'true', code_owner_approval_required: 'true' },
    });
    // 60 (instance admins) as the only unprotect level: an owner could not remove the rule later.
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    expect((await api(pb('/*-stable'), { token: owner.token })).status).toBe(404);

    const ok = await api(pb(), {
      token: owner.token,
      form: { name: '*-stable', push_access_level: '30', merge_access_level: '0', allow_force_push: 'true', code_owner_approval_required: 'true' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.push_access_levels.map((l: any) => [l.access_level, l.access_level_description])).toEqual([[30, 'Developers + Maintainers']]);
    expect(ok.body.merge_access_levels.map((l: any) => [l.access_level, l.access_level_description])).toEqual([[0, 'No one']]);
    expect(ok.body.allow_force_push).toBe(true);
    expect(ok.body.code_owner_approval_required).toBe(true);
    const back = await api(pb(`/${encodeURIComponent('*-stable')}`), { token: owner.token });
    expect(back.status).toBe(200);
    expect(back.body.id).toBe(ok.body.id);
  });

  it('answers 409 for an existing name (case-sensitive) and keeps the first rule', async () => {
    const name = unique('dup');
    expect((await api(pb(), { token: owner.token, body: { name, push_access_level: 30 } })).status).toBe(201);
    const again = await api(pb(), { token: owner.token, body: { name, push_access_level: 0 } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: `Protected branch '${name}' already exists` });
    const back = await api(pb(`/${name}`), { token: owner.token });
    expect(back.body.push_access_levels.map((l: any) => l.access_level)).toEqual([30]);
    expect((await api(pb(), { token: owner.token, body: { name: name.toUpperCase() } })).status).toBe(201);
  });

  it('validates parameters like Grape (400) and records like ActiveRecord (422)', async () => {
    expect(await api(pb(), { token: owner.token, body: {} }).then((r) => [r.status, r.body])).toEqual([400, { error: 'name is missing' }]);
    expect(await api(pb(), { token: owner.token, body: { name: 'x1', push_access_level: 20 } }).then((r) => [r.status, r.body])).toEqual([
      400,
      { error: 'push_access_level does not have a valid value' },
    ]);
    expect(await api(pb(), { token: owner.token, body: { name: 'x1', unprotect_access_level: 0 } }).then((r) => [r.status, r.body])).toEqual([
      400,
      { error: 'unprotect_access_level does not have a valid value' },
    ]);
    expect(await api(pb(), { token: owner.token, body: { name: 'x1', allowed_to_push: [{ access_level: 'abc' }] } }).then((r) => [r.status, r.body])).toEqual([
      400,
      { error: 'allowed_to_push[0][access_level] is invalid' },
    ]);
    expect(await api(pb(), { token: owner.token, body: { name: 'x1', allow_force_push: 'maybe' } }).then((r) => [r.status, r.body])).toEqual([
      400,
      { error: 'allow_force_push is invalid' },
    ]);
    expect(await api(pb(), { token: owner.token, body: { name: '' } }).then((r) => [r.status, r.body])).toEqual([422, { message: ["Name can't be blank"] }]);
    expect(await api(pb(), { token: owner.token, body: { name: 'n'.repeat(1025) } }).then((r) => [r.status, r.body])).toEqual([
      422,
      { message: ['Name is too long (maximum is 1024 characters)'] },
    ]);
    const dup = await api(pb(), { token: owner.token, body: { name: 'x1', push_access_level: 30, allowed_to_push: [{ access_level: 30 }] } });
    expect([dup.status, dup.body]).toEqual([422, { message: ['Push access levels access level has already been taken'] }]);
    expect((await api(pb('/x1'), { token: owner.token })).status).toBe(404);
  });

  it('takes user entries for project members only, and no group the project is not shared with', async () => {
    const name = unique('users');
    const res = await api(pb(), {
      token: owner.token,
      body: { name, allowed_to_push: [{ user_id: developer.id }], allowed_to_merge: [{ access_level: 30 }, { access_level: 40 }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.push_access_levels).toEqual([
      { id: expect.any(Number), access_level: 40, access_level_description: expect.stringContaining(developer.username), user_id: developer.id, group_id: null },
    ]);
    expect(res.body.merge_access_levels.map((l: any) => l.access_level)).toEqual([30, 40]);
    // allowed_to_unprotect empty: unprotect takes the Maintainer default.
    expect(res.body.unprotect_access_levels.map((l: any) => l.access_level)).toEqual([40]);

    const bad = await api(pb(), {
      token: owner.token,
      body: { name: unique('bad'), allowed_to_push: [{ user_id: outsider.id }, { user_id: 999999999 }], allowed_to_merge: [{ group_id: groupId }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: ['Merge access levels group does not have access to the project', 'Push access levels user is not a member of the project', "Push access levels user can't be blank"],
    });
  });

  it('reads allowed_to_* in every encoding clients use (Array[JSON])', async () => {
    const levelsOf = (body: any) => [body.push_access_levels.map((l: any) => l.access_level), body.merge_access_levels.map((l: any) => l.access_level)];
    const rack = await api(pb(), { token: owner.token, form: { name: unique('enc'), 'allowed_to_push[][access_level]': '30', 'allowed_to_merge[0][access_level]': '0' } });
    expect([rack.status, levelsOf(rack.body)]).toEqual([201, [[30], [0]]]);
    const jsonString = await api(pb(), { token: owner.token, form: { name: unique('enc'), allowed_to_push: '[{"access_level":30},{"access_level":40}]' } });
    expect([jsonString.status, levelsOf(jsonString.body)]).toEqual([201, [[30, 40], [40]]]);
    const single = await api(pb(), { token: owner.token, body: { name: unique('enc'), allowed_to_merge: { access_level: 30 } } });
    expect([single.status, levelsOf(single.body)]).toEqual([201, [[40], [30]]]);
    expect(await api(pb(), { token: owner.token, body: { name: unique('enc'), allowed_to_push: 'abc' } }).then((r) => [r.status, r.body])).toEqual([
      400,
      { error: 'allowed_to_push is invalid' },
    ]);
    expect(await api(pb(), { token: owner.token, body: { name: unique('enc'), allowed_to_unprotect: [{ access_level: 0 }] } }).then((r) => [r.status, r.body])).toEqual([
      400,
      { error: 'allowed_to_unprotect[0][access_level] does not have a valid value' },
    ]);
    // No deploy key is enabled for any project here.
    const deployKey = await api(pb(), { token: owner.token, body: { name: unique('enc'), allowed_to_push: [{ deploy_key_id: 1 }] } });
    expect([deployKey.status, deployKey.body]).toEqual([422, { message: ['Push access levels deploy key is not enabled for this project'] }]);
  });

  it('checks long entry lists in a few queries (150 unknown users, a member named twice)', async () => {
    const many = Array.from({ length: 150 }, (_, i) => ({ user_id: 2_000_000_000 + i }));
    const res = await api(pb(), { token: owner.token, body: { name: unique('many'), allowed_to_push: many, allowed_to_merge: [{ user_id: developer.id }, { user_id: developer.id }] } });
    expect([res.status, res.body]).toEqual([422, { message: ['Merge access levels user has already been taken', "Push access levels user can't be blank"] }]);
  });

  it('stores long entry lists in id order (several multi-row inserts)', async () => {
    const extra = await Promise.all(Array.from({ length: 12 }, () => createUser()));
    for (const u of extra) expect((await api(`/projects/${projectId}/members`, { token: owner.token, body: { user_id: u.id, access_level: 20 } })).status).toBe(201);
    const name = unique('long');
    const res = await api(pb(), { token: owner.token, body: { name, allowed_to_merge: extra.map((u) => ({ user_id: u.id })), merge_access_level: 30 } });
    expect(res.status).toBe(201);
    expect(res.body.merge_access_levels.map((l: any) => l.user_id)).toEqual([null, ...extra.map((u) => u.id)]);
    const ids = res.body.merge_access_levels.map((l: any) => l.id);
    expect([...ids].sort((a: number, b: number) => a - b)).toEqual(ids);
    const patched = await api(pb(`/${name}`), { method: 'PATCH', token: owner.token, body: { allowed_to_push: extra.map((u) => ({ user_id: u.id })) } });
    expect(patched.status).toBe(200);
    expect(patched.body.push_access_levels.map((l: any) => l.user_id)).toEqual([null, ...extra.map((u) => u.id)]);
    expect((await api(pb(`/${name}`), { token: owner.token })).body).toEqual(patched.body);
  });

  it('is refused to developers (403) and to callers who cannot see the project (404)', async () => {
    expect(await api(pb(), { token: developer.token, body: { name: 'dev' } }).then((r) => [r.status, r.body])).toEqual([403, { message: '403 Forbidden' }]);
    expect(await api(pb(), { token: outsider.token, body: { name: 'dev' } }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Project Not Found' }]);
    expect(await api(pb(), { token: null, body: { name: 'dev' } }).then((r) => [r.status, r.body])).toEqual([401, { message: '401 Unauthorized' }]);
    expect((await api(pb('/dev'), { token: owner.token })).status).toBe(404);
  });
});

describe('GET /projects/:id/protected_branches', () => {
  it('lists in id order with pagination headers and searches names', async () => {
    const path = unique('pbl');
    const p = await api('/projects', { token: owner.token, body: { path, namespace_id: groupId } });
    const base = `/projects/${p.body.id}/protected_branches`;
    for (const name of ['main', 'release/*', 'feature-x', 'ma']) expect((await api(base, { token: owner.token, body: { name } })).status).toBe(201);
    const all = await api(base, { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.body.map((b: any) => b.name)).toEqual(['main', 'release/*', 'feature-x', 'ma']);
    expect(all.headers.get('x-total')).toBe('4');
    const page = await api(`${base}?per_page=2&page=2`, { token: owner.token });
    expect(page.body.map((b: any) => b.name)).toEqual(['feature-x', 'ma']);
    expect(page.headers.get('x-prev-page')).toBe('1');
    expect(page.headers.get('x-total-pages')).toBe('2');
    // Three characters or more: substring, case-insensitive; shorter: the whole name.
    expect((await api(`${base}?search=EAS`, { token: owner.token })).body.map((b: any) => b.name)).toEqual(['release/*']);
    expect((await api(`${base}?search=ma`, { token: owner.token })).body.map((b: any) => b.name)).toEqual(['ma']);
    expect((await api(`${base}?search=${'x'.repeat(300)}`, { token: owner.token })).body).toEqual([]);
    expect((await api(`${base}?search=`, { token: owner.token })).body.length).toBe(4);
    // Case folding beyond ASCII, as PostgreSQL's ILIKE; several words must all match.
    expect((await api(base, { token: owner.token, body: { name: 'Über-Änderung' } })).status).toBe(201);
    expect((await api(`${base}?search=${encodeURIComponent('über')}`, { token: owner.token })).body.map((b: any) => b.name)).toEqual(['Über-Änderung']);
    expect((await api(`${base}?search=${encodeURIComponent('feat ure-x')}`, { token: owner.token })).body.map((b: any) => b.name)).toEqual(['feature-x']);
    expect((await api(`${base}?search=${encodeURIComponent('feat nope')}`, { token: owner.token })).body).toEqual([]);
    // A quoted term shorter than 3 characters is no term: the whole query must equal a name.
    expect((await api(`${base}?search=${encodeURIComponent('"ma"')}`, { token: owner.token })).body).toEqual([]);
    expect((await api(base, { token: owner.token, body: { name: 'release-2' } })).status).toBe(201);
    const searched = await api(`${base}?search=${encodeURIComponent('"leas"')}&per_page=1&page=2`, { token: owner.token });
    expect(searched.headers.get('x-total')).toBe('2');
    expect(searched.body.map((b: any) => b.name)).toEqual(['release-2']);
  });

  it('finds a name with a slash when URL-encoded and answers 404 Not found otherwise', async () => {
    const name = `release/${unique('v')}`;
    expect((await api(pb(), { token: owner.token, body: { name } })).status).toBe(201);
    const got = await api(pb(`/${encodeURIComponent(name)}`), { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.name).toBe(name);
    expect(await api(pb('/no-such-branch'), { token: owner.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not found' }]);
  });

  it('is readable by developers (read_code) and hidden from non-members of a private project', async () => {
    expect((await api(pb(), { token: developer.token })).status).toBe(200);
    expect(await api(pb('/main'), { token: outsider.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await api(pb(), { token: null })).status).toBe(404);
  });
});

describe('PATCH /projects/:id/protected_branches/:name', () => {
  it('updates flags and adds, changes and destroys entries through nested attributes', async () => {
    const name = unique('upd');
    const created = await api(pb(), { token: owner.token, body: { name } });
    const pushId = created.body.push_access_levels[0].id;
    const mergeId = created.body.merge_access_levels[0].id;

    const res = await api(pb(`/${name}`), {
      method: 'PATCH',
      token: owner.token,
      body: {
        allow_force_push: true,
        code_owner_approval_required: true,
        allowed_to_push: [{ access_level: 30 }, { id: pushId, _destroy: true }],
        allowed_to_merge: [{ id: mergeId, access_level: 30 }],
        allowed_to_unprotect: [{ user_id: owner.id }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.allow_force_push).toBe(true);
    expect(res.body.code_owner_approval_required).toBe(true);
    expect(res.body.push_access_levels.map((l: any) => l.access_level)).toEqual([30]);
    expect(res.body.merge_access_levels).toEqual([role(mergeId, 30, 'Developers + Maintainers')]);
    expect(res.body.unprotect_access_levels.map((l: any) => [l.access_level, l.user_id])).toEqual([
      [40, null],
      [40, owner.id],
    ]);
    expect((await api(pb(`/${name}`), { token: owner.token })).body).toEqual(res.body);
  });

  it('answers 422 for a duplicate level, 404 for a foreign entry id, 400 for a blank allow_force_push', async () => {
    const name = unique('upd');
    const created = await api(pb(), { token: owner.token, body: { name } });
    const dup = await api(pb(`/${name}`), { method: 'PATCH', token: owner.token, body: { allowed_to_push: [{ access_level: 40 }] } });
    expect([dup.status, dup.body]).toEqual([422, { message: ['Push access levels access level has already been taken'] }]);
    const foreign = await api(pb(`/${name}`), { method: 'PATCH', token: owner.token, body: { allowed_to_push: [{ id: created.body.merge_access_levels[0].id, _destroy: true }] } });
    expect([foreign.status, foreign.body]).toEqual([404, { message: '404 Not found' }]);
    const blank = await api(pb(`/${name}`), { method: 'PATCH', token: owner.token, form: { allow_force_push: '' } });
    expect([blank.status, blank.body]).toEqual([400, { error: 'allow_force_push is empty' }]);
    expect((await api(pb(`/${name}`), { token: owner.token })).body).toEqual(created.body);
  });

  it('leaves updated_at alone when nothing changes (If-Unmodified-Since still passes)', async () => {
    const name = unique('same');
    const created = await api(pb(), { token: owner.token, body: { name, allow_force_push: true } });
    const since = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000).toUTCString();
    await new Promise((r) => setTimeout(r, 1100));
    const same = await api(pb(`/${name}`), { method: 'PATCH', token: owner.token, body: { allow_force_push: true } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(created.body);
    expect((await api(pb(`/${name}`), { method: 'DELETE', token: owner.token, headers: { 'If-Unmodified-Since': since } })).status).toBe(204);
  });

  it('needs admin_project (403) and an existing rule (404)', async () => {
    expect(await api(pb('/main'), { method: 'PATCH', token: developer.token, body: { allow_force_push: true } }).then((r) => [r.status, r.body])).toEqual([
      403,
      { message: '403 Forbidden' },
    ]);
    expect(await api(pb('/nothing-here'), { method: 'PATCH', token: owner.token, body: { allow_force_push: true } }).then((r) => [r.status, r.body])).toEqual([
      404,
      { message: '404 Not found' },
    ]);
  });
});

describe('DELETE /projects/:id/protected_branches/:name', () => {
  it('unprotects (204) and the rule is gone', async () => {
    const name = `release/${unique('del')}`;
    expect((await api(pb(), { token: owner.token, body: { name } })).status).toBe(201);
    expect((await api(pb(`/${encodeURIComponent(name)}`), { method: 'DELETE', token: developer.token })).status).toBe(403);
    const res = await api(pb(`/${encodeURIComponent(name)}`), { method: 'DELETE', token: owner.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api(pb(`/${encodeURIComponent(name)}`), { token: owner.token })).status).toBe(404);
    expect(await api(pb(`/${encodeURIComponent(name)}`), { method: 'DELETE', token: owner.token }).then((r) => [r.status, r.body])).toEqual([
      404,
      { message: '404 Not found' },
    ]);
  });

  it('takes the branch out of approval rules scoped to it (the foreign key cascades in GitLab)', async () => {
    const name = unique('scoped');
    const made = await api(pb(), { token: owner.token, body: { name } });
    const rule = await api(`/projects/${projectId}/approval_rules`, { token: owner.token, body: { name: unique('rule'), approvals_required: 1, protected_branch_ids: [made.body.id] } });
    expect(rule.status).toBe(201);
    expect(rule.body.protected_branches.map((b: any) => b.name)).toEqual([name]);
    expect((await api(pb(`/${name}`), { method: 'DELETE', token: owner.token })).status).toBe(204);
    const after = await api(`/projects/${projectId}/approval_rules/${rule.body.id}`, { token: owner.token });
    expect(after.status).toBe(200);
    expect(after.body.protected_branches).toEqual([]);
  });

  it('honours If-Unmodified-Since (412) and the unprotect access levels', async () => {
    const name = unique('keep');
    expect((await api(pb(), { token: owner.token, body: { name } })).status).toBe(201);
    const stale = await api(pb(`/${name}`), { method: 'DELETE', token: owner.token, headers: { 'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' } });
    expect([stale.status, stale.body]).toEqual([412, { message: '412 Precondition Failed' }]);

    // Only the owner may unprotect: another maintainer is refused, root (an admin who is no member) too.
    const maintainer = await createUser();
    await api(`/projects/${projectId}/members`, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } });
    const created = await api(pb(`/${name}`), { token: owner.token });
    const patched = await api(pb(`/${name}`), {
      method: 'PATCH',
      token: owner.token,
      body: { allowed_to_unprotect: [{ user_id: owner.id }, { id: created.body.unprotect_access_levels[0].id, _destroy: true }] },
    });
    expect(patched.status).toBe(200);
    expect((await api(pb(`/${name}`), { method: 'DELETE', token: maintainer.token })).status).toBe(403);
    expect((await api(pb(`/${name}`), { method: 'DELETE', token: rootToken })).status).toBe(403);
    expect((await api(pb(`/${name}`), { method: 'DELETE', token: owner.token })).status).toBe(204);
  });
});
