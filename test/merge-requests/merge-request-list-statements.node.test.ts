/**
 * A page of merge requests reads what its rows share once (lib/read-memo.ts): the target branch
 * head, its manifest, the project's protected branches, approval rules and settings, and the heads,
 * approvals and rules of all rows in one query each. Merge bases and manifests are functions of
 * shas, kept per isolate (repository/sha-cache.ts), so a warm page reads nothing per row. Counted on the Node client (a statement count, not a timing),
 * so a change that brings back a query per row per concern fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

let dir: string;
let statements = 0;
/** Every statement sent (SQL and arguments), for the duplicate check. */
const sent: string[] = [];
let call: (path: string, init?: { method?: string; body?: unknown; sudo?: string }) => Promise<{ status: number; body: any }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-mr-list-'));
  const { app, db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
  const client = (db as unknown as { session: { client: { execute: (...a: unknown[]) => unknown; batch: (s: unknown[], ...a: unknown[]) => unknown } } }).session.client;
  const execute = client.execute.bind(client);
  const batch = client.batch.bind(client);
  client.execute = (...a: unknown[]) => (statements++, sent.push(JSON.stringify(a[0])), execute(...a));
  client.batch = (s: unknown[], ...a: unknown[]) => ((statements += s.length), sent.push('BATCH', ...s.map((x) => JSON.stringify(x))), batch(s, ...a));
  call = async (path, init = {}) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json', ...(init.sudo ? { Sudo: init.sudo } : {}) },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a page of merge requests', () => {
  it('costs two statements per open merge request beyond what the page shares, and the approval routes read each thing once', async () => {
    const user = await call('/users', { body: { email: 'mrl@example.com', name: 'MR L', username: 'mrl', password: 'secret-pass-123', skip_confirmation: true } });
    const p = await call('/projects', { body: { name: 'mr-list' } });
    expect(p.status).toBe(201);
    const pid = p.body.id;
    await call(`/projects/${pid}/members`, { body: { user_id: user.body.id, access_level: 30 } });
    const commit = (branch: string, path: string) => call(`/projects/${pid}/repository/commits`, { body: { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content: `${path}\n` }] } });
    expect((await commit('main', 'README.md')).status).toBe(201);
    expect((await call(`/projects/${pid}/approval_rules`, { body: { name: 'Reviewers', approvals_required: 1, user_ids: [user.body.id] } })).status).toBe(201);
    for (let i = 0; i < 10; i++) {
      expect((await call(`/projects/${pid}/repository/branches`, { body: { branch: `topic-${i}`, ref: 'main' } })).status).toBe(201);
      expect((await commit(`topic-${i}`, `f${i}.txt`)).status).toBe(201);
      const mr = await call(`/projects/${pid}/merge_requests`, { body: { source_branch: `topic-${i}`, target_branch: 'main', title: `Topic ${i}` } });
      expect(mr.status).toBe(201);
      if (i % 3 === 0) expect((await call(`/projects/${pid}/merge_requests/${mr.body.iid}/approve`, { method: 'POST', body: { sha: mr.body.sha }, sudo: 'mrl' })).status).toBe(201);
    }
    const page = async (perPage: number) => {
      await call(`/projects/${pid}/merge_requests?per_page=${perPage}`); // warm caches (settings, tokens)
      const before = statements;
      const res = await call(`/projects/${pid}/merge_requests?per_page=${perPage}`);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(perPage);
      return { count: statements - before, body: res.body };
    };
    const two = await page(2);
    const ten = await page(10);
    expect((ten.count - two.count) / 8).toBeLessThanOrEqual(2);
    // The shared reads change no answer: each row is what its own GET says.
    for (const row of ten.body) {
      const one = await call(`/projects/${pid}/merge_requests/${row.iid}`);
      expect([row.iid, row.detailed_merge_status, row.sha, row.has_conflicts]).toEqual([one.body.iid, one.body.detailed_merge_status, one.body.sha, one.body.has_conflicts]);
    }
    expect(ten.body.map((r: any) => r.detailed_merge_status).sort()).toEqual([...Array(4).fill('mergeable'), ...Array(6).fill('not_approved')]);

    // One merge request: can_merge (push and merge access) and the approval rules share the protected branches.
    sent.length = 0;
    expect((await call(`/projects/${pid}/merge_requests/${ten.body[0].iid}`)).status).toBe(200);
    expect(sent.filter((x) => x.includes('from \\"protected_branches\\"'))).toHaveLength(1);
    expect(sent.filter((x) => x.includes('from \\"protected_branch_access_levels\\"'))).toHaveLength(1);

    // The approval routes read each thing once: no statement is sent twice with the same arguments.
    const mr = ten.body.find((r: any) => r.detailed_merge_status === 'not_approved');
    for (const path of ['approvals', 'approval_state']) {
      await call(`/projects/${pid}/merge_requests/${mr.iid}/${path}`);
      sent.length = 0;
      expect((await call(`/projects/${pid}/merge_requests/${mr.iid}/${path}`)).status).toBe(200);
      expect(sent.filter((x, i) => sent.indexOf(x) !== i), path).toEqual([]);
    }
    sent.length = 0;
    const approved = await call(`/projects/${pid}/merge_requests/${mr.iid}/approve`, { method: 'POST', body: { sha: mr.sha }, sudo: 'mrl' });
    expect([approved.status, approved.body.approved]).toEqual([201, true]);
    // Before its write (the batch), approve reads each thing once too.
    expect(sent).toContain('BATCH');
    // Reads may go in batches of their own: the write batch is the first that starts with no select.
    const write = sent.findIndex((x, i) => x === 'BATCH' && !/^\{"sql":"select/.test(sent[i + 1] ?? ''));
    const reads = sent.slice(0, write).filter((x) => x !== 'BATCH');
    expect(reads.length).toBeGreaterThan(5);
    expect(reads.filter((x, i) => reads.indexOf(x) !== i)).toEqual([]);
  });
});
