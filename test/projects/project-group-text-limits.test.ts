/** Project description (2,000), group description (255, Namespace::Detail), topics and default branch names. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

describe('projects', () => {
  it('refuses a description over 2,000 characters and creates nothing', async () => {
    const name = unique('p');
    const res = await api('/projects', { token: owner.token, body: { name, description: 'd'.repeat(2001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: ['is too long (maximum is 2000 characters)'] } });
    expect((await api(`/projects?search=${name}&owned=true`, { token: owner.token })).body).toEqual([]);
  });

  it('refuses the same on update and keeps the old description', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('p'), description: 'kept' } })).body;
    const res = await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { description: 'd'.repeat(2001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: ['is too long (maximum is 2000 characters)'] } });
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.description).toBe('kept');
  });

  it('refuses a topic over 255 characters', async () => {
    const res = await api('/projects', { token: owner.token, body: { name: unique('p'), topics: ['ok', 't'.repeat(256)] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { 'topics.name': ['is too long (maximum is 255 characters)'] } });
  });

  it('refuses more than 100 topics in one request', async () => {
    const res = await api('/projects', { token: owner.token, body: { name: unique('p'), topics: Array.from({ length: 101 }, (_, i) => `t${i}`) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'topics must contain at most 100 items' });
  });

  it('refuses a default branch name git would refuse', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('p') } })).body;
    const res = await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { default_branch: 'x y..z~^:' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { default_branch: ['is invalid'] } });
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.default_branch).toBe(p.default_branch);
  });
});

describe('groups', () => {
  it('refuses a description over 255 characters and creates nothing', async () => {
    const path = unique('g');
    const res = await api('/groups', { token: owner.token, body: { name: path, path, description: 'd'.repeat(256) } });
    expect(res.status).toBe(400);
    // groups.rb: `render_api_error!("Failed to save group #{group.errors.messages}", 400)`.
    expect(res.body).toEqual({ message: 'Failed to save group {:description=>["is too long (maximum is 255 characters)"]}' });
    expect((await api(`/groups/${path}`, { token: owner.token })).status).toBe(404);
  });

  it('refuses a default branch name with a NUL and keeps the old one', async () => {
    const path = unique('g');
    const g = (await api('/groups', { token: owner.token, body: { name: path, path, default_branch: 'trunk' } })).body;
    const res = await api(`/groups/${g.id}`, { method: 'PUT', token: owner.token, body: { default_branch: 'ma\u0000in' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'default_branch contains a null byte' });
    const invalid = await api(`/groups/${g.id}`, { method: 'PUT', token: owner.token, body: { default_branch: 'x y..z~^:' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ message: { default_branch_name: ['is invalid'] } });
    expect((await api(`/groups/${g.id}`, { token: owner.token })).body.default_branch).toBe('trunk');
  });
});
