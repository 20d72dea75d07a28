/**
 * Issue 16 item 1: environments (lib/api/environments.rb): create with GitLab's slug and guessed
 * tier, the list's filters, get, update, stop and delete, with their permission rules and bodies.
 */
import { describe, expect, it } from 'vitest';
import { api, rootToken, unique } from '../support';
import { createEnvironment, deployWorld } from './fixtures';

const rt = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('POST /projects/:id/environments', () => {
  it('creates an environment with its slug, the tier guessed from the name, and the project', async () => {
    const w = await deployWorld();
    const res = await api(`/projects/${w.project.id}/environments`, { token: w.developer.token, body: { name: 'review/Feature 1', external_url: 'https://review.example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'review/Feature 1', external_url: 'https://review.example.com', tier: 'development', state: 'available', auto_stop_at: null, description: null });
    // Gitlab::Slug::Environment: slugified, cut to 17 characters, and a suffix from the name's SHA-256.
    expect(res.body.slug).toMatch(/^review-feature-1-[a-z0-9]{6}$/);
    expect(res.body.project).toMatchObject({ id: w.project.id, path_with_namespace: w.project.path_with_namespace });
    expect(res.body).not.toHaveProperty('last_deployment');
    expect(rt(res)).toBeLessThanOrEqual(3);
    // The same name gives the same suffix (it is derived, not random): another project shows it.
    const w2 = await deployWorld();
    const again = await api(`/projects/${w2.project.id}/environments`, { token: w2.owner.token, body: { name: 'review/Feature 1' } });
    expect(again.body.slug).toBe(res.body.slug);
    // A name that is already a slug keeps it.
    expect((await createEnvironment(w, { name: 'staging' })).slug).toBe('staging');
  });

  it.each([
    ['production', 'production'],
    ['prd-eu', 'production'],
    ['live', 'production'],
    ['staging', 'staging'],
    ['pre-release', 'staging'],
    ['demo', 'staging'],
    ['qa', 'testing'],
    ['integration', 'testing'],
    ['dev', 'development'],
    ['review/x', 'development'],
    ['sandbox', 'other'],
  ])('guesses the tier of %s as %s (Environment#guess_tier)', async (name, tier) => {
    const w = await deployWorld();
    expect((await createEnvironment(w, { name })).tier).toBe(tier);
  });

  it('takes a given tier, and refuses an unknown one, a slug, a taken name and a bad name or URL', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/environments`;
    expect((await createEnvironment(w, { name: 'prod', tier: 'other' })).tier).toBe('other');
    expect((await api(P, { token: w.developer.token, body: { name: 'x', tier: 'moon' } })).body).toEqual({ error: 'tier does not have a valid value' });
    expect((await api(P, { token: w.developer.token, body: { name: 'x', slug: 'mine' } })).body).toEqual({ error: 'slug is automatically generated and cannot be changed' });
    expect((await api(P, { token: w.developer.token, body: {} })).body).toEqual({ error: 'name is missing' });
    const taken = await api(P, { token: w.developer.token, body: { name: 'prod' } });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ message: { name: ['has already been taken'] } });
    const bad = await api(P, { token: w.developer.token, body: { name: '/bad*' } });
    expect(bad.body).toEqual({ message: { name: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"] } });
    expect((await api(P, { token: w.developer.token, body: { name: 'js', external_url: 'javascript:alert(1)' } })).body).toEqual({ message: { external_url: ['javascript scheme is not allowed'] } });
    expect((await api(P, { token: w.developer.token, body: { name: 'long', external_url: `https://e.com/${'a'.repeat(250)}` } })).body).toEqual({
      message: { external_url: ['is too long (maximum is 255 characters)'] },
    });
    // A blank URL is stored as none (NullifyIfBlank).
    expect((await api(P, { token: w.developer.token, body: { name: 'blank-url', external_url: '' } })).body.external_url).toBeNull();
  });

  it('needs a developer; a reporter gets 403, a stranger 404, anonymous 401', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/environments`;
    expect((await api(P, { token: w.reporter.token, body: { name: 'r' } })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(P, { token: w.stranger.token, body: { name: 'r' } })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api(P, { body: { name: 'r' } })).body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('GET /projects/:id/environments', () => {
  it('lists to reporters with name, search and states filters and pagination', async () => {
    const w = await deployWorld();
    const a = await createEnvironment(w, { name: 'production' });
    const b = await createEnvironment(w, { name: 'review/alpha' });
    const c = await createEnvironment(w, { name: 'review/beta' });
    await api(`/projects/${w.project.id}/environments/${c.id}/stop`, { method: 'POST', token: w.developer.token });
    const P = `/projects/${w.project.id}/environments`;
    const all = await api(P, { token: w.reporter.token });
    expect(all.status).toBe(200);
    expect(all.body.map((e: { id: number }) => e.id)).toEqual([a.id, b.id, c.id]);
    expect(all.headers.get('x-total')).toBe('3');
    expect(rt(all)).toBeLessThanOrEqual(2);
    expect(all.body[0].project.id).toBe(w.project.id);
    const ids = async (q: string) => ((await api(`${P}?${q}`, { token: w.reporter.token })).body as { id: number }[]).map((e) => e.id);
    expect(await ids('name=review/alpha')).toEqual([b.id]);
    expect(await ids('name=review')).toEqual([]);
    expect(await ids('search=REVIEW')).toEqual([b.id, c.id]);
    expect(await ids('search=alpha')).toEqual([]);
    expect(await ids('states=stopped')).toEqual([c.id]);
    expect(await ids('states=available')).toEqual([a.id, b.id]);
    expect(await ids('per_page=1&page=2')).toEqual([b.id]);
    expect((await api(`${P}?name=a&search=abc`, { token: w.reporter.token })).body).toEqual({ error: 'name, search cannot be used together' });
    expect((await api(`${P}?states=gone`, { token: w.reporter.token })).body).toEqual({ error: 'states does not have a valid value' });
    const short = await api(`${P}?search=re`, { token: w.reporter.token });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ message: '400 Bad request - Search query is less than 3 characters' });
  });

  it('refuses guests (403), strangers (404) and anonymous callers (401)', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/environments`;
    expect((await api(P, { token: w.guest.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(P, { token: w.stranger.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api(P)).status).toBe(401);
    expect((await api(P, { token: rootToken })).status).toBe(200);
  });
});

describe('environments of a public project', () => {
  it('are read by everyone signed in (public_access), written by developers only', async () => {
    const w = await deployWorld();
    const e = await createEnvironment(w, { name: 'production' });
    expect((await api(`/projects/${w.project.id}`, { method: 'PUT', token: w.owner.token, body: { visibility: 'public' } })).status).toBe(200);
    const P = `/projects/${w.project.id}/environments`;
    expect((await api(P, { token: w.stranger.token })).body.map((x: { id: number }) => x.id)).toEqual([e.id]);
    expect((await api(`${P}/${e.id}`, { token: w.guest.token })).status).toBe(200);
    expect((await api(P)).body).toEqual({ message: '401 Unauthorized' });
    const stop = await api(`${P}/${e.id}/stop`, { method: 'POST', token: w.stranger.token });
    expect([stop.status, stop.body.state]).toEqual([200, 'available']);
    expect((await api(P, { token: w.stranger.token, body: { name: 'x' } })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`${P}/${e.id}`, { method: 'PUT', token: w.guest.token, body: { tier: 'other' } })).body).toEqual({ message: '403 Forbidden' });
  });
});

describe('GET /projects/:id/environments/:environment_id', () => {
  it('shows one environment with last_deployment and without the project', async () => {
    const w = await deployWorld();
    const e = await createEnvironment(w, { name: 'production', external_url: 'https://example.com' });
    const res = await api(`/projects/${w.project.id}/environments/${e.id}`, { token: w.reporter.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: e.id, name: 'production', slug: 'production', tier: 'production', state: 'available', last_deployment: null });
    expect(res.body).not.toHaveProperty('project');
    expect(rt(res)).toBeLessThanOrEqual(2);
    expect((await api(`/projects/${w.project.id}/environments/999999999`, { token: w.reporter.token })).body).toEqual({ message: '404 Not found' });
    // Another project's environment is not found through this one.
    const w2 = await deployWorld();
    expect((await api(`/projects/${w2.project.id}/environments/${e.id}`, { token: w2.owner.token })).status).toBe(404);
    expect((await api(`/projects/${w.project.id}/environments/${e.id}`, { token: w.guest.token })).body).toEqual({ message: '403 Forbidden' });
  });
});

describe('PUT /projects/:id/environments/:environment_id', () => {
  it('updates the name, URL, tier and description but never the slug', async () => {
    const w = await deployWorld();
    const e = await createEnvironment(w, { name: 'staging' });
    const other = await createEnvironment(w, { name: 'production' });
    const U = `/projects/${w.project.id}/environments/${e.id}`;
    const res = await api(U, { method: 'PUT', token: w.developer.token, body: { name: 'stage-2', external_url: 'https://s.example.com', tier: 'testing', description: 'the stage' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'stage-2', slug: 'staging', external_url: 'https://s.example.com', tier: 'testing', description: 'the stage' });
    expect(res.body.project.id).toBe(w.project.id);
    expect(rt(res)).toBeLessThanOrEqual(3);
    expect((await api(U, { method: 'PUT', token: w.developer.token, body: { slug: 'x' } })).body).toEqual({ error: 'slug is automatically generated and cannot be changed' });
    expect((await api(U, { method: 'PUT', token: w.developer.token, body: { name: 'production' } })).body).toEqual({ message: { name: ['has already been taken'] } });
    // Renaming to its own name is no conflict.
    expect((await api(U, { method: 'PUT', token: w.developer.token, body: { name: 'stage-2' } })).status).toBe(200);
    expect((await api(U, { method: 'PUT', token: w.reporter.token, body: { tier: 'other' } })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/projects/${w.project.id}/environments/999999999`, { method: 'PUT', token: w.developer.token, body: { tier: 'other' } })).body).toEqual({ message: '404 Not found' });
    expect(other.name).toBe('production');
  });
});

describe('POST /projects/:id/environments/:environment_id/stop and DELETE', () => {
  it('stops for developers (a reporter changes nothing), then deletes only a stopped environment', async () => {
    const w = await deployWorld();
    const e = await createEnvironment(w, { name: unique('env') });
    const E = `/projects/${w.project.id}/environments/${e.id}`;
    // EnvironmentPolicy: destroy_environment is prevented while the environment is available.
    expect((await api(E, { method: 'DELETE', token: w.maintainer.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(E, { method: 'DELETE', token: rootToken })).body).toEqual({ message: '403 Forbidden' });
    const byReporter = await api(`${E}/stop`, { method: 'POST', token: w.reporter.token });
    expect(byReporter.status).toBe(200);
    expect(byReporter.body.state).toBe('available');
    expect((await api(`${E}/stop`, { method: 'POST', token: w.guest.token })).body).toEqual({ message: '403 Forbidden' });
    const stopped = await api(`${E}/stop`, { method: 'POST', token: w.developer.token });
    expect(stopped.status).toBe(200);
    expect(stopped.body.state).toBe('stopped');
    expect(rt(stopped)).toBeLessThanOrEqual(3);
    // Stopping again is harmless.
    expect((await api(`${E}/stop`, { method: 'POST', token: w.developer.token })).body.state).toBe('stopped');
    expect((await api(E, { method: 'DELETE', token: w.reporter.token })).body).toEqual({ message: '403 Forbidden' });
    const del = await api(E, { method: 'DELETE', token: w.developer.token });
    expect(del.status).toBe(204);
    expect((await api(E, { token: w.developer.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(E, { method: 'DELETE', token: w.developer.token })).body).toEqual({ message: '404 Not found' });
  });

});

describe('DELETE /projects/:id/environments/review_apps', () => {
  it('lists (dry run) then schedules the stopped review apps created before `before`, oldest first', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/environments`;
    const stopped = async (name: string) => {
      const e = await createEnvironment(w, { name });
      expect((await api(`${P}/${e.id}/stop`, { method: 'POST', token: w.developer.token })).status).toBe(200);
      return e;
    };
    const a = await stopped('review/a');
    const b = await stopped('review/b');
    await stopped('staging');
    await createEnvironment(w, { name: 'review/running' });
    const R = `${P}/review_apps`;
    const future = '2999-01-01T00:00:00Z';
    // By default only apps older than 30 days: none yet.
    expect((await api(R, { method: 'DELETE', token: w.developer.token })).body).toEqual({ scheduled_entries: [], unprocessable_entries: [] });
    const dry = await api(`${R}?before=${future}&limit=1`, { method: 'DELETE', token: w.developer.token });
    expect(dry.status).toBe(200);
    expect(dry.body.scheduled_entries.map((e: { id: number }) => e.id)).toEqual([a.id]);
    expect(dry.body.scheduled_entries[0]).toEqual({ id: a.id, name: 'review/a', slug: a.slug, external_url: null, created_at: expect.any(String), updated_at: expect.any(String) });
    const real = await api(`${R}?before=${future}&dry_run=false`, { method: 'DELETE', token: w.developer.token });
    expect(real.body.scheduled_entries.map((e: { id: number }) => e.id)).toEqual([a.id, b.id]);
    // Scheduled ones are not scheduled again.
    expect((await api(`${R}?before=${future}`, { method: 'DELETE', token: w.developer.token })).body.scheduled_entries).toEqual([]);
    const reporter = await api(`${R}?before=${future}`, { method: 'DELETE', token: w.reporter.token });
    expect([reporter.status, reporter.body]).toEqual([401, { message: 'You do not have permission to destroy environments in this project' }]);
    expect((await api(`${R}?limit=0`, { method: 'DELETE', token: w.developer.token })).body).toEqual({ error: 'limit does not have a valid value' });
    expect((await api(R, { method: 'DELETE', token: w.guest.token })).body).toEqual({ message: '403 Forbidden' });
  });
});
