/** Approval rule names are `string(255)` columns: a rename past 255 is a model-validation 400 (create: approval-rule-name-limit.test.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let pid: number;

beforeAll(async () => {
  owner = await createUser();
  const p = await api('/projects', { token: owner.token, body: { name: unique('apr') } });
  expect(p.status).toBe(201);
  pid = p.body.id;
});

describe('project approval rule names', () => {
  it('refuses a rename over 255 characters and keeps the old name', async () => {
    const created = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 's'.repeat(255), approvals_required: 1 } });
    expect(created.status).toBe(201);
    const res = await api(`/projects/${pid}/approval_rules/${created.body.id}`, { method: 'PUT', token: owner.token, body: { name: 't'.repeat(256), approvals_required: 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
    expect((await api(`/projects/${pid}/approval_rules/${created.body.id}`, { token: owner.token })).body.name).toBe('s'.repeat(255));
  });
});
