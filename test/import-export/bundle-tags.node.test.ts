/**
 * Tags in project.bundle (issue 15 item 1, tags from main's h18-tags): an export's bundle carries
 * lightweight tags as refs/tags/<name> and annotated ones as tag objects (pack type 4) with their
 * ref, so `git clone` of it lists the tags with the ids the tags API reports; and a bundle git wrote
 * (an annotated tag in a time zone other than UTC, which this server's tag writer would not produce)
 * imports into repo_tags and is exported again with the very same tag object; a tag of a tag, which
 * repo_tags cannot hold, is left out without failing the rest.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harnessApp } from '../harness/node';
import { readBundle } from '../../src/import-export/bundle-read';
import { importBundle } from '../../src/import-export/bundle-import';
import { bundleMember, writeBundleObjects } from '../../src/import-export/bundle-write';
import { jobHandlers } from '../../src/platform/jobs-consumer';
import { api, createUser, unique } from '../support';
import { download, untar, waitForExport } from './export-support';

const env = (home: string) => ({ ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' });
const run = (args: string[], cwd: string, extra: Record<string, string> = {}) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...env(cwd), ...extra } });

/** `<id> <type> <name>` of every tag of a clone of `bundle`, after `git bundle verify` accepted it. */
function clonedTags(bundle: Uint8Array): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-tags-'));
  writeFileSync(join(dir, 'p.bundle'), bundle);
  run(['init', '-q', join(dir, 'empty')], dir);
  expect(run(['bundle', 'verify', join(dir, 'p.bundle')], join(dir, 'empty'))).toMatch(/records a complete history/);
  run(['clone', '-q', join(dir, 'p.bundle'), join(dir, 'clone')], dir);
  run(['fsck', '--strict'], join(dir, 'clone'));
  return run(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname:short) %(*objectname)', 'refs/tags'], join(dir, 'clone')).trim().split('\n');
}

const apiTags = async (projectId: number, token: string) =>
  ((await api(`/projects/${projectId}/repository/tags?order_by=name&sort=asc`, { token })).body as { name: string; target: string; message: string | null; commit: { id: string }; created_at: string | null }[]).map((t) => ({
    name: t.name,
    target: t.target,
    commit: t.commit.id,
    message: t.message,
    created_at: t.created_at,
  }));

afterAll(() => {
  delete jobHandlers['test.bundle-tags'];
});

