/**
 * Webhook URL variables and custom headers (lib/api/hooks/url_variables.rb, custom_headers.rb,
 * web_hooks_helpers.rb, WebHooks::Hook) on both runtimes: only keys are ever shown, values are sealed
 * at rest, the routes answer with GitLab's statuses and words, and a changed URL drops the secrets.
 */
import { describe, expect, it } from 'vitest';
import { storageSql } from '#harness';
import { api, createUser, unique } from '../support';

const SECRET = 'var-secret-7f3a';
const HEADER_SECRET = 'header-secret-91c2';

async function projectHook(body: Record<string, unknown> = {}) {
  const u = await createUser();
  const p = (await api('/projects', { token: u.token, body: { name: unique('hv') } })).body;
  const hook = await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: 'https://example.com/hook', push_events: false, ...body } });
  return { u, p, hook, base: `/projects/${p.id}/hooks/${hook.body.id}` };
}

const read = async (token: string, base: string) => (await api(base, { token })).body;

describe('hook URL variables and custom headers on create and update', () => {
  it('takes them on create (JSON), shows keys only, in the order given, and stores them sealed', async () => {
    const { u, p, hook, base } = await projectHook({
      url: 'https://example.com/{path}/x',
      url_variables: [
        { key: 'path', value: SECRET },
        { key: 'other', value: 'second-secret' },
      ],
      custom_headers: [
        { key: 'X-Second', value: HEADER_SECRET },
        { key: 'Authorization', value: 'Bearer third-secret' },
      ],
    });
    expect(hook.status).toBe(201);
    expect(hook.body.url).toBe('https://example.com/{path}/x');
    expect(hook.body.url_variables).toEqual([{ key: 'path' }, { key: 'other' }]);
    expect(hook.body.custom_headers).toEqual([{ key: 'X-Second' }, { key: 'Authorization' }]);
    const list = await api(`/projects/${p.id}/hooks`, { token: u.token });
    const one = await api(base, { token: u.token });
    for (const res of [hook, list, one]) for (const secret of [SECRET, 'second-secret', HEADER_SECRET, 'third-secret']) expect(res.text).not.toContain(secret);
    expect(one.body).toEqual(hook.body);
    const [row] = (await storageSql(`SELECT url_variables, custom_headers FROM web_hooks WHERE id = ${hook.body.id}`)) as { url_variables: string; custom_headers: string }[];
    expect(row.url_variables).not.toContain(SECRET);
    expect(row.custom_headers).not.toContain(HEADER_SECRET);
    expect(JSON.parse(row.url_variables).keys).toEqual(['path', 'other']);
  });

  it('takes the form encoding url_variables[][key]= / custom_headers[][key]=', async () => {
    const u = await createUser();
    const p = (await api('/projects', { token: u.token, body: { name: unique('hv') } })).body;
    const res = await api(`/projects/${p.id}/hooks`, {
      token: u.token,
      form: { url: 'https://example.com/{tok}', 'url_variables[][key]': 'tok', 'url_variables[][value]': SECRET, 'custom_headers[][key]': 'X-Form', 'custom_headers[][value]': HEADER_SECRET },
    });
    expect([res.status, res.body.url_variables, res.body.custom_headers]).toEqual([201, [{ key: 'tok' }], [{ key: 'X-Form' }]]);
    expect(res.text).not.toContain(SECRET);
  });

  it('refuses what WebHooks::Hook refuses, with save_hook’s answers, and saves nothing', async () => {
    const u = await createUser();
    const p = (await api('/projects', { token: u.token, body: { name: unique('hv') } })).body;
    const post = (body: Record<string, unknown>) => api(`/projects/${p.id}/hooks`, { token: u.token, body: { push_events: false, ...body } });
    // A placeholder without its variable is a URL error.
    expect((await post({ url: 'https://example.com/{missing}' })).body).toEqual({ message: 'Invalid url given' });
    // The variables' JSON schema: key pattern, value 1..100 characters, at most 20.
    const schema = { message: { url_variables: ['must be a valid json schema'] } };
    expect(await post({ url: 'https://example.com/x', url_variables: [{ key: 'a b', value: 'v' }] })).toMatchObject({ status: 422, body: schema });
    expect((await post({ url: 'https://example.com/x', url_variables: [{ key: 'a', value: 'v'.repeat(101) }] })).body).toEqual(schema);
    const many = Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect((await post({ url: 'https://example.com/x', url_variables: many })).body).toEqual(schema);
    // The interpolated URL goes through the outbound guard (the template alone is not checked).
    expect(await post({ url: 'http://{host}/x', url_variables: [{ key: 'host', value: 'localhost' }] })).toMatchObject({
      status: 422,
      body: { message: { interpolated_url: ['is blocked: Requests to localhost are not allowed'] } },
    });
    // Custom header names: letters first, no consecutive separators; values 1..2048.
    for (const custom_headers of [[{ key: 'X Bad', value: 'v' }], [{ key: '1X', value: 'v' }], [{ key: 'X--Y', value: 'v' }], [{ key: 'X-Ok', value: '' }]]) {
      expect(await post({ url: 'https://example.com/x', custom_headers })).toMatchObject({ status: 422, body: { message: 'Custom headers validation failed' } });
    }
    expect((await post({ url: 'https://example.com/x', url_variables: [{ key: 'a' }] })).body).toEqual({ error: 'url_variables[0][value] is missing' });
    expect((await api(`/projects/${p.id}/hooks`, { token: u.token })).body).toEqual([]);
  });

  it('merges given variables and headers into the hook’s on update', async () => {
    const { u, base } = await projectHook({ url_variables: [{ key: 'a', value: '1' }], custom_headers: [{ key: 'X-A', value: '1' }] });
    const res = await api(base, { method: 'PUT', token: u.token, body: { url_variables: [{ key: 'b', value: '2' }], custom_headers: [{ key: 'X-B', value: '2' }, { key: 'X-A', value: 'new' }] } });
    expect([res.status, res.body.url_variables, res.body.custom_headers]).toEqual([200, [{ key: 'a' }, { key: 'b' }], [{ key: 'X-A' }, { key: 'X-B' }]]);
  });

  it('drops variables and headers when the URL changes, and keeps the old URL if the new one needs them (reset_url_variables)', async () => {
    const { u, base } = await projectHook({ url: 'https://example.com/{tok}', url_variables: [{ key: 'tok', value: SECRET }], custom_headers: [{ key: 'X-A', value: HEADER_SECRET }], token: 't' });
    // A new host with the same placeholder would send the old secret elsewhere: refused, nothing changes.
    const moved = await api(base, { method: 'PUT', token: u.token, body: { url: 'https://example.org/{tok}' } });
    expect([moved.status, moved.body]).toEqual([422, { message: 'Invalid url given' }]);
    expect(await read(u.token, base)).toMatchObject({ url: 'https://example.com/{tok}', url_variables: [{ key: 'tok' }], custom_headers: [{ key: 'X-A' }] });
    const plain = await api(base, { method: 'PUT', token: u.token, body: { url: 'https://example.org/plain' } });
    expect([plain.status, plain.body.url, plain.body.url_variables, plain.body.custom_headers]).toEqual([200, 'https://example.org/plain', [], []]);
    const [row] = (await storageSql(`SELECT url_variables, custom_headers, encrypted_token FROM web_hooks WHERE id = ${plain.body.id}`)) as Record<string, string | null>[];
    expect(row).toEqual({ url_variables: null, custom_headers: null, encrypted_token: null });
  });

  it('keeps variables and headers when the new URL template still interpolates to the same address', async () => {
    const { u, base } = await projectHook({ url: 'https://example.com/{a}', url_variables: [{ key: 'a', value: 'same' }], custom_headers: [{ key: 'X-A', value: '1' }] });
    const res = await api(base, { method: 'PUT', token: u.token, body: { url: 'https://example.com/same' } });
    expect([res.status, res.body.url, res.body.url_variables, res.body.custom_headers]).toEqual([200, 'https://example.com/same', [{ key: 'a' }], [{ key: 'X-A' }]]);
  });
});

