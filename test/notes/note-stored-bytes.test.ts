/**
 * Texts capped in characters are also held to what one D1 row can store (STORED_TEXT_MAX_BYTES,
 * 1,900,000 bytes): 700,000 "€" are under the million-character caps but take 2.1 MB. Refused in
 * BytesizeValidator's words, nothing stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let pid: number;
let iid: number;

const EUROS = '€'.repeat(700_000);
const MESSAGE = 'is too long (2 MB). The maximum size is 1.81 MB.';

beforeAll(async () => {
  owner = await createUser();
  const p = await api('/projects', { token: owner.token, body: { name: unique('p') } });
  expect(p.status).toBe(201);
  pid = p.body.id;
  const issue = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: 'notes here' } });
  expect(issue.status).toBe(201);
  iid = issue.body.iid;
});

describe('note bodies', () => {
  it('refuses 2.1 MB of three-byte characters on create and stores no note', async () => {
    const res = await api(`/projects/${pid}/issues/${iid}/notes`, { token: owner.token, body: { body: EUROS } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `400 Bad request - Note {:note=>${JSON.stringify([MESSAGE])}}` });
    expect((await api(`/projects/${pid}/issues/${iid}/notes`, { token: owner.token })).body).toEqual([]);
  });

  it('refuses the same on update and keeps the old body', async () => {
    const note = await api(`/projects/${pid}/issues/${iid}/notes`, { token: owner.token, body: { body: 'short' } });
    expect(note.status).toBe(201);
    const res = await api(`/projects/${pid}/issues/${iid}/notes/${note.body.id}`, { method: 'PUT', token: owner.token, body: { body: EUROS } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `400 Bad request - Note {:note=>${JSON.stringify([MESSAGE])}}` });
    expect((await api(`/projects/${pid}/issues/${iid}/notes/${note.body.id}`, { token: owner.token })).body.body).toBe('short');
  });
});

describe('milestone descriptions', () => {
  it('refuses 2.1 MB of three-byte characters', async () => {
    const title = unique('m');
    const res = await api(`/projects/${pid}/milestones`, { token: owner.token, body: { title, description: EUROS } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `Failed to create milestone {:description=>${JSON.stringify([MESSAGE])}}` });
    expect((await api(`/projects/${pid}/milestones?title=${title}`, { token: owner.token })).body).toEqual([]);
  });
});
