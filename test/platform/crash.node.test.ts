/**
 * Crash safety of the Node runtime on real storage (issue 12): the server runs as a child process
 * on a database file and a blob folder, takes 200 writes, and is killed with SIGKILL the moment the
 * last one is acknowledged; restarted on the same files, it must still have every acknowledged
 * write. The database is opened with journal_mode = WAL and synchronous = FULL (src/node-app.ts):
 * a commit is in the WAL, fsynced, before the response is sent, so it survives a process kill (and
 * a power loss); blobs are fsynced and renamed into place before the commit that refers to them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createNodeApp } from '../../src/node-app';

const REPO = resolve(import.meta.dirname, '../..');
const ROOT_TOKEN = 'glpat-crash-test-root-token-0123456789';
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

/**
 * `src/node.ts` under tsx's loader, as one process (`node --import tsx`): the tsx CLI would run the
 * server in a grandchild that a SIGKILL of the CLI leaves running.
 */
async function startServer(dir: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/node.ts'], {
    cwd: REPO,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${join(dir, 'db')}`, BLOB_ROOT: join(dir, 'blobs'), ROOT_TOKEN, VALIDATE_RESPONSES: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) {
        clearTimeout(timer);
        ok();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code, signal) => fail(new Error(`server exited (${code ?? signal}): ${output}`)));
  });
  return { child, base: `http://127.0.0.1:${port}/api/v4` };
}

async function call(base: string, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
  const res = await fetch(`${base}${path}`, { method, headers: { 'PRIVATE-TOKEN': ROOT_TOKEN, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

describe('a server killed with SIGKILL right after acknowledging 200 writes', () => {
  it('has every acknowledged write after a restart on the same files', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-crash-'));
    const first = await startServer(dir);
    const started = Date.now();
    let acknowledged = 0;
    const write = async (path: string, body: unknown, method = 'POST') => {
      const res = await call(first.base, path, body, method);
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      acknowledged++;
      return res.body;
    };

    // 1 project + 3 commits (blobs on disk) + 10 labels + 120 issues + 36 notes + 30 label updates = 200.
    const project = await write('/projects', { name: 'crash', visibility: 'private' });
    const files = new Map<string, string>();
    for (let n = 0; n < 3; n++) {
      const path = `docs/file-${n}.txt`;
      const content = `content ${n} `.repeat(500 + n);
      files.set(path, content);
      await write(`/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: `commit ${n}`, actions: [{ action: 'create', file_path: path, content }] });
    }
    const labels = Array.from({ length: 10 }, (_, i) => `crash-${i}`);
    await Promise.all(labels.map((name) => write(`/projects/${project.id}/labels`, { name, color: '#428BCA' })));
    const titles = new Map<number, string>();
    for (let batch = 0; batch < 12; batch++) {
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => write(`/projects/${project.id}/issues`, { title: `issue ${batch * 10 + i}` })));
      for (const issue of made) titles.set(issue.iid, issue.title);
    }
    const noted = Array.from({ length: 36 }, (_, i) => ({ iid: (i % 120) + 1, body: `note ${i}` }));
    await Promise.all(noted.map((n) => write(`/projects/${project.id}/issues/${n.iid}/notes`, { body: n.body })));
    const labelled = Array.from({ length: 30 }, (_, i) => ({ iid: 120 - i, label: labels[i % 10] }));
    // The last acknowledgement kills the server: nothing after it may be needed to keep the writes.
    await Promise.all(labelled.map((u) => write(`/projects/${project.id}/issues/${u.iid}`, { add_labels: u.label }, 'PUT')));
    first.child.kill('SIGKILL');
    const writesMs = Date.now() - started;
    const exit = await new Promise<string | null>((ok) => (first.child.exitCode !== null || first.child.signalCode !== null ? ok(first.child.signalCode) : first.child.once('exit', (_c, s) => ok(s))));
    expect(exit).toBe('SIGKILL');
    expect(acknowledged).toBe(200);

    const second = await startServer(dir);
    try {
      const issues: Array<{ iid: number; title: string; labels: string[]; user_notes_count: number }> = [];
      for (let page = 1; page <= 2; page++) issues.push(...(await call(second.base, `/projects/${project.id}/issues?per_page=100&page=${page}`)).body);
      expect(issues).toHaveLength(120);
      for (const issue of issues) {
        expect(issue.title).toBe(titles.get(issue.iid));
        expect(issue.labels).toEqual(labelled.filter((u) => u.iid === issue.iid).map((u) => u.label));
        expect(issue.user_notes_count).toBe(noted.filter((n) => n.iid === issue.iid).length);
      }
      const noteBodies = await Promise.all([...new Set(noted.map((n) => n.iid))].map(async (iid) => (await call(second.base, `/projects/${project.id}/issues/${iid}/notes?per_page=100`)).body.map((n: { body: string }) => n.body)));
      expect(noteBodies.flat().filter((b: string) => b.startsWith('note ')).sort()).toEqual(noted.map((n) => n.body).sort());
      const storedLabels = (await call(second.base, `/projects/${project.id}/labels?per_page=100`)).body.map((l: { name: string }) => l.name);
      expect(storedLabels.sort()).toEqual([...labels].sort());
      expect((await call(second.base, `/projects/${project.id}/repository/commits`)).body.map((c: { title: string }) => c.title)).toEqual(['commit 2', 'commit 1', 'commit 0']);
      for (const [path, content] of files) {
        const raw = await fetch(`${second.base}/projects/${project.id}/repository/files/${encodeURIComponent(path)}/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': ROOT_TOKEN } });
        expect(raw.status).toBe(200);
        expect(await raw.text()).toBe(content);
      }
      // The blob store's temporary folder holds nothing once the restarted server swept it.
      expect(readdirSync(join(dir, 'blobs', '.tmp'))).toEqual([]);
      console.log(JSON.stringify({ crash_test: { writes: acknowledged, writes_ms: writesMs, issues: issues.length, notes: noted.length, label_updates: labelled.length, commits: files.size } }));
    } finally {
      second.child.kill('SIGKILL');
    }
  });
});

describe('the database the Node runtime opens', () => {
  it('runs in WAL mode with synchronous FULL, never OFF', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-pragma-'));
    const { db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: join(REPO, 'drizzle'), env: { PASSWORD_HASH_ITERATIONS: '1000' } });
    const synchronous = (await db.get<{ synchronous: number }>(sql`PRAGMA synchronous`))!.synchronous;
    // 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    expect(synchronous).not.toBe(0);
    expect(synchronous).toBe(2);
    expect((await db.get<{ journal_mode: string }>(sql`PRAGMA journal_mode`))!.journal_mode).toBe('wal');
  });
});
