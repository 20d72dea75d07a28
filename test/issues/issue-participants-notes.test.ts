/**
 * Participants gathered from notes (Issue#visible_participants): comment authors after the issue
 * author and before assignees, users mentioned in comments at the end; system notes add nobody,
 * internal notes count only for callers who may read them, and nobody who cannot read the issue
 * appears.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let assignee: TestUser;
let mentioned: TestUser;
let outsider: TestUser;
let project: { id: number };

beforeAll(async () => {
  [owner, reporter, guest, assignee, mentioned, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser(), createUser()]);
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
  for (const [u, level] of [[reporter, 20], [guest, 10], [assignee, 30], [mentioned, 10]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
});

describe('GET /projects/:id/issues/:issue_iid/participants with notes', () => {
  it('orders author, note authors, assignees, then users mentioned in notes, and hides internal-note authors from guests', async () => {
    const issue = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('t'), assignee_ids: [assignee.id] } });
    const base = `/projects/${project.id}/issues/${issue.body.iid}`;
    expect((await api(`${base}/notes`, { token: guest.token, body: { body: `ping @${mentioned.username} and @${outsider.username}` } })).status).toBe(201);
    expect((await api(`${base}/notes`, { token: reporter.token, body: { body: 'internal remark', internal: true } })).status).toBe(201);
    // A system note (label change) adds nobody.
    expect((await api(base, { token: owner.token, method: 'PUT', body: { labels: 'x' } })).status).toBe(200);

    const asOwner = await api(`${base}/participants`, { token: owner.token });
    expect(asOwner.status).toBe(200);
    expect(asOwner.body.map((u: { id: number }) => u.id)).toEqual([owner.id, guest.id, reporter.id, assignee.id, mentioned.id]);

    const asGuest = await api(`${base}/participants`, { token: guest.token });
    expect(asGuest.body.map((u: { id: number }) => u.id)).toEqual([owner.id, guest.id, assignee.id, mentioned.id]);
  });
});
