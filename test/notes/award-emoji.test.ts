/** Award emoji on issues and issue notes (GitLab lib/api/award_emoji.rb), upvotes/downvotes and my_reaction_emoji. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let fan: TestUser;
let other: TestUser;
let project: { id: number };

beforeAll(async () => {
  [owner, fan, other] = await Promise.all([createUser(), createUser(), createUser()]);
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'public' } })).body;
});

const newIssue = async () => (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('i') } })).body as { id: number; iid: number };
const awards = (iid: number, suffix = '') => `/projects/${project.id}/issues/${iid}/award_emoji${suffix}`;

describe('award emoji on issues', () => {
  it('awards, lists, reads, counts votes and filters by my_reaction_emoji', async () => {
    const issue = await newIssue();
    const up = await api(awards(issue.iid), { token: fan.token, body: { name: 'thumbsup' } });
    expect(up.status).toBe(201);
    expect(Object.keys(up.body)).toEqual(['id', 'name', 'user', 'created_at', 'updated_at', 'awardable_id', 'awardable_type', 'url']);
    expect(up.body).toMatchObject({ name: 'thumbsup', user: { id: fan.id }, awardable_id: issue.id, awardable_type: 'Issue', url: null });
    await api(awards(issue.iid), { token: other.token, body: { name: 'thumbsdown' } });
    await api(awards(issue.iid), { token: other.token, body: { name: 'tada' } });
    const list = await api(awards(issue.iid), { token: owner.token });
    expect(list.body.map((a: { name: string }) => a.name)).toEqual(['thumbsup', 'thumbsdown', 'tada']);
    expect(list.headers.get('x-total')).toBe('3');
    expect((await api(awards(issue.iid, `/${up.body.id}`), { token: other.token })).body.name).toBe('thumbsup');
    const read = await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token });
    expect(read.body).toMatchObject({ upvotes: 1, downvotes: 1 });
    const mine = await api(`/projects/${project.id}/issues?my_reaction_emoji=thumbsup`, { token: fan.token });
    expect(mine.body.map((i: { id: number }) => i.id)).toEqual([issue.id]);
    const popular = await api(`/projects/${project.id}/issues?order_by=popularity`, { token: owner.token });
    expect(popular.body[0].id).toBe(issue.id);
  });

  it('refuses a duplicate, an unknown name, anonymous callers; deletes only one’s own (admins any)', async () => {
    const issue = await newIssue();
    const a = await api(awards(issue.iid), { token: fan.token, body: { name: 'thumbsup' } });
    const dup = await api(awards(issue.iid), { token: fan.token, body: { name: 'thumbsup' } });
    expect(dup.status).toBe(404);
    expect(dup.body).toEqual({ message: '404 Award Emoji {:name=>["has already been taken"]} Not Found' });
    const bad = await api(awards(issue.iid), { token: fan.token, body: { name: 'not-an-emoji-xyz' } });
    expect(bad.body).toEqual({ message: '404 Award Emoji {:name=>["is not a valid emoji name"]} Not Found' });
    expect((await api(awards(issue.iid), { body: { name: 'tada' } })).status).toBe(401);
    expect((await api(awards(issue.iid))).status).toBe(401);
    const notYours = await api(awards(issue.iid, `/${a.body.id}`), { method: 'DELETE', token: other.token });
    expect(notYours.status).toBe(401);
    expect((await api(awards(issue.iid, `/${a.body.id}`), { method: 'DELETE', token: fan.token })).status).toBe(204);
    expect((await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.upvotes).toBe(0);
    expect((await api(awards(issue.iid, `/${a.body.id}`), { token: fan.token })).body).toEqual({ message: '404 Not found' });
    const b = await api(awards(issue.iid), { token: fan.token, body: { name: 'rocket' } });
    expect((await api(awards(issue.iid, `/${b.body.id}`), { method: 'DELETE', token: rootToken })).status).toBe(204);
  });
});

describe('award emoji on issue notes', () => {
  it('awards a note and lists it', async () => {
    const issue = await newIssue();
    const note = (await api(`/projects/${project.id}/issues/${issue.iid}/notes`, { token: owner.token, body: { body: 'hi' } })).body;
    const url = `/projects/${project.id}/issues/${issue.iid}/notes/${note.id}/award_emoji`;
    const res = await api(url, { token: fan.token, body: { name: 'heart' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'heart', awardable_id: note.id, awardable_type: 'Note' });
    expect((await api(url, { token: owner.token })).body.map((a: { name: string }) => a.name)).toEqual(['heart']);
    expect((await api(`/projects/${project.id}/issues/${issue.iid}/notes/999999/award_emoji`, { token: owner.token })).body).toEqual({ message: '404 Not found' });
    // A note award is not an issue vote.
    expect((await api(awards(issue.iid), { token: owner.token })).body).toEqual([]);
  });
});

describe('award emoji on locked and archived issues', () => {
  it('refuses non-members on a locked discussion and everyone on an archived project (404 Award Emoji Not Found), nothing written', async () => {
    const issue = await newIssue();
    await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { discussion_locked: true } });
    expect(await api(awards(issue.iid), { token: fan.token, body: { name: 'thumbsup' } })).toMatchObject({ status: 404, body: { message: '404 Award Emoji Not Found' } });
    expect((await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.upvotes).toBe(0);
    // The owner is a member: still allowed.
    expect((await api(awards(issue.iid), { token: owner.token, body: { name: 'thumbsup' } })).status).toBe(201);
    const archived = (await api('/projects', { token: owner.token, body: { name: unique('arch'), visibility: 'public' } })).body;
    const i2 = (await api(`/projects/${archived.id}/issues`, { token: owner.token, body: { title: 'Old' } })).body;
    expect((await api(`/projects/${archived.id}`, { method: 'PUT', token: owner.token, body: { archived: true } })).status).toBe(200);
    expect(await api(`/projects/${archived.id}/issues/${i2.iid}/award_emoji`, { token: owner.token, body: { name: 'tada' } })).toMatchObject({ status: 404, body: { message: '404 Award Emoji Not Found' } });
    expect((await api(`/projects/${archived.id}/issues/${i2.iid}/award_emoji`, { token: owner.token })).body).toEqual([]);
  });
});

describe('award emoji on epics', () => {
  it('awards an epic, counts its votes in the epic entity, and removes the award', async () => {
    const path = unique('g');
    const group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
    const epic = (await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Voted' } })).body;
    const url = `/groups/${group.id}/epics/${epic.iid}/award_emoji`;
    const res = await api(url, { token: fan.token, body: { name: 'thumbsup' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'thumbsup', awardable_id: epic.id, awardable_type: 'Epic' });
    expect((await api(`/groups/${group.id}/epics/${epic.iid}`, { token: owner.token })).body).toMatchObject({ upvotes: 1, downvotes: 0 });
    expect((await api(url, { token: other.token })).body.map((a: { name: string }) => a.name)).toEqual(['thumbsup']);
    expect((await api(`${url}/${res.body.id}`, { method: 'DELETE', token: fan.token })).status).toBe(204);
    expect((await api(`/groups/${group.id}/epics/${epic.iid}`, { token: owner.token })).body.upvotes).toBe(0);
    expect((await api(`/groups/${group.id}/epics/99999/award_emoji`, { token: owner.token })).body).toEqual({ message: '404 Epic Not Found' });
  });
});
