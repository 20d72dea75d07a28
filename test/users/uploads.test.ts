import { describe, expect, it } from 'vitest';
import { api, fetchApi, rootToken, unique } from '../support';

// A 1x1 transparent PNG.
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='), (ch) => ch.charCodeAt(0));

describe('GET /uploads/-/system/user/avatar/:id/:filename', () => {
  it('serves the avatar uploaded with POST /users at the path of its avatar_url, without authentication', async () => {
    const username = unique('av');
    const fd = new FormData();
    for (const [k, v] of Object.entries({ email: `${username}@example.com`, name: 'Avatar', username, password: 'secret-pass-123' })) fd.append(k, v);
    fd.append('avatar', new File([PNG], 'face.png', { type: 'image/png' }));
    const created = await api('/users', { token: rootToken, multipart: fd });
    expect(created.status).toBe(201);
    const path = new URL(created.body.avatar_url).pathname;
    expect(path).toBe(`/uploads/-/system/user/avatar/${created.body.id}/face.png`);

    const res = await fetchApi(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);
  });

  it('answers 404 for a missing file or a non-image name', async () => {
    expect((await fetchApi('/uploads/-/system/user/avatar/999999/none.png')).status).toBe(404);
    expect((await fetchApi('/uploads/-/system/user/avatar/1/page.html')).status).toBe(404);
  });
});
