/** Approval rule names are `string(255)` columns: longer names are refused before anything is stored. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let pid: number;

beforeAll(async () => {
  owner = await createUser();
  pid = (await api('/projects', { token: owner.token, body: { name: unique('ar') } })).body.id;
});

describe('POST /projects/:id/approval_rules', () => {
  it('refuses a name over 255 characters and stores no rule', async () => {
    const res = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'r'.repeat(256), approvals_required: 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
    const rules = await api(`/projects/${pid}/approval_rules`, { token: owner.token });
    expect(rules.body.filter((r: { name: string }) => r.name.length > 255)).toEqual([]);
  });

  it('refuses more than 1,000 user_ids in one request', async () => {
    const res = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: unique('r'), approvals_required: 1, user_ids: Array.from({ length: 1001 }, (_, i) => i + 1) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'user_ids must contain at most 1000 items' });
    const rules = await api(`/projects/${pid}/approval_rules`, { token: owner.token });
    expect(rules.body).toEqual([]);
  });
});
