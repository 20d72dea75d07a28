/**
 * ProjectPolicy `issues_disabled & merge_requests_disabled`: without either feature nobody reads or
 * manages labels and milestones of the project (LabelsFinder returns none; milestone routes 403).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let project: { id: number };
let label: { id: number; name: string };
let milestone: { id: number };

beforeAll(async () => {
  owner = await createUser();
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'public' } })).body;
  label = (await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('l'), color: '#000000' } })).body;
  milestone = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('m') } })).body;
});

describe('labels and milestones follow the issues and merge request features', () => {
  it('issues private, merge requests disabled: members keep access, other users lose it', async () => {
    const upd = await api(`/projects/${project.id}`, { method: 'PUT', token: owner.token, body: { issues_access_level: 'private', merge_requests_access_level: 'disabled' } });
    expect(upd.status).toBe(200);
    const stranger = await createUser();
    expect((await api(`/projects/${project.id}/labels`, { token: owner.token })).body.map((l: any) => l.id)).toEqual([label.id]);
    const list = await api(`/projects/${project.id}/labels`, { token: stranger.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    const one = await api(`/projects/${project.id}/labels/${label.id}`, { token: stranger.token });
    expect(one.status).toBe(404);
    expect(one.body).toEqual({ message: '404 Label Not Found' });
    const ms = await api(`/projects/${project.id}/milestones`, { token: stranger.token });
    expect(ms.status).toBe(403);
    expect(ms.body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/projects/${project.id}/milestones/${milestone.id}`, { token: owner.token })).status).toBe(200);
  });

  it('both disabled: even the owner and administrators are refused', async () => {
    await api(`/projects/${project.id}`, { method: 'PUT', token: owner.token, body: { issues_access_level: 'disabled', merge_requests_access_level: 'disabled' } });
    for (const token of [owner.token, rootToken]) {
      expect((await api(`/projects/${project.id}/labels`, { token })).body).toEqual([]);
      expect((await api(`/projects/${project.id}/labels`, { token, body: { name: unique('x'), color: '#000000' } })).status).toBe(403);
      expect((await api(`/projects/${project.id}/labels/${label.id}`, { method: 'PUT', token, body: { color: '#FFFFFF' } })).status).toBe(403);
      expect((await api(`/projects/${project.id}/milestones/${milestone.id}`, { token })).status).toBe(403);
      expect((await api(`/projects/${project.id}/milestones`, { token, body: { title: unique('y') } })).status).toBe(403);
    }
    await api(`/projects/${project.id}`, { method: 'PUT', token: owner.token, body: { issues_access_level: 'enabled' } });
    const back = await api(`/projects/${project.id}/labels/${label.id}`, { token: owner.token });
    expect(back.body).toMatchObject({ id: label.id, color: '#000000' });
    expect((await api(`/projects/${project.id}/milestones?state=all`, { token: owner.token })).body.map((m: any) => m.id)).toEqual([milestone.id]);
  });
});
