/**
 * Deleting a project, a group, or a user with their solely owned groups removes the blob-store
 * files of the deleted rows (incident metric images), not only the rows. Node-only: it builds its
 * own server so it can look at the blob directory on disk.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='), (ch) => ch.charCodeAt(0));
let dir: string;
let fetchApp: (req: Request) => Response | Promise<Response>;

const call = async (path: string, init: { method?: string; body?: unknown; form?: FormData; token?: string } = {}) => {
  const headers: Record<string, string> = { 'PRIVATE-TOKEN': init.token ?? DEV_ROOT_TOKEN };
  if (init.body) headers['Content-Type'] = 'application/json';
  const res = await fetchApp(
    new Request(`http://localhost/api/v4${path}`, {
      method: init.method ?? (init.body || init.form ? 'POST' : 'GET'),
      headers,
      body: init.form ?? (init.body ? JSON.stringify(init.body) : undefined),
    }),
  );
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};

/** Stored files under the blob root (the filesystem store keeps a `.meta` beside each). */
const blobFiles = () => (readdirSync(join(dir, 'blobs'), { recursive: true }) as string[]).filter((f) => /\.png$/.test(f)).length;

async function projectWithImage(namespaceId?: number, token?: string) {
  const project = await call('/projects', { token, body: { name: `p${Math.random().toString(36).slice(2, 8)}`, ...(namespaceId ? { namespace_id: namespaceId } : {}) } });
  expect(project.status).toBe(201);
  const issue = await call(`/projects/${project.body.id}/issues`, { token, body: { title: 'Outage', issue_type: 'incident' } });
  expect(issue.status).toBe(201);
  const form = new FormData();
  form.append('file', new File([PNG], 'graph.png', { type: 'image/png' }));
  const image = await call(`/projects/${project.body.id}/issues/${issue.body.iid}/metric_images`, { form, token });
  expect(image.status).toBe(201);
  return project.body as { id: number };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-deletion-blobs-'));
  const { app } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
  fetchApp = app.fetch;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('blob files of deleted content', () => {
  it('go with a deleted project, and only that project’s', async () => {
    const kept = await projectWithImage();
    const doomed = await projectWithImage();
    expect(blobFiles()).toBe(2);
    expect((await call(`/projects/${doomed.id}`, { method: 'DELETE' })).status).toBe(202);
    expect(blobFiles()).toBe(1);
    expect((await call(`/projects/${kept.id}/issues/1/metric_images`)).body).toHaveLength(1);
    expect((await call(`/projects/${kept.id}`, { method: 'DELETE' })).status).toBe(202);
    expect(blobFiles()).toBe(0);
  });

  it('go with a deleted group, including its subgroups’ projects', async () => {
    const group = await call('/groups', { body: { name: 'blob-g', path: 'blob-g' } });
    const sub = await call('/groups', { body: { name: 'blob-sub', path: 'blob-sub', parent_id: group.body.id } });
    await projectWithImage(group.body.id);
    await projectWithImage(sub.body.id);
    expect(blobFiles()).toBe(2);
    expect((await call(`/groups/${group.body.id}`, { method: 'DELETE' })).status).toBe(202);
    expect(blobFiles()).toBe(0);
  });

  it('go with the groups a hard-deleted user solely owned', async () => {
    const user = await call('/users', { body: { email: 'blob-owner@example.com', name: 'Blob Owner', username: 'blob-owner', password: 'secret-pass-123', skip_confirmation: true } });
    const pat = await call(`/users/${user.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
    expect(pat.status).toBe(201);
    const group = await call('/groups', { body: { name: 'blob-owned', path: 'blob-owned' }, token: pat.body.token });
    expect(group.status).toBe(201);
    await projectWithImage(group.body.id, pat.body.token);
    expect(blobFiles()).toBe(1);
    expect((await call(`/users/${user.body.id}?hard_delete=true`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/groups/${group.body.id}`)).status).toBe(404);
    expect(blobFiles()).toBe(0);
  });

  it('go with a deleted project together with its repository, protected branches, merge requests and approval rules', async () => {
    const project = (await call('/projects', { body: { name: 'with-repo' } })).body;
    const commit = (branch: string, path: string, extra: Record<string, unknown> = {}) =>
      call(`/projects/${project.id}/repository/commits`, { body: { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content: `${path}\n` }], ...extra } });
    expect((await commit('main', 'README.md')).status).toBe(201);
    expect((await commit('feature', 'feature.txt', { start_branch: 'main' })).status).toBe(201);
    const issue = (await call(`/projects/${project.id}/issues`, { body: { title: 'Bug' } })).body;
    expect((await call(`/projects/${project.id}/merge_requests`, { body: { source_branch: 'feature', target_branch: 'main', title: 'Feature', description: `Closes #${issue.iid}` } })).status).toBe(201);
    expect((await call(`/projects/${project.id}/approval_rules`, { body: { name: 'Rule', approvals_required: 1 } })).status).toBe(201);
    const repoFiles = () => (readdirSync(join(dir, 'blobs'), { recursive: true }) as string[]).filter((f) => f.startsWith(`repositories/${project.id}/`) && !f.endsWith('.meta')).length;
    expect(repoFiles()).toBe(2);
    expect((await call(`/projects/${project.id}`, { method: 'DELETE' })).status).toBe(202);
    expect(repoFiles()).toBe(0);
    const { createClient } = await import('@libsql/client');
    const db = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
    for (const table of ['repo_commits', 'repo_commit_files', 'repo_branches', 'protected_branches', 'merge_requests', 'approval_project_rules', 'issues']) {
      const { rows } = await db.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE project_id = ?`, args: [project.id] });
      expect([table, rows[0].n]).toEqual([table, 0]);
    }
    const links = await db.execute({ sql: 'SELECT count(*) AS n FROM merge_requests_closing_issues WHERE issue_id = ?', args: [issue.id] });
    expect(links.rows[0].n).toBe(0);
    db.close();
  });

  it('go with a deleted user’s personal projects, and entries naming the user go too', async () => {
    const user = (await call('/users', { body: { email: 'personal@example.com', name: 'Personal', username: 'personal', password: 'secret-pass-123', skip_confirmation: true } })).body;
    const pat = (await call(`/users/${user.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } })).body.token;
    const own = (await call('/projects', { token: pat, body: { name: 'mine' } })).body;
    expect((await call(`/projects/${own.id}/repository/commits`, { token: pat, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'a.txt', content: 'personal' }] } })).status).toBe(201);
    expect((await call(`/projects/${own.id}/issues`, { token: pat, body: { title: 'Mine' } })).status).toBe(201);
    // The user is named in a protected-branch entry of another project.
    const other = (await call('/projects', { body: { name: 'other' } })).body;
    expect((await call(`/projects/${other.id}/members`, { body: { user_id: user.id, access_level: 30 } })).status).toBe(201);
    expect((await call(`/projects/${other.id}/protected_branches`, { body: { name: 'release', allowed_to_push: [{ user_id: user.id }] } })).status).toBe(201);
    const repoFiles = () => (readdirSync(join(dir, 'blobs'), { recursive: true }) as string[]).filter((f) => f.startsWith(`repositories/${own.id}/`) && !f.endsWith('.meta')).length;
    expect(repoFiles()).toBe(1);
    expect((await call(`/users/${user.id}?hard_delete=true`, { method: 'DELETE' })).status).toBe(204);
    expect(repoFiles()).toBe(0);
    const { createClient } = await import('@libsql/client');
    const db = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
    for (const [table, col, id] of [['issues', 'project_id', own.id], ['repo_commits', 'project_id', own.id], ['protected_branch_access_levels', 'user_id', user.id]] as const) {
      const { rows } = await db.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE ${col} = ?`, args: [id] });
      expect([table, rows[0].n]).toEqual([table, 0]);
    }
    db.close();
    const rule = (await call(`/projects/${other.id}/protected_branches/release`)).body;
    expect(rule.push_access_levels.filter((l: { user_id: number | null }) => l.user_id === user.id)).toEqual([]);
  });
});
