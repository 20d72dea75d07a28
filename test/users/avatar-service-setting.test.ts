/**
 * Issue 17 item 2: the instance setting `avatarsvc_enabled` (GitLab's `gravatar_enabled`). Off, a user
 * without an uploaded avatar has `avatar_url: null` everywhere a user is shown (User#avatar_url falls
 * back to GravatarService#execute, nil unless the setting is on); an uploaded avatar is still shown.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

// A 1x1 transparent PNG.
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='), (ch) => ch.charCodeAt(0));

async function withAvatarService(enabled: boolean, fn: () => Promise<void>): Promise<void> {
  const current = await api('/application/settings', { token: rootToken });
  expect(current.status).toBe(200);
  const original = current.body.avatarsvc_enabled;
  const res = await api('/application/settings', { method: 'PUT', token: rootToken, body: { avatarsvc_enabled: enabled } });
  expect([res.status, res.body.avatarsvc_enabled]).toEqual([200, enabled]);
  try {
    await fn();
  } finally {
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { avatarsvc_enabled: original } })).status).toBe(200);
  }
}

describe('avatarsvc_enabled', () => {
  it('off: users without an upload have a null avatar_url (own, by id, in lists, anonymous, nested); uploads still show', async () => {
    const plain = await createUser();
    const username = unique('av');
    const fd = new FormData();
    for (const [k, v] of Object.entries({ email: `${username}@example.com`, name: 'Avatar', username, password: 'secret-pass-123' })) fd.append(k, v);
    fd.append('avatar', new File([PNG], 'face.png', { type: 'image/png' }));
    const uploaded = await api('/users', { token: rootToken, multipart: fd });
    expect(uploaded.status).toBe(201);
    const project = await api('/projects', { token: plain.token, body: { name: unique('avp'), visibility: 'public' } });
    expect(project.status).toBe(201);

    // On (the default): the avatar service's URL.
    const before = await api(`/users/${plain.id}`, { token: rootToken });
    expect(before.body.avatar_url).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);

    await withAvatarService(false, async () => {
      expect((await api('/user', { token: plain.token })).body.avatar_url).toBeNull();
      expect((await api(`/users/${plain.id}`, { token: rootToken })).body.avatar_url).toBeNull();
      // Anonymous callers too (the public project's namespace is its owner's).
      const anon = await api(`/projects/${project.body.id}`);
      expect([anon.status, anon.body.namespace.avatar_url]).toEqual([200, null]);
      const listed = await api(`/users?username=${plain.username}`, { token: plain.token });
      expect(listed.body.map((u: { avatar_url: unknown }) => u.avatar_url)).toEqual([null]);
      const pr = await api(`/projects/${project.body.id}`, { token: plain.token });
      expect(pr.body.owner.avatar_url).toBeNull();
      expect(pr.body.namespace.avatar_url).toBeNull();
      // An uploaded avatar does not depend on the service.
      const up = await api(`/users/${uploaded.body.id}`, { token: rootToken });
      expect(new URL(up.body.avatar_url).pathname).toBe(`/uploads/-/system/user/avatar/${uploaded.body.id}/face.png`);
    });

    // Back on: the URL returns.
    expect((await api(`/users/${plain.id}`, { token: rootToken })).body.avatar_url).toBe(before.body.avatar_url);
  });
});
