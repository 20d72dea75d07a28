/** Found by the fuzzer (test/fuzz): a label id beyond JS's safe integers failed the lookup with a 500. */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

describe('a label named by an id beyond the safe integers', () => {
  it('is looked up by title, as find_label does when no id matches', async () => {
    const owner = await createUser();
    const project = (await api('/projects', { token: owner.token, body: { name: unique('p') } })).body;
    const huge = '1'.repeat(400);
    expect(await api(`/projects/${project.id}/labels/${huge}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Label Not Found' } });
    // A title of digits is still found by its title when it names no id.
    const digits = '9'.repeat(40);
    const titled = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: digits, color: '#ff0000' } });
    expect(titled.status).toBe(201);
    expect(await api(`/projects/${project.id}/labels/${digits}`, { token: owner.token })).toMatchObject({ status: 200, body: { id: titled.body.id, name: digits } });
  });
});
