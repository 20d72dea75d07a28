/** Editing and deleting notes on epics (lib/api/notes.rb over epics): the author or a maintainer+, never a system note. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let maintainer: TestUser;
let guest: TestUser;
let other: TestUser;
let group: { id: number };

beforeAll(async () => {
  [owner, maintainer, guest, other] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  for (const [u, level] of [[maintainer, 40], [guest, 10], [other, 10]] as const)
    expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
});

describe('PUT and DELETE /groups/:id/epics/:epic_id/notes/:note_id', () => {
  it('lets the author edit, others not, a maintainer delete, and keeps If-Unmodified-Since', async () => {
    const epic = (await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title: unique('epic') } })).body;
    const url = `/groups/${group.id}/epics/${epic.id}/notes`;
    const note = (await api(url, { token: guest.token, body: { body: 'first' } })).body;
    const edited = await api(`${url}/${note.id}`, { method: 'PUT', token: guest.token, body: { body: 'second' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: note.id, body: 'second', noteable_type: 'Epic' });
    expect((await api(`${url}/${note.id}`, { token: owner.token })).body.body).toBe('second');
    const denied = await api(`${url}/${note.id}`, { method: 'PUT', token: other.token, body: { body: 'hijack' } });
    expect(denied).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await api(`${url}/${note.id}`, { method: 'PUT', token: guest.token, body: { body: '' } })).status).toBe(400);
    expect((await api(`${url}/${note.id}`, { method: 'DELETE', token: other.token })).status).toBe(403);
    const stale = await api(`${url}/${note.id}`, { method: 'DELETE', token: maintainer.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    const del = await api(`${url}/${note.id}`, { method: 'DELETE', token: maintainer.token });
    expect(del.status).toBe(204);
    expect((await api(`${url}/${note.id}`, { token: owner.token })).status).toBe(404);
    expect((await api(url, { token: owner.token })).body.filter((n: { system: boolean }) => !n.system)).toEqual([]);
    expect((await api(`${url}/999999`, { method: 'PUT', token: owner.token, body: { body: 'x' } })).body).toEqual({ message: '404 Not found' });
    expect((await api(`${url}/${note.id}`, { method: 'DELETE' })).status).toBe(401);
  });
});
