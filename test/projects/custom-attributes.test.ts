/**
 * Custom attributes of projects and groups (GitLab lib/api/custom_attributes_endpoints.rb) and the
 * `custom_attributes[key]=value` filter of GET /projects and GET /groups (CustomAttributesFilter).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

async function world() {
  const u = await createUser();
  const path = unique('ca');
  const group = (await api('/groups', { token: u.token, body: { name: path, path } })).body;
  const project = (await api('/projects', { token: u.token, body: { path: 'p', namespace_id: group.id } })).body;
  return { u, group, project, path };
}

for (const kind of ['projects', 'groups'] as const) {
  describe(`/${kind}/:id/custom_attributes`, () => {
    it('sets, reads (by id and by path), lists in creation order, updates and deletes attributes', async () => {
      const w = await world();
      const id = kind === 'projects' ? w.project.id : w.group.id;
      const byPath = encodeURIComponent(kind === 'projects' ? `${w.path}/p` : w.path);
      const base = `/${kind}/${id}/custom_attributes`;
      expect(await api(`${base}/zeta`, { method: 'PUT', token: rootToken, body: { value: 'one' } }).then((r) => [r.status, r.body])).toEqual([200, { key: 'zeta', value: 'one' }]);
      expect((await api(`${base}/alpha`, { method: 'PUT', token: rootToken, body: { value: 'two' } })).status).toBe(200);
      expect((await api(`${base}/zeta`, { method: 'PUT', token: rootToken, body: { value: 'three' } })).body).toEqual({ key: 'zeta', value: 'three' });
      expect((await api(base, { token: rootToken })).body).toEqual([{ key: 'zeta', value: 'three' }, { key: 'alpha', value: 'two' }]);
      expect((await api(`/${kind}/${byPath}/custom_attributes/alpha`, { token: rootToken })).body).toEqual({ key: 'alpha', value: 'two' });
      expect((await api(`${base}/alpha`, { method: 'DELETE', token: rootToken })).status).toBe(204);
      expect(await api(`${base}/alpha`, { token: rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not found' }]);
      expect(await api(`${base}/alpha`, { method: 'DELETE', token: rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not found' }]);
      expect(await api(`${base}/k`, { method: 'PUT', token: rootToken, body: { value: ' ' } }).then((r) => [r.status, r.body])).toEqual([400, { message: { value: ["can't be blank"] } }]);
      expect(await api(`${base}/k`, { method: 'PUT', token: rootToken, body: {} }).then((r) => [r.status, r.body])).toEqual([400, { error: 'value is missing' }]);
    });

    it('is for administrators only (even the owner gets 403), and a missing one is a bare 404', async () => {
      const w = await world();
      const id = kind === 'projects' ? w.project.id : w.group.id;
      expect((await api(`/${kind}/${id}/custom_attributes`)).status).toBe(401);
      expect(await api(`/${kind}/${id}/custom_attributes`, { token: w.u.token }).then((r) => [r.status, r.body])).toEqual([403, { message: '403 Forbidden' }]);
      expect((await api(`/${kind}/${id}/custom_attributes/k`, { method: 'PUT', token: w.u.token, body: { value: 'v' } })).status).toBe(403);
      expect(await api(`/${kind}/999999999/custom_attributes`, { token: rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not Found' }]);
      expect(await api(`/${kind}/999999999/custom_attributes/k`, { method: 'PUT', token: rootToken, body: { value: 'v' } }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not Found' }]);
    });

    it(`filters GET /${kind} by custom_attributes[key]=value for administrators (every pair must match)`, async () => {
      const [a, b] = await Promise.all([world(), world()]);
      const key = unique('k');
      const idOf = (w: Awaited<ReturnType<typeof world>>) => (kind === 'projects' ? w.project.id : w.group.id);
      await api(`/${kind}/${idOf(a)}/custom_attributes/${key}`, { method: 'PUT', token: rootToken, body: { value: 'x' } });
      await api(`/${kind}/${idOf(a)}/custom_attributes/${key}2`, { method: 'PUT', token: rootToken, body: { value: 'y' } });
      await api(`/${kind}/${idOf(b)}/custom_attributes/${key}`, { method: 'PUT', token: rootToken, body: { value: 'x' } });
      const ids = async (q: string, token = rootToken) => (await api(`/${kind}?${q}&per_page=100`, { token })).body.map((x: { id: number }) => x.id).sort();
      expect(await ids(`custom_attributes[${key}]=x`)).toEqual([idOf(a), idOf(b)].sort());
      expect(await ids(`custom_attributes[${key}]=x&custom_attributes[${key}2]=y`)).toEqual([idOf(a)]);
      expect(await ids(`custom_attributes[${key}]=nope`)).toEqual([]);
      // Non-administrators: the parameter is ignored, as GitLab's finder does without read_custom_attribute.
      expect(await ids(`custom_attributes[${key}]=nope`, a.u.token)).toEqual(await ids('x=1', a.u.token));
    });
  });
}
