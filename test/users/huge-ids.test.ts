/** Found by the fuzzer (test/fuzz): an all-digit id beyond JS's safe integers failed the query with a 500. */
import { describe, expect, it } from 'vitest';
import { api, createUser } from '../support';

const HUGE = '1'.repeat(400);

describe('user and key ids beyond the safe integers', () => {
  it('name no user and no key (404, not 500)', async () => {
    const user = await createUser();
    expect(await api(`/users/${HUGE}/keys`, { token: user.token })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api(`/users/${HUGE}/status`, { token: user.token })).toMatchObject({ status: 404 });
    expect(await api(`/user/keys/${HUGE}`, { token: user.token })).toMatchObject({ status: 404, body: { message: '404 Key Not Found' } });
  });
});