describe('tags in project.bundle', () => {
  it('an export carries lightweight and annotated tags: git clone lists them with the API ids', async () => {
    const u = await createUser();
    const t = u.token;
    const p = (await api('/projects', { token: t, body: { name: unique('bt') } })).body;
    const P = `/projects/${p.id}`;
    expect((await api(`${P}/repository/commits`, { token: t, body: { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: '1\n' }] } })).status).toBe(201);
    expect((await api(`${P}/repository/tags`, { token: t, body: { tag_name: 'v1.0', ref: 'main' } })).status).toBe(201);
    expect((await api(`${P}/repository/tags`, { token: t, body: { tag_name: 'v1.1', ref: 'main', message: 'Release 1.1\n\nNotes' } })).status).toBe(201);
    expect((await api(`${P}/repository/commits`, { token: t, body: { branch: 'main', commit_message: 'two', actions: [{ action: 'update', file_path: 'a.txt', content: '2\n' }] } })).status).toBe(201);
    expect((await api(`${P}/repository/tags`, { token: t, body: { tag_name: 'v2.0', ref: 'main', message: 'Two' } })).status).toBe(201);
    const tags = await apiTags(p.id, t);
    expect(tags.map((x) => x.name)).toEqual(['v1.0', 'v1.1', 'v2.0']);

    expect((await api(`${P}/export`, { method: 'POST', token: t })).status).toBe(202);
    await waitForExport(p.id, t);
    const files = await untar(await (await download(p.id, t)).arrayBuffer());
    const bundle = files.get('./project.bundle')!;
    // Annotated: the ref names the tag object, which peels to the commit; lightweight: the commit.
    expect(clonedTags(bundle)).toEqual(tags.map((x) => (x.message ? `${x.target} tag ${x.name} ${x.commit}` : `${x.target} commit ${x.name} `)));
    expect(tags[1].target).not.toBe(tags[1].commit);
  });

  it('a bundle git wrote imports its tags (a tag object in another time zone kept exactly) and exports them again with the same ids', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-tags-src-'));
    run(['init', '-q', '-b', 'main', 'repo'], dir);
    const repo = join(dir, 'repo');
    writeFileSync(join(repo, 'f.txt'), 'x\n');
    run(['add', 'f.txt'], repo);
    run(['commit', '-q', '-m', 'first'], repo, { GIT_AUTHOR_DATE: '1700000000 +0000', GIT_COMMITTER_DATE: '1700000000 +0000' });
    run(['tag', 'light'], repo);
    run(['tag', '-a', 'v0.1', '-m', 'Zoned release'], repo, { GIT_COMMITTER_DATE: '1700000100 +0200' });
    // A commit only a tag reaches: part of the history all the same.
    run(['checkout', '-q', '--detach'], repo);
    writeFileSync(join(repo, 'f.txt'), 'y\n');
    run(['commit', '-q', '-am', 'detached'], repo, { GIT_AUTHOR_DATE: '1700000200 +0000', GIT_COMMITTER_DATE: '1700000200 +0000' });
    run(['tag', '-a', 'side', '-m', 'Side'], repo, { GIT_COMMITTER_DATE: '1700000300 +0000' });
    run(['checkout', '-q', 'main'], repo);
    // A tag of a tag: repo_tags has no place for it (the tags API dereferences to a commit), so it is left out.
    run(['tag', '-a', 'outer', 'v0.1', '-m', 'Nested'], repo, { GIT_COMMITTER_DATE: '1700000400 +0000' });
    run(['bundle', 'create', '-q', join(dir, 'src.bundle'), '--all'], repo);
    const want = run(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname:short) %(*objectname)', 'refs/tags'], repo)
      .trim()
      .split('\n')
      .filter((l) => l.split(' ')[2] !== 'outer');
    expect(want).toHaveLength(3);

    const u = await createUser();
    const p = (await api('/projects', { token: u.token, body: { name: unique('bt-in') } })).body;
    const bundle = readBundle(new Uint8Array(readFileSync(join(dir, 'src.bundle'))));
    let exported: Uint8Array | null = null;
    jobHandlers['test.bundle-tags'] = async (_m, deps) => {
      await importBundle(deps.db, deps.blobs, p.id, bundle);
      // A redelivered message writes nothing twice.
      await importBundle(deps.db, deps.blobs, p.id, bundle);
      const key = `exports/${p.id}/bt/parts/project.bundle.objects`;
      const objects = await writeBundleObjects(deps.db, deps.blobs, p.id, 'main', key);
      const parts: Uint8Array[] = [];
      for await (const c of bundleMember(deps.blobs, key, objects!).bytes) parts.push(c);
      exported = Buffer.concat(parts);
    };
    const { jobs } = await harnessApp();
    await jobs.send({ type: 'test.bundle-tags', id: unique('j') });
    await jobs.idle();

    const tags = await apiTags(p.id, u.token);
    const id = (name: string) => want.find((l) => l.split(' ')[2] === name)!.split(' ');
    expect(tags).toEqual([
      { name: 'light', target: id('light')[0], commit: id('light')[0], message: null, created_at: null },
      { name: 'side', target: id('side')[0], commit: id('side')[3], message: 'Side', created_at: '2023-11-14T22:18:20.000+00:00' },
      { name: 'v0.1', target: id('v0.1')[0], commit: id('v0.1')[3], message: 'Zoned release', created_at: '2023-11-14T22:15:00.000+00:00' },
    ]);
    expect((await api(`/projects/${p.id}/repository/commits/${id('side')[3]}`, { token: u.token })).body.title).toBe('detached');
    expect(clonedTags(exported!)).toEqual(want);
    expect(tags.map((x) => x.name)).not.toContain('outer');
  });
});
