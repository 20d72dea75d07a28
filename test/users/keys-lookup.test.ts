/** GET /keys/:id and GET /keys?fingerprint= (GitLab lib/api/keys.rb, KeysFinder): a key with its owner, for administrators. */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';
import { freshSshKey } from '../fixtures/keys';
import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';

async function keyOf() {
  const u = await createUser();
  const fx = freshSshKey();
  const res = await api('/user/keys', { token: u.token, body: { title: 'laptop', key: fx.key } });
  expect(res.status).toBe(201);
  const blob = Buffer.from(fx.key.split(' ')[1], 'base64');
  const md5 = createHash('md5').update(blob).digest('hex').replace(/(..)(?!$)/g, '$1:');
  const sha256 = createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
  return { u, key: res.body, md5, sha256 };
}

describe('GET /keys/:id', () => {
  it('answers the key with its owner (UserPublic) to an administrator', async () => {
    const { u, key } = await keyOf();
    const res = await api(`/keys/${key.id}`, { token: rootToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([...Object.keys(key), 'user']);
    expect(res.body).toMatchObject({ id: key.id, title: 'laptop', key: key.key });
    expect(res.body.user).toMatchObject({ id: u.id, username: u.username, email: u.email, identities: [] });
  });

  it('is for administrators only; a missing key is ActiveRecord’s 404', async () => {
    const { u, key } = await keyOf();
    expect((await api(`/keys/${key.id}`)).status).toBe(401);
    expect(await api(`/keys/${key.id}`, { token: u.token }).then((r) => [r.status, r.body])).toEqual([403, { message: '403 Forbidden' }]);
    expect(await api('/keys/999999999', { token: rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not found' }]);
    expect((await api('/keys/abc', { token: rootToken })).status).toBe(404);
  });
});

describe('GET /keys?fingerprint=', () => {
  it('finds a key by its MD5 and its SHA256 fingerprint', async () => {
    const { u, key, md5, sha256 } = await keyOf();
    for (const fingerprint of [md5, `SHA256:${sha256}`]) {
      const res = await api(`/keys?fingerprint=${encodeURIComponent(fingerprint)}`, { token: rootToken });
      expect(res.status, fingerprint).toBe(200);
      expect(res.body.id).toBe(key.id);
      expect(res.body.user.id).toBe(u.id);
    }
  });

  it('answers 404 Key Not Found for an unknown fingerprint and 400 for a malformed one', async () => {
    const unknown = await api(`/keys?fingerprint=${'ab:'.repeat(15)}ab`, { token: rootToken });
    expect([unknown.status, unknown.body]).toEqual([404, { message: '404 Key Not Found' }]);
    const sha = await api(`/keys?fingerprint=${encodeURIComponent(`SHA256:${'A'.repeat(43)}`)}`, { token: rootToken });
    expect([sha.status, sha.body]).toEqual([404, { message: '404 Key Not Found' }]);
    for (const bad of ['nope', 'SHA256:abc', 'ab:cd']) {
      const res = await api(`/keys?fingerprint=${encodeURIComponent(bad)}`, { token: rootToken });
      expect([res.status, res.body], bad).toEqual([400, { message: 'Failed to return the key' }]);
    }
    expect(await api('/keys', { token: rootToken }).then((r) => [r.status, r.body])).toEqual([400, { error: 'fingerprint is missing' }]);
  });

  it('is for administrators only', async () => {
    const { u, md5 } = await keyOf();
    expect((await api(`/keys?fingerprint=${md5}`)).status).toBe(401);
    expect((await api(`/keys?fingerprint=${md5}`, { token: u.token })).status).toBe(403);
  });
});
