/**
 * Project and group text caps (Project `description` 2,000, topics `string(255)`, Namespace::Detail
 * `description` 255): a 400 `{"message":{attr:[...]}}` and nothing stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

describe('project text', () => {
  it('refuses a description over 2,000 characters on create and stores no project', async () => {
    const name = unique('p');
    const res = await api('/projects', { token: owner.token, body: { name, description: 'd'.repeat(2001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: ['is too long (maximum is 2000 characters)'] } });
    const mine = await api(`/projects?owned=true&search=${name}`, { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([]);
  });

  it('accepts 2,000 characters, refuses 2,001 on update and keeps the old description', async () => {
    const created = await api('/projects', { token: owner.token, body: { name: unique('p'), description: 'e'.repeat(2000) } });
    expect(created.status).toBe(201);
    const res = await api(`/projects/${created.body.id}`, { method: 'PUT', token: owner.token, body: { description: 'f'.repeat(2001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: ['is too long (maximum is 2000 characters)'] } });
    expect((await api(`/projects/${created.body.id}`, { token: owner.token })).body.description).toBe('e'.repeat(2000));
  });

  it('refuses a topic over 255 characters', async () => {
    const name = unique('p');
    const res = await api('/projects', { token: owner.token, body: { name, topics: ['ok', 't'.repeat(256)] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { 'topics.name': ['is too long (maximum is 255 characters)'] } });
    expect((await api(`/projects?owned=true&search=${name}`, { token: owner.token })).body).toEqual([]);
  });
});

describe('group text', () => {
  it('refuses a description over 255 characters on create and on update', async () => {
    const path = unique('g');
    const res = await api('/groups', { token: owner.token, body: { name: path, path, description: 'd'.repeat(256) } });
    expect(res.status).toBe(400);
    // lib/api/groups.rb: `render_api_error!("Failed to save group #{group.errors.messages}", 400)`.
    expect(res.body).toEqual({ message: 'Failed to save group {:description=>["is too long (maximum is 255 characters)"]}' });
    expect((await api(`/groups/${path}`, { token: owner.token })).status).toBe(404);

    const created = await api('/groups', { token: owner.token, body: { name: path, path, description: 'g'.repeat(255) } });
    expect(created.status).toBe(201);
    const upd = await api(`/groups/${created.body.id}`, { method: 'PUT', token: owner.token, body: { description: 'h'.repeat(256) } });
    expect(upd.status).toBe(400);
    expect(upd.body).toEqual({ message: { description: ['is too long (maximum is 255 characters)'] } });
    expect((await api(`/groups/${created.body.id}`, { token: owner.token })).body.description).toBe('g'.repeat(255));
  });
});
