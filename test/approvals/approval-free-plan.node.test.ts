/**
 * Approvals on a free instance (INSTANCE_PLAN=free, its own Node server): approval rules are the
 * Premium feature merge_request_approvers (403), the settings read approvals_before_merge 0 and
 * reset_approvals_on_push false (EE Project readers), and a merge request's ApprovalState requires
 * nothing while approvals still record who approved.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { mergeRequests } from '../../src/db/schema';
import { createNodeApp } from '../../src/node-app';

let dir: string;
let created: Awaited<ReturnType<typeof createNodeApp>>;

async function call(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const res = await created.app.fetch(
    new Request(`http://localhost/api/v4${path}`, {
      method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
      headers: { 'PRIVATE-TOKEN': init.token ?? DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-free-approvals-'));
  created = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: 'free' } });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('approvals on a free instance', () => {
  it('refuses rules, reads the settings through the feature gate, requires nothing on merge requests', async () => {
    const project = await call('/projects', { body: { name: 'free-approvals' } });
    expect(project.status).toBe(201);
    const pid = project.body.id;
    expect(await call(`/projects/${pid}/approval_rules`)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call(`/projects/${pid}/approval_rules`, { body: { name: 'x', approvals_required: 1 } })).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect((await call(`/projects/${pid}/approval_rules/1`)).status).toBe(403);
    const s = await call(`/projects/${pid}/approvals`, { body: { approvals_before_merge: 2 } });
    expect(s.status).toBe(201);
    expect(s.body).toMatchObject({ approvals_before_merge: 0, reset_approvals_on_push: false });
    const now = Date.now();
    await created.db
      .insert(mergeRequests)
      .values({ projectId: pid, iid: 1, sourceProjectId: pid, sourceBranch: 'f', targetBranch: 'main', title: 'T', authorId: 1, headSha: 'a'.repeat(40), createdAt: now, updatedAt: now })
      .run();
    const state = await call(`/projects/${pid}/merge_requests/1/approvals`);
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ approvals_required: 0, approvals_left: 0, approved: true, merge_request_approvers_available: false, multiple_approval_rules_available: false });
    expect(await call(`/projects/${pid}/merge_requests/1/approval_state`)).toEqual({ status: 200, body: { approval_rules_overwritten: false, rules: [] } });
  });
});
