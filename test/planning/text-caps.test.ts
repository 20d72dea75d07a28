/**
 * Text caps on labels, milestones and epics, as GitLab's models hold them (Label::DESCRIPTION_LENGTH_MAX
 * 512 KB by bytesize, titles `string(255)`, milestone descriptions MAX_TEXT_SIZE_LIMIT, epic descriptions
 * Issuable's 1,048,576): a 400 in the model's words, and nothing stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let group: { id: number };
let project: { id: number };

beforeAll(async () => {
  owner = await createUser();
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id } })).body;
});

/** 600 KB of ASCII: over the label cap, well under any request limit. */
const LABEL_TOO_BIG = 'x'.repeat(600 * 1024);
const LABEL_MESSAGE = 'is too long (600 KB). The maximum size is 512 KB.';

async function labelTitles(path: string): Promise<string[]> {
  const res = await api(`${path}?per_page=100`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.map((l: { name: string }) => l.name);
}

describe('label descriptions', () => {
  it('refuses a project label description over 512 KB and stores nothing', async () => {
    const name = unique('big');
    const res = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#FF0000', description: LABEL_TOO_BIG } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: [LABEL_MESSAGE] } });
    expect(await labelTitles(`/projects/${project.id}/labels`)).not.toContain(name);
  });

  it('counts bytes, not characters: 200,000 three-byte characters are over the cap', async () => {
    const name = unique('utf');
    const res = await api(`/groups/${group.id}/labels`, { token: owner.token, body: { name, color: '#FF0000', description: '€'.repeat(200_000) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: ['is too long (586 KB). The maximum size is 512 KB.'] } });
    expect(await labelTitles(`/groups/${group.id}/labels`)).not.toContain(name);
  });

  it('accepts a description of exactly 512 KB', async () => {
    const res = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('max'), color: '#FF0000', description: 'y'.repeat(512 * 1024) } });
    expect(res.status).toBe(201);
    expect(res.body.description).toHaveLength(512 * 1024);
  });

  it('refuses an update that makes the description too long and keeps the old one', async () => {
    const created = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('upd'), color: '#FF0000', description: 'small' } });
    expect(created.status).toBe(201);
    const res = await api(`/projects/${project.id}/labels/${created.body.id}`, { method: 'PUT', token: owner.token, body: { description: LABEL_TOO_BIG } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: [LABEL_MESSAGE] } });
    const back = await api(`/projects/${project.id}/labels/${created.body.id}`, { token: owner.token });
    expect(back.body.description).toBe('small');
  });
});

describe('milestone text', () => {
  it('refuses a title over 255 characters and stores nothing', async () => {
    const title = `${unique('m')}${'t'.repeat(255)}`;
    const res = await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Failed to create milestone {:title=>["is too long (maximum is 255 characters)"]}' });
    const list = await api(`/projects/${project.id}/milestones?per_page=100`, { token: owner.token });
    expect(list.body.map((m: { title: string }) => m.title)).not.toContain(title);
  });

  it('refuses a description over 1,000,000 characters on create and on update', async () => {
    const title = unique('md');
    const res = await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title, description: 'd'.repeat(1_000_001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Failed to create milestone {:description=>["is too long (maximum is 1000000 characters)"]}' });
    const list = await api(`/groups/${group.id}/milestones?per_page=100`, { token: owner.token });
    expect(list.body.map((m: { title: string }) => m.title)).not.toContain(title);

    const created = await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title, description: 'short' } });
    expect(created.status).toBe(201);
    const upd = await api(`/groups/${group.id}/milestones/${created.body.id}`, { method: 'PUT', token: owner.token, body: { description: 'd'.repeat(1_000_001) } });
    expect(upd.status).toBe(400);
    expect(upd.body).toEqual({ message: 'Failed to update milestone {:description=>["is too long (maximum is 1000000 characters)"]}' });
    expect((await api(`/groups/${group.id}/milestones/${created.body.id}`, { token: owner.token })).body.description).toBe('short');
  });
});

describe('epic descriptions', () => {
  it('refuses a description over 1,048,576 characters and stores nothing', async () => {
    const title = unique('epic');
    const res = await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title, description: 'e'.repeat(1_048_577) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { description: ['is too long (maximum is 1048576 characters)'] } });
    const list = await api(`/groups/${group.id}/epics?search=${title}`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });
});
