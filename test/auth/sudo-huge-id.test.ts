/** Found by the fuzzer (test/fuzz): a Sudo id beyond JS's safe integers failed the user lookup with a 500. */
import { describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';

describe('Sudo with an id beyond the safe integers', () => {
  it('names no user: 404 like any unknown id', async () => {
    const id = '9'.repeat(400);
    expect(await api('/user', { token: rootToken, headers: { Sudo: id } })).toMatchObject({ status: 404, body: { message: `404 User with ID or username '${id}' Not Found` } });
  });
});
