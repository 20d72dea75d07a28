/** Text caps of labels, milestones and epics (Label::DESCRIPTION_LENGTH_MAX, string(255) titles, Issuable's 1 MB). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let group: { id: number };
let project: { id: number };

beforeAll(async () => {
  owner = await createUser();
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id } })).body;
});

// 262,145 two-byte characters: far under 512K characters, one byte over 512 KB.
const overLabelBytes = 'é'.repeat(256 * 1024 + 1);

describe('label descriptions', () => {
  it('refuses a description over 512 KB (counted in bytes) and stores no label', async () => {
    const name = unique('l');
    const res = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#ff0000', description: overLabelBytes } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: ['is too long (512 KB). The maximum size is 512 KB.'] } });
    const list = await api(`/projects/${project.id}/labels?search=${name}`, { token: owner.token });
    expect(list.body).toEqual([]);
  });

  it('refuses the same on a group label update and keeps the old description', async () => {
    const name = unique('l');
    expect((await api(`/groups/${group.id}/labels`, { token: owner.token, body: { name, color: '#00ff00', description: 'short' } })).status).toBe(201);
    const res = await api(`/groups/${group.id}/labels/${name}`, { method: 'PUT', token: owner.token, body: { description: overLabelBytes } });
    expect(res.status).toBe(400);
    expect(res.body.message.description[0]).toMatch(/^is too long \(512 KB\)\. The maximum size is 512 KB\.$/);
    const after = await api(`/groups/${group.id}/labels/${name}`, { token: owner.token });
    expect(after.body.description).toBe('short');
  });

  it('takes a description of exactly 512 KB', async () => {
    const res = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('l'), color: '#0000ff', description: 'a'.repeat(512 * 1024) } });
    expect(res.status).toBe(201);
    expect(res.body.description).toHaveLength(512 * 1024);
  });

  it('strips tags from a long run of "<" without stalling', async () => {
    const started = Date.now();
    const res = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('l'), color: '#0000ff', description: '<'.repeat(300_000) } });
    expect(res.status).toBe(201);
    expect(res.body.description).toHaveLength(300_000);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('milestones', () => {
  it('refuses a title over 255 characters in milestone_responses wording and stores nothing', async () => {
    const title = `${unique('m')}${'t'.repeat(255)}`;
    const res = await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Failed to create milestone {:title=>["is too long (maximum is 255 characters)"]}' });
    const list = await api(`/projects/${project.id}/milestones?title=${encodeURIComponent(title)}`, { token: owner.token });
    expect(list.body).toEqual([]);
  });

  it('refuses a description over 1,000,000 characters on update and keeps the old one', async () => {
    const m = (await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title: unique('m'), description: 'before' } })).body;
    const res = await api(`/groups/${group.id}/milestones/${m.id}`, { method: 'PUT', token: owner.token, body: { description: 'x'.repeat(1_000_001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Failed to update milestone {:description=>["is too long (maximum is 1000000 characters)"]}' });
    expect((await api(`/groups/${group.id}/milestones/${m.id}`, { token: owner.token })).body.description).toBe('before');
  });
});

describe('epics', () => {
  it('refuses a description over 1 MB and creates no epic', async () => {
    const title = unique('e');
    const res = await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title, description: 'd'.repeat(1_048_577) } });
    expect(res.status).toBe(400);
    // BytesizeValidator rounds both sizes with number_to_human_size.
    expect(res.body).toEqual({ message: { description: ['is too long (1 MB). The maximum size is 1 MB.'] } });
    const list = await api(`/groups/${group.id}/epics?search=${title}`, { token: owner.token });
    expect(list.body).toEqual([]);
  });
});