describe('PUT/DELETE …/hooks/:hook_id/url_variables/:key', () => {
  it('sets, overwrites and deletes a variable with 204, showing its key only', async () => {
    const { u, base } = await projectHook();
    const put = await api(`${base}/url_variables/first`, { method: 'PUT', token: u.token, body: { value: SECRET } });
    expect([put.status, put.text]).toEqual([204, '']);
    await api(`${base}/url_variables/second`, { method: 'PUT', token: u.token, form: { value: 'two' } });
    // Overwriting keeps the key's place (Hash#merge).
    expect((await api(`${base}/url_variables/first`, { method: 'PUT', token: u.token, body: { value: 'other' } })).status).toBe(204);
    const shown = await api(base, { token: u.token });
    expect(shown.body.url_variables).toEqual([{ key: 'first' }, { key: 'second' }]);
    expect(shown.text).not.toContain(SECRET);
    const del = await api(`${base}/url_variables/first`, { method: 'DELETE', token: u.token });
    expect([del.status, del.text]).toEqual([204, '']);
    expect((await read(u.token, base)).url_variables).toEqual([{ key: 'second' }]);
    const again = await api(`${base}/url_variables/first`, { method: 'DELETE', token: u.token });
    expect([again.status, again.body]).toEqual([404, { message: '404 URL variable Not Found' }]);
  });

  it('keeps every key when several are set at once (compare-and-set, redone on a miss)', async () => {
    const { u, base } = await projectHook();
    const keys = ['c1', 'c2', 'c3', 'c4', 'c5'];
    const answers = await Promise.all(keys.map((k) => api(`${base}/url_variables/${k}`, { method: 'PUT', token: u.token, body: { value: 'v' } })));
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 204));
    expect((await read(u.token, base)).url_variables.map((v: { key: string }) => v.key).sort()).toEqual(keys);
  });

  it('refuses illegal keys and values with 422, a missing value with 400, unknown hooks with 404', async () => {
    const { u, base, p } = await projectHook();
    for (const [key, value] of [['a%20b', 'v'], ['1a', 'v'], ['ok', ''], ['ok', 'x'.repeat(101)]]) {
      const res = await api(`${base}/url_variables/${key}`, { method: 'PUT', token: u.token, body: { value } });
      expect([key, res.status, res.body]).toEqual([key, 422, { message: 'Illegal key or value' }]);
    }
    for (let i = 0; i < 20; i++) expect((await api(`${base}/url_variables/k${i}`, { method: 'PUT', token: u.token, body: { value: 'v' } })).status).toBe(204);
    expect((await api(`${base}/url_variables/k20`, { method: 'PUT', token: u.token, body: { value: 'v' } })).body).toEqual({ message: 'Illegal key or value' });
    expect((await api(`${base}/url_variables/ok`, { method: 'PUT', token: u.token, body: {} })).body).toEqual({ error: 'value is missing' });
    const gone = await api(`/projects/${p.id}/hooks/999999999/url_variables/ok`, { method: 'PUT', token: u.token, body: { value: 'v' } });
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Not found' }]);
    expect((await read(u.token, base)).url_variables).toHaveLength(20);
  });

  it('will not change or delete a variable the URL uses (the interpolated URL would change)', async () => {
    const { u, base } = await projectHook({ url: 'https://example.com/{tok}', url_variables: [{ key: 'tok', value: SECRET }] });
    expect((await api(`${base}/url_variables/tok`, { method: 'PUT', token: u.token, body: { value: 'elsewhere' } })).body).toEqual({ message: 'Illegal key or value' });
    // The same value changes nothing, so it is accepted.
    expect((await api(`${base}/url_variables/tok`, { method: 'PUT', token: u.token, body: { value: SECRET } })).status).toBe(204);
    const del = await api(`${base}/url_variables/tok`, { method: 'DELETE', token: u.token });
    expect([del.status, del.body]).toEqual([422, { message: 'Could not unset variable' }]);
    expect((await read(u.token, base)).url_variables).toEqual([{ key: 'tok' }]);
  });

  it('is for maintainers', async () => {
    const { u, p, base } = await projectHook();
    const dev = await createUser();
    await api(`/projects/${p.id}/members`, { token: u.token, body: { user_id: dev.id, access_level: 30 } });
    expect((await api(`${base}/url_variables/a`, { method: 'PUT', token: dev.token, body: { value: 'v' } })).status).toBe(403);
    expect((await read(u.token, base)).url_variables).toEqual([]);
  });
});

