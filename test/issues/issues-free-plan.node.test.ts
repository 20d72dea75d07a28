/**
 * Issues on a free instance (INSTANCE_PLAN=free; its own server, so a Node-only test): one assignee
 * kept (Issue#allows_multiple_assignees? is Premium), no weight/epic/iteration/health_status in the
 * entity, weight and epic parameters ignored, and the epics API answers 403.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

let dir: string;
let created: Awaited<ReturnType<typeof createNodeApp>>;
let call: (path: string, init?: { method?: string; body?: unknown }) => Promise<{ status: number; body: any }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-free-issues-'));
  created = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: 'free' },
  });
  const { app } = created;
  call = async (path, init = {}) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('issues on a free instance', () => {
  it('keeps one assignee, omits the paid attributes and refuses epics', async () => {
    const user = await call('/users', { body: { email: 'free-i@example.com', name: 'Free I', username: 'free-i', password: 'secret-pass-123', skip_confirmation: true } });
    expect(user.status).toBe(201);
    const group = await call('/groups', { body: { name: 'free-g', path: 'free-g' } });
    expect(group.status).toBe(201);
    const project = await call('/projects', { body: { name: 'free-p', namespace_id: group.body.id } });
    expect(project.status).toBe(201);
    await call(`/projects/${project.body.id}/members`, { body: { user_id: user.body.id, access_level: 30 } });
    const issue = await call(`/projects/${project.body.id}/issues`, { body: { title: 'Free', assignee_ids: [1, user.body.id], weight: 3 } });
    expect(issue.status).toBe(201);
    expect(issue.body.assignees.map((a: { id: number }) => a.id)).toEqual([1]);
    for (const key of ['weight', 'blocking_issues_count', 'epic_iid', 'epic', 'iteration', 'health_status']) expect(issue.body).not.toHaveProperty(key);
    expect(Object.keys(issue.body).slice(-4)).toEqual(['moved_to_id', 'imported', 'imported_from', 'service_desk_reply_to']);
    expect(await call(`/groups/${group.body.id}/epics`)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call(`/groups/${group.body.id}/epics`, { body: { title: 'x' } })).toEqual({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('has no incident metric images (a Premium feature): upload 403 Not allowed!, list 404 Issue not found', async () => {
    const project = await call('/projects', { body: { name: 'free-mi' } });
    const incident = await call(`/projects/${project.body.id}/issues`, { body: { title: 'Down', issue_type: 'incident' } });
    expect(incident.body.issue_type).toBe('incident');
    const images = `/projects/${project.body.id}/issues/${incident.body.iid}/metric_images`;
    const form = new FormData();
    form.append('file', new File([Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='), (ch) => ch.charCodeAt(0))], 'g.png', { type: 'image/png' }));
    const { app } = created;
    const upload = await app.fetch(new Request(`http://localhost/api/v4${images}`, { method: 'POST', headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN }, body: form }));
    expect(upload.status).toBe(403);
    expect(await upload.json()).toEqual({ message: 'Not allowed!' });
    expect(await call(images)).toEqual({ status: 404, body: { message: 'Issue not found' } });
  });
});
