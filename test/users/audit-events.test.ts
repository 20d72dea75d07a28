import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';
import { freshSshKey } from '../fixtures/keys';

async function eventsFor(userId: number, extra = '') {
  return api(`/audit_events?entity_type=User&entity_id=${userId}${extra}`, { token: rootToken });
}

describe('Audit event for POST /users/:id/keys (premium)', () => {
  it('an administrator adding a key for a user records "Added SSH key" with GitLab\'s entity shape', async () => {
    const u = await createUser();
    const root = (await api('/user', { token: rootToken })).body;
    const before = Date.now() - 1000;
    const created = await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 'deploy box', key: freshSshKey().key }, headers: { 'X-Forwarded-For': '203.0.113.9, 10.0.0.1' } });
    expect(created.status).toBe(201);

    const list = await eventsFor(u.id);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const ev = list.body[0];
    expect(Object.keys(ev)).toEqual(['id', 'author_id', 'entity_id', 'entity_type', 'event_name', 'details', 'created_at']);
    expect(ev).toMatchObject({ author_id: 1, entity_id: u.id, entity_type: 'User', event_name: 'add_ssh_key' });
    expect(ev.details).toEqual({
      custom_message: 'Added SSH key',
      author_name: root.name,
      target_id: created.body.id,
      target_type: 'Key',
      target_details: 'deploy box',
      ip_address: '203.0.113.9',
      entity_path: u.username,
      event_name: 'add_ssh_key',
    });
    expect(Object.keys(ev.details)[0]).toBe('custom_message');
    expect(Date.parse(ev.created_at)).toBeGreaterThanOrEqual(before);

    const one = await api(`/audit_events/${ev.id}`, { token: rootToken });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(ev);
  });

  it('records nothing when the user adds a key themselves or when the admin request fails', async () => {
    const u = await createUser();
    expect((await api('/user/keys', { token: u.token, body: { title: 'own', key: freshSshKey().key } })).status).toBe(201);
    expect((await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 'bad', key: 'ssh-rsa AAAA' } })).status).toBe(400);
    const taken = freshSshKey();
    expect((await api('/user/keys', { token: u.token, body: { title: 'own2', key: taken.key } })).status).toBe(201);
    expect((await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 'dup', key: taken.key } })).status).toBe(400);
    expect((await eventsFor(u.id)).body).toEqual([]);
  });
});

describe('GET /audit_events', () => {
  it('is for administrators: 401 anonymous, 403 others', async () => {
    const u = await createUser();
    expect(await api('/audit_events', { token: u.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await api('/audit_events')).status).toBe(401);
    expect((await api('/audit_events/1', { token: u.token })).status).toBe(403);
    // The guard comes before parameter validation.
    expect((await api('/audit_events?entity_type=Issue', { token: u.token })).status).toBe(403);
    expect((await api('/audit_events/abc')).status).toBe(401);
  });

  it('filters by entity and creation time, newest first, paginated', async () => {
    const u = await createUser();
    const other = await createUser();
    const k1 = await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 'first', key: freshSshKey().key } });
    const k2 = await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 'second', key: freshSshKey().key } });
    await api(`/users/${other.id}/keys`, { token: rootToken, body: { title: 'elsewhere', key: freshSshKey().key } });

    const all = await eventsFor(u.id);
    expect(all.body.map((e: any) => e.details.target_id)).toEqual([k2.body.id, k1.body.id]);
    expect(all.headers.get('x-total')).toBe('2');

    const page = await eventsFor(u.id, '&per_page=1&page=2');
    expect(page.body.map((e: any) => e.details.target_details)).toEqual(['first']);
    expect(page.headers.get('x-total-pages')).toBe('2');
    expect(page.headers.get('link')).toContain('entity_id=' + u.id);

    const users = await api('/audit_events?entity_type=User&per_page=100', { token: rootToken });
    expect(users.body.every((e: any) => e.entity_type === 'User')).toBe(true);
    expect(users.body.some((e: any) => e.entity_id === other.id)).toBe(true);

    expect((await eventsFor(u.id, '&created_after=2999-01-01T00:00:00Z')).body).toEqual([]);
    expect((await eventsFor(u.id, '&created_before=2000-01-01T00:00:00Z')).body).toEqual([]);
    const window = await eventsFor(u.id, `&created_after=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}&created_before=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`);
    expect(window.body).toHaveLength(2);
  });

  it('validates filters like Grape', async () => {
    expect(await api('/audit_events?entity_id=1', { token: rootToken })).toMatchObject({ status: 400, body: { error: 'entity_type is missing' } });
    expect(await api('/audit_events?entity_type=Issue', { token: rootToken })).toMatchObject({ status: 400, body: { error: 'entity_type does not have a valid value' } });
    expect(await api('/audit_events?created_after=yesterday', { token: rootToken })).toMatchObject({ status: 400, body: { error: 'created_after is invalid' } });
  });

  it('GET /audit_events/:id of a missing event is 404 Not found', async () => {
    expect(await api('/audit_events/999999999', { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});