describe('PUT/DELETE …/hooks/:hook_id/custom_headers/:key', () => {
  it('sets, overwrites and deletes a header with 204, showing its name only', async () => {
    const { u, base } = await projectHook();
    expect((await api(`${base}/custom_headers/X-One`, { method: 'PUT', token: u.token, body: { value: HEADER_SECRET } })).status).toBe(204);
    expect((await api(`${base}/custom_headers/X-Two`, { method: 'PUT', token: u.token, body: { value: '2' } })).status).toBe(204);
    expect((await api(`${base}/custom_headers/X-One`, { method: 'PUT', token: u.token, body: { value: '1' } })).status).toBe(204);
    const shown = await api(base, { token: u.token });
    expect(shown.body.custom_headers).toEqual([{ key: 'X-One' }, { key: 'X-Two' }]);
    expect(shown.text).not.toContain(HEADER_SECRET);
    expect((await api(`${base}/custom_headers/X-One`, { method: 'DELETE', token: u.token })).status).toBe(204);
    expect((await read(u.token, base)).custom_headers).toEqual([{ key: 'X-Two' }]);
    const again = await api(`${base}/custom_headers/X-One`, { method: 'DELETE', token: u.token });
    expect([again.status, again.body]).toEqual([404, { message: '404 Custom header Not Found' }]);
  });

  it('refuses bad names and values with 422 and names over the limit with 400', async () => {
    const { u, base } = await projectHook();
    for (const [key, value] of [['X%20Y', 'v'], ['X..Y', 'v'], ['X-Y', ''], ['X-Y', 'v'.repeat(2049)]]) {
      expect((await api(`${base}/custom_headers/${key}`, { method: 'PUT', token: u.token, body: { value } })).body).toEqual({ message: 'Illegal key or value' });
    }
    const long = await api(`${base}/custom_headers/X${'a'.repeat(255)}`, { method: 'PUT', token: u.token, body: { value: 'v' } });
    expect([long.status, long.body]).toEqual([400, { error: 'key must be less than 255 characters' }]);
    expect((await read(u.token, base)).custom_headers).toEqual([]);
  });
});

