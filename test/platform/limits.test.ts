/**
 * Request limits (issue 12, src/platform/limits.ts) on both runtimes, through the app's fetch:
 * nesting depth, parameter count, NUL and malformed UTF-8, body size, URL length. Every refusal is
 * a 4xx in GitLab's JSON shape and changes nothing; the next request is served.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT, JSON_DEPTH_LIMIT, PARAM_DEPTH_LIMIT, PARAMS_LIMIT } from '../../src/platform/limits';
import { api, createUser, fetchApi, rootToken, unique } from '../support';

const nested = (levels: number) => `a${'[a]'.repeat(levels - 1)}`;
const json = async (res: Response): Promise<{ status: number; body: any }> => ({ status: res.status, body: await res.json().catch(() => null) });

async function newProject() {
  const res = await api('/projects', { token: rootToken, body: { name: unique('lim') } });
  expect(res.status).toBe(201);
  return res.body as { id: number };
}

describe('bracket nesting depth', () => {
  it('answers 400 for 10,000 levels in a form body to the unauthenticated token and sign-in routes', async () => {
    const form = `${nested(10_000)}=x&grant_type=password`;
    for (const path of ['/oauth/token', '/users/sign_in']) {
      const res = await json(await fetchApi(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/nested too deeply/);
    }
  });

  it('answers 400 for 2,000 levels in a query string and accepts the limit itself', async () => {
    const deep = await api(`/projects?${nested(2000)}=1`);
    expect(deep.status).toBe(400);
    expect(deep.body.error).toBe(`Parameters are nested too deeply (the limit is ${PARAM_DEPTH_LIMIT} levels)`);
    expect((await api(`/projects?${nested(PARAM_DEPTH_LIMIT)}=1`)).status).toBe(200);
    expect((await api(`/projects?${nested(PARAM_DEPTH_LIMIT + 1)}=1`)).status).toBe(400);
  });

  it('answers 400 for JSON nested deeper than the JSON limit', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const send = (n: number) =>
      fetchApi('/api/v4/user/status', { method: 'PUT', headers: { 'Content-Type': 'application/json', 'PRIVATE-TOKEN': rootToken }, body: `{"message":"deep","x":${deep(n)}}` });
    const refused = await json(await send(JSON_DEPTH_LIMIT));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/nested too deeply/);
    // A bracket inside a string is text, not nesting.
    const inString = await api('/user/status', { method: 'PUT', token: rootToken, body: { message: '['.repeat(50) } });
    expect(inString.status).toBe(200);
    expect((await send(JSON_DEPTH_LIMIT - 1)).status).toBe(200);
  });
});

describe('parameter count', () => {
  it('refuses more than the limit across query and form body, and accepts the limit', async () => {
    const pairs = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}=1`).join('&');
    const put = (query: string, body: string) =>
      fetchApi(`/api/v4/user/status?${query}`, { method: 'PUT', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'PRIVATE-TOKEN': rootToken }, body });
    const over = await json(await put(pairs(600, 'q'), `${pairs(PARAMS_LIMIT - 600, 'b')}&message=over`));
    expect(over.status).toBe(400);
    expect(over.body.error).toBe(`total number of query parameters (${PARAMS_LIMIT + 1}) exceeds limit (${PARAMS_LIMIT})`);
    expect((await api('/user/status', { token: rootToken })).body.message).not.toBe('over');
    const at = await put(pairs(600, 'q'), `${pairs(PARAMS_LIMIT - 601, 'b')}&message=at`);
    expect(at.status).toBe(200);
    const tenThousand = await json(await put('', pairs(10_000, 'b')));
    expect(tenThousand.status).toBe(400);
  });
});

describe('NUL characters and malformed UTF-8', () => {
  it('refuses a NUL in a JSON string instead of storing a cut value (label, milestone, user email)', async () => {
    const project = await newProject();
    const name = unique('lbl');
    const label = await api(`/projects/${project.id}/labels`, { token: rootToken, body: { name: `${name}\u0000after`, color: '#ff0000' } });
    expect(label.status).toBe(400);
    expect(label.body).toEqual({ error: 'name contains a null byte' });
    const labels = await api(`/projects/${project.id}/labels?search=${name}`, { token: rootToken });
    expect(labels.body).toEqual([]);

    const milestone = await api(`/projects/${project.id}/milestones`, { token: rootToken, body: { title: 'v1\u0000.0' } });
    expect(milestone.status).toBe(400);
    expect(milestone.body).toEqual({ error: 'title contains a null byte' });

    const admin = await createUser({ admin: true });
    const dup = await api('/users', { token: rootToken, body: { email: `${admin.email}\u0000x`, name: 'N', username: unique('nul'), password: 'Pw-long-enough-1', skip_confirmation: true } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ error: 'email contains a null byte' });
  });

  it('refuses NUL in nested JSON keys and values, form bodies, query strings, multipart fields and the path', async () => {
    const nestedValue = await api('/user/status', { method: 'PUT', token: rootToken, body: { message: 'ok', extra: { list: ['a', 'b\u0000'] } } });
    expect(nestedValue.body).toEqual({ error: 'extra[list][] contains a null byte' });
    const key = await api('/user/status', { method: 'PUT', token: rootToken, body: { message: 'ok', 'k\u0000': 'v' } });
    expect(key.status).toBe(400);
    expect(key.body.error).toBe('k\\0 contains a null byte');
    const form = await api('/user/status', { method: 'PUT', token: rootToken, form: { message: 'a\u0000b' } });
    expect(form.body).toEqual({ error: 'message contains a null byte' });
    const query = await api('/projects?search=a%00b');
    expect(query.body).toEqual({ error: 'search contains a null byte' });
    const multipart = new FormData();
    multipart.append('message', 'x\u0000y');
    const mp = await api('/user/status', { method: 'PUT', token: rootToken, multipart });
    expect(mp.body).toEqual({ error: 'message contains a null byte' });
    const path = await api('/projects/abc%00def', { token: rootToken });
    expect(path.status).toBe(400);
    expect(path.body).toEqual({ error: 'path contains a null byte' });
  });

  it('keeps NUL bytes inside uploaded file contents', async () => {
    const user = await createUser();
    // A PNG signature and IHDR length are full of zero bytes.
    const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg=='), (ch) => ch.charCodeAt(0));
    expect(png.includes(0)).toBe(true);
    const form = new FormData();
    form.append('avatar', new File([png], 'a.png', { type: 'image/png' }));
    const res = await api(`/users/${user.id}`, { method: 'PUT', token: rootToken, multipart: form });
    expect(res.status).toBe(200);
  });

  it('refuses malformed UTF-8 in query strings, form bodies, raw JSON bytes and lone surrogates', async () => {
    for (const bad of ['%C0%AF', '%FF']) {
      const q = await api(`/projects?search=${bad}`);
      expect(q.status).toBe(400);
      expect(q.body).toEqual({ error: 'search is not valid UTF-8' });
      const f = await fetchApi('/api/v4/user/status', { method: 'PUT', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'PRIVATE-TOKEN': rootToken }, body: `message=${bad}` });
      expect(await json(f)).toEqual({ status: 400, body: { error: 'message is not valid UTF-8' } });
    }
    const bytes = new Uint8Array([...new TextEncoder().encode('{"message":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}')]);
    const raw = await fetchApi('/api/v4/user/status', { method: 'PUT', headers: { 'Content-Type': 'application/json', 'PRIVATE-TOKEN': rootToken }, body: bytes });
    expect(await json(raw)).toEqual({ status: 400, body: { error: 'body is not valid UTF-8' } });
    const surrogate = await fetchApi('/api/v4/user/status', { method: 'PUT', headers: { 'Content-Type': 'application/json', 'PRIVATE-TOKEN': rootToken }, body: '{"message":"a\\ud800b"}' });
    expect(await json(surrogate)).toEqual({ status: 400, body: { error: 'message is not valid UTF-8' } });
    const path = await api('/projects/abc%FF', { token: rootToken });
    expect(path.body).toEqual({ error: 'path is not valid UTF-8' });
  });
});

describe('body size', () => {
  const big = () => `{"name":"${'x'.repeat(DEFAULT_BODY_LIMIT)}"}`;

  it('answers 413 for a body over the limit, before authentication and on unauthenticated routes', async () => {
    for (const token of [undefined, rootToken]) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (token) headers['PRIVATE-TOKEN'] = token;
      const res = await fetchApi('/api/v4/projects', { method: 'POST', headers, body: big() });
      expect(await json(res)).toEqual({ status: 413, body: { message: '413 Request Entity Too Large' } });
    }
    const form = `grant_type=password&username=${'x'.repeat(DEFAULT_BODY_LIMIT)}`;
    const token = await fetchApi('/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
    expect(token.status).toBe(413);
    // An anonymous body under the limit still gets its 401.
    expect((await api('/projects', { body: { name: 'anon' } })).status).toBe(401);
  });

  it('cuts off a chunked body (no Content-Length) at the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name":"'));
        sent++;
        if (sent > 20) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await fetchApi('/api/v4/projects', { method: 'POST', headers: { 'Content-Type': 'application/json', 'PRIVATE-TOKEN': rootToken }, body: stream, duplex: 'half' } as RequestInit);
    expect(await json(res)).toEqual({ status: 413, body: { message: '413 Request Entity Too Large' } });
    // Reading stopped at the limit, long before the 20 MB the stream would have produced.
    expect(sent).toBeLessThan(12);
    expect((await api('/user', { token: rootToken })).status).toBe(200);
  });

  it('lets the commits API take bodies above the default limit (max_attachment_size)', async () => {
    const project = await newProject();
    const content = 'y'.repeat(DEFAULT_BODY_LIMIT + 1024);
    const res = await api(`/projects/${project.id}/repository/commits`, {
      token: rootToken,
      body: { branch: 'main', commit_message: 'big', actions: [{ action: 'create', file_path: 'big.txt', content }] },
    });
    expect(res.status).toBe(201);
  });
});

describe('offset pagination limit', () => {
  const message = (type: string) =>
    `Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type ${type}. Remaining records can be retrieved using keyset pagination.`;

  it('answers 405 past 50,000 rows for projects (default per_page counts) and anonymous group lists', async () => {
    // page * per_page with the declared default per_page of 20: 2,501 * 20 > 50,000.
    const projects = await api('/projects?page=2501', { token: rootToken });
    expect(projects.status).toBe(405);
    expect(projects.body).toEqual({ error: message('Project') });
    expect((await api('/projects?page=2500', { token: rootToken })).status).toBe(200);
    expect((await api('/projects?page=1&per_page=50001', { token: rootToken })).status).toBe(405);
    const groups = await api('/groups?page=3000&per_page=25');
    expect(groups.status).toBe(405);
    expect(groups.body).toEqual({ error: message('Group') });
    // Signed-in group lists are paged by plain `paginate` in groups.rb: no cap.
    expect((await api('/groups?page=3000&per_page=25', { token: rootToken })).status).toBe(200);
  });
});

describe('URL length', () => {
  it('answers a JSON 414 above 8 KiB of URL', async () => {
    const res = await api(`/projects?search=${'a'.repeat(9000)}`);
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ message: '414 Request-URI Too Large' });
  });
});
