/**
 * Issue 14: a cached runner's plain poll is answered before the router (src/ci/runner-poll-first.ts),
 * which remembers each runner's last poll body by its RUNNER-TOKEN header instead of parsing it
 * again. What a body says must still be what is answered: the body's token over the header's, and
 * a changed report written even when the header is the same. (Over real HTTP on Node:
 * runner-poll-fast-http.node.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { api, fetchApi, rootToken } from '../support';

const INFO = { name: 'gitlab-runner', version: '17.5.0', revision: '1d3ef4c3', platform: 'linux', architecture: 'amd64', executor: 'docker', features: { variables: true } };

async function knownRunner(): Promise<{ id: number; token: string; stamp: string }> {
  const reg = (await api('/runners/reset_registration_token', { method: 'POST', token: rootToken })).body.token;
  const res = await api('/runners', { method: 'POST', body: { token: reg, info: INFO } });
  const polled = await poll(res.body.token, { token: res.body.token, info: INFO });
  expect(polled.status).toBe(204);
  return { ...res.body, stamp: polled.headers.get('x-gitlab-last-update')! };
}

const poll = (header: string, body: unknown, path = '/jobs/request') =>
  fetchApi(`/api/v4${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'RUNNER-TOKEN': header }, body: JSON.stringify(body) });

describe('a runner poll answered before the router', () => {
  it("answers the body's token, not the header's, after the header's runner polled with it", async () => {
    const a = await knownRunner();
    const b = await knownRunner();
    for (let i = 0; i < 2; i++) expect((await poll(a.token, { token: a.token, info: INFO })).headers.get('x-gitlab-last-update')).toBe(a.stamp);
    const other = await poll(a.token, { token: b.token, info: INFO });
    expect([other.status, other.headers.get('x-gitlab-last-update'), other.headers.get('x-storage-round-trips')]).toEqual([204, b.stamp, '0']);
    const verified = await poll(a.token, { token: b.token }, '/runners/verify');
    expect(((await verified.json()) as { id: number }).id).toBe(b.id);
  });

  it('writes what a changed body reports under the same header, then answers it from the cache', async () => {
    const { id, token } = await knownRunner();
    expect((await poll(token, { token, info: INFO })).headers.get('x-storage-round-trips')).toBe('0');
    const changed = { token, info: { ...INFO, version: '17.6.0' } };
    const written = await poll(token, changed);
    expect([written.status, written.headers.get('x-storage-round-trips')]).toEqual([204, '1']);
    expect((await api(`/runners/${id}`, { token: rootToken })).body.version).toBe('17.6.0');
    expect((await poll(token, changed)).headers.get('x-storage-round-trips')).toBe('0');
  });
});