describe('group hooks', () => {
  it('have the same routes, for owners', async () => {
    const u = await createUser();
    const path = unique('ghv');
    const g = (await api('/groups', { token: u.token, body: { name: path, path } })).body;
    const hook = (await api(`/groups/${g.id}/hooks`, { token: u.token, body: { url: 'https://example.com/{v}', url_variables: [{ key: 'v', value: SECRET }] } })).body;
    const base = `/groups/${g.id}/hooks/${hook.id}`;
    expect(hook.url_variables).toEqual([{ key: 'v' }]);
    expect((await api(`${base}/custom_headers/X-G`, { method: 'PUT', token: u.token, body: { value: HEADER_SECRET } })).status).toBe(204);
    expect((await api(`${base}/url_variables/extra`, { method: 'PUT', token: u.token, body: { value: 'e' } })).status).toBe(204);
    const shown = await api(base, { token: u.token });
    expect([shown.body.url_variables, shown.body.custom_headers]).toEqual([[{ key: 'v' }, { key: 'extra' }], [{ key: 'X-G' }]]);
    expect(shown.text).not.toContain(HEADER_SECRET);
    expect((await api(`${base}/url_variables/extra`, { method: 'DELETE', token: u.token })).status).toBe(204);
    expect((await api(`${base}/custom_headers/X-G`, { method: 'DELETE', token: u.token })).status).toBe(204);
    expect((await api(`${base}/custom_headers/X-G`, { method: 'DELETE', token: u.token })).body).toEqual({ message: '404 Custom header Not Found' });
    const maintainer = await createUser();
    await api(`/groups/${g.id}/members`, { token: u.token, body: { user_id: maintainer.id, access_level: 40 } });
    expect((await api(`${base}/url_variables/x`, { method: 'PUT', token: maintainer.token, body: { value: 'v' } })).status).toBe(403);
  });
});
