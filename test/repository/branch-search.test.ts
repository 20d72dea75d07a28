/** The branches list's `search` (BranchesFinder): `^prefix`, `suffix$`, substrings, any length. */
import { expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

it('searches branches by prefix, suffix and substring, case-insensitively, whatever the length of the term', async () => {
  const u = await createUser();
  const p = await api('/projects', { token: u.token, body: { name: unique('bsearch') } });
  expect(p.status).toBe(201);
  const P = `/projects/${p.body.id}/repository`;
  expect((await api(`${P}/commits`, { token: u.token, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'a', content: 'a' }] } })).status).toBe(201);
  const long = `feature-${'x'.repeat(60)}`;
  for (const branch of ['Feature-One', 'hotfix-feature', '100%_done', long]) expect((await api(`${P}/branches`, { token: u.token, body: { branch, ref: 'main' } })).status).toBe(201);
  const names = async (search: string) => {
    const res = await api(`${P}/branches?search=${encodeURIComponent(search)}`, { token: u.token });
    expect(res.status, search).toBe(200);
    return res.body.map((b: { name: string }) => b.name);
  };
  expect(await names('^feature')).toEqual(['Feature-One', long]);
  expect(await names('feature$')).toEqual(['hotfix-feature']);
  expect(await names('FEATURE')).toEqual(['Feature-One', long, 'hotfix-feature']);
  // LIKE's wildcards are plain characters in a search.
  expect(await names('%_')).toEqual(['100%_done']);
  // Longer than D1's 50-byte LIKE pattern limit: an ordinary search, not a 500.
  expect(await names(long)).toEqual([long]);
  expect(await names(`^${long}`)).toEqual([long]);
  expect(await names('^')).toHaveLength(5);
});
