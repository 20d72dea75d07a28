/**
 * List filters that take several values are bounded like every list parameter (Grape `limit:` words):
 * `assignee_username` on issue and merge request lists (and under `not[...]`), milestone `iids`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let pid: number;

beforeAll(async () => {
  owner = await createUser();
  const p = await api('/projects', { token: owner.token, body: { name: unique('p') } });
  expect(p.status).toBe(201);
  pid = p.body.id;
});

const repeated = (key: string, n: number) => Array.from({ length: n }, (_, i) => `${key}=u${i}`).join('&');

describe('assignee_username', () => {
  it.each([['issues'], ['merge_requests']])('refuses more than 100 names on /projects/:id/%s', async (list) => {
    const res = await api(`/projects/${pid}/${list}?${repeated('assignee_username[]', 101)}`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'assignee_username must contain at most 100 items' });
  });

  it('refuses the same under not[...]', async () => {
    const res = await api(`/projects/${pid}/issues?${repeated('not[assignee_username][]', 101)}`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'not[assignee_username] must contain at most 100 items' });
  });

  it('takes 100 names', async () => {
    const res = await api(`/projects/${pid}/issues?${repeated('assignee_username[]', 100)}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe('milestone iids', () => {
  it('refuses more than 1,000 iids and takes 1,000', async () => {
    const iids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
    const res = await api(`/projects/${pid}/milestones?iids=${iids(1001)}`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'iids must contain at most 1000 items' });
    const ok = await api(`/projects/${pid}/milestones?iids=${iids(1000)}`, { token: owner.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([]);
  });
});

describe('label filters', () => {
  const labels = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`).join(',');
  it.each([['issues'], ['merge_requests']])('take 1,000 names on /projects/:id/%s and refuse 1,001', async (list) => {
    const ok = await api(`/projects/${pid}/${list}?labels=${labels(1000)}`, { token: owner.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([]);
    const res = await api(`/projects/${pid}/${list}?not[labels]=${labels(1001)}`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'not[labels] must contain at most 1000 items' });
  });
});
