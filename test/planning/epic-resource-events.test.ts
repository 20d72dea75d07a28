/**
 * An epic's resource label events (issue 18 item 2; GitLab lib/api/resource_label_events.rb, EE
 * `Epic` eventable by id): labels added on create, through add_labels/remove_labels and replaced
 * with `labels`, listed and shown; a confidential epic's events hidden like the epic.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let outsider: TestUser;
let group: { id: number };

beforeAll(async () => {
  [owner, outsider] = await Promise.all([createUser(), createUser()]);
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
  for (const name of ['ep-a', 'ep-b', 'ep-c']) expect((await api(`/groups/${group.id}/labels`, { token: owner.token, body: { name, color: '#445566' } })).status).toBe(201);
});

const events = (epicId: number, token = owner.token, tail = '') => api(`/groups/${group.id}/epics/${epicId}/resource_label_events${tail}`, { token });

describe('GET /groups/:id/epics/:epic_id/resource_label_events', () => {
  it('records labels on create, add/remove, and replacement', async () => {
    const epic = (await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title: 'e', labels: 'ep-a' } })).body;
    const put = (body: Record<string, unknown>) => api(`/groups/${group.id}/epics/${epic.iid}`, { method: 'PUT', token: owner.token, body });
    expect((await put({ add_labels: 'ep-b', remove_labels: 'ep-a' })).status).toBe(200);
    expect((await put({ labels: 'ep-b,ep-c' })).status).toBe(200);
    expect((await put({ labels: 'ep-c' })).status).toBe(200);
    const res = await events(epic.id);
    expect(res.status).toBe(200);
    expect(res.body.map((e: { action: string; label: { name: string } }) => `${e.action} ${e.label.name}`)).toEqual(['add ep-a', 'remove ep-a', 'add ep-b', 'add ep-c', 'remove ep-b']);
    expect(res.body[0]).toMatchObject({ resource_type: 'Epic', resource_id: epic.id, user: { id: owner.id } });
    expect((await events(epic.id, owner.token, `/${res.body[1].id}`)).body).toEqual(res.body[1]);
    expect((await events(epic.id, owner.token, '/999999')).body).toEqual({ message: '404 Not found' });
  });

  it('hides a confidential epic (404 Epic Not Found) and refuses anonymous callers', async () => {
    const epic = (await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title: 'c', confidential: true, labels: 'ep-a' } })).body;
    const hidden = await events(epic.id, outsider.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Epic Not Found' });
    expect((await api(`/groups/${group.id}/epics/${epic.id}/resource_label_events`)).status).toBe(401);
  });
});
