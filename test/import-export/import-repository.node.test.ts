/**
 * The repository in an imported archive: a project.bundle made by the system `git` (time zones other
 * than UTC, an encoding header, a symlink, a merge) imports with the same commit ids git reports, its
 * files and branches readable, merge requests pointing into it; exported again, `git clone` of the new
 * bundle checks out the same ids. A submodule, which the repository model cannot hold, fails the
 * `repository` relation only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { harnessApp } from '../harness/node';
import { download, untar, waitForExport } from './export-support';
import { uploadImport, waitForImport } from './import-support';
import { exportTree, tarGz } from './tar-builder';

function gitRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'import-repo-'));
  const base = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Ann Author', GIT_AUTHOR_EMAIL: 'ann@example.com', GIT_COMMITTER_NAME: 'Carl Committer', GIT_COMMITTER_EMAIL: 'carl@example.com' };
  const git = (args: string[], date = '2024-01-01T10:00:00+00:00') => execFileSync('git', args, { cwd: dir, env: { ...base, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } }).toString().trim();
  git(['init', '-q', '-b', 'main']);
  return { dir, git };
}

async function importWith(token: string, bundle: Uint8Array, relations: Record<string, unknown[]> = {}) {
  const archive = await tarGz([...exportTree({ relations }), { name: './project.bundle', body: bundle }]);
  const res = await uploadImport(token, archive, { path: unique('repo-imp') });
  expect(res.status).toBe(201);
  return waitForImport(token, res.body.id);
}

describe('import of project.bundle', () => {
  it('keeps every commit id git wrote: offsets, an encoding header, a gpgsig, a symlink, a merge; exports them back identically', async () => {
    const { dir, git } = gitRepo();
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    symlinkSync('a.txt', join(dir, 'link'));
    git(['add', '.']);
    git(['commit', '-q', '-m', 'in Paris'], '2024-01-01T10:00:00+02:00');
    git(['checkout', '-q', '-b', 'feature']);
    writeFileSync(join(dir, 'b.txt'), 'caf\xe9\n');
    git(['add', '.']);
    git(['-c', 'i18n.commitEncoding=ISO-8859-1', 'commit', '-q', '-m', 'latin-1 header'], '2024-01-02T10:00:00-05:30');
    git(['checkout', '-q', 'main']);
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\n');
    git(['commit', '-q', '-am', 'main moves'], '2024-01-03T10:00:00+09:00');
    git(['merge', '-q', '--no-ff', '-m', 'Merge feature', 'feature'], '2024-01-04T10:00:00-08:00');
    expect(git(['cat-file', '-p', 'feature'])).toMatch(/^encoding ISO-8859-1$/m);
    // A signed commit (gpgsig with its continuation lines), written as git stores one.
    const mainTree = git(['rev-parse', 'main^{tree}']);
    const signed = `tree ${mainTree}\nparent ${git(['rev-parse', 'main'])}\nauthor Ann Author <ann@example.com> 1704196800 +0100\ncommitter Carl Committer <carl@example.com> 1704196800 +0100\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nSigned work\n`;
    const signedId = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: dir, input: signed }).toString().trim();
    git(['update-ref', 'refs/heads/signed', signedId]);
    git(['bundle', 'create', '-q', 'b.bundle', '--all']);
    const ids = git(['rev-list', '--all']).split('\n').sort();
    const featureHead = git(['rev-parse', 'feature']);
    const base = git(['merge-base', 'main', 'feature']);

    const u = await createUser();
    const t = u.token;
    const done = await importWith(t, new Uint8Array(readFileSync(join(dir, 'b.bundle'))), {
      merge_requests: [{ iid: 1, title: 'Feature', source_branch: 'feature', target_branch: 'main', state: 'merged', author_id: 1, diff_head_sha: '0'.repeat(40), merge_request_diff: { head_commit_sha: featureHead, base_commit_sha: base, start_commit_sha: base } }],
    });
    expect(done.body.import_status).toBe('finished');
    expect(done.body.failed_relations).toEqual([]);
    const id = done.body.id;

    const commits = await api(`/projects/${id}/repository/commits?all=true&per_page=100`, { token: t });
    expect(commits.status).toBe(200);
    expect(commits.body.map((c: { id: string }) => c.id).sort()).toEqual(ids);
    const paris = commits.body.find((c: { title: string }) => c.title === 'in Paris');
    expect(new Date(paris.authored_date).toISOString()).toBe('2024-01-01T08:00:00.000Z');
    const branches = (await api(`/projects/${id}/repository/branches`, { token: t })).body.map((b: { name: string; commit: { id: string } }) => [b.name, b.commit.id]);
    expect(branches).toEqual([['feature', featureHead], ['main', git(['rev-parse', 'main'])], ['signed', signedId]]);
    const link = await api(`/projects/${id}/repository/files/link?ref=main`, { token: t });
    expect(link.status).toBe(200);
    expect(Buffer.from(link.body.content, 'base64').toString()).toBe('a.txt');
    const tree = (await api(`/projects/${id}/repository/tree?ref=main`, { token: t })).body;
    expect(tree.find((e: { name: string }) => e.name === 'link').mode).toBe('120000');
    const project = (await api(`/projects/${id}`, { token: t })).body;
    expect(project.default_branch).toBe('main');

    // The merge request points into the imported history (an unknown diff_head_sha is not kept).
    const mr = (await api(`/projects/${id}/merge_requests/1`, { token: t })).body;
    expect([mr.sha, mr.diff_refs?.head_sha, mr.diff_refs?.base_sha]).toEqual([featureHead, featureHead, base]);

    // Exported again, git reads the same ids: the raw objects of the non-UTC commits went back out.
    expect((await api(`/projects/${id}/export`, { method: 'POST', token: t })).status).toBe(202);
    await waitForExport(id, t);
    const files = await untar(await (await download(id, t)).arrayBuffer());
    const out = mkdtempSync(join(tmpdir(), 'reexport-'));
    writeFileSync(join(out, 'p.bundle'), files.get('./project.bundle')!);
    execFileSync('git', ['clone', '-q', '--mirror', join(out, 'p.bundle'), join(out, 'c')], { env: { ...process.env, HOME: out } });
    execFileSync('git', ['fsck', '--strict', '--no-progress'], { cwd: join(out, 'c'), env: { ...process.env, HOME: out } });
    expect(execFileSync('git', ['rev-list', '--all'], { cwd: join(out, 'c') }).toString().trim().split('\n').sort()).toEqual(ids);

    // Deleting the project takes the raw commit objects with it, not only the file blobs.
    const { blobs } = await harnessApp();
    const rawKey = `repositories/${id}/${paris.id}`;
    expect(await blobs.get(rawKey)).not.toBeNull();
    expect((await api(`/projects/${id}`, { method: 'DELETE', token: t })).status).toBe(202);
    expect(await blobs.get(rawKey)).toBeNull();
    expect(await blobs.get(`repositories/${id}/${git(['rev-parse', 'main:a.txt'])}`)).toBeNull();
  });

  it('a submodule fails the repository relation only: the rest of the project imports', async () => {
    const { dir, git } = gitRepo();
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    git(['add', '.']);
    git(['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/lib`]);
    git(['commit', '-q', '-m', 'with a submodule']);
    git(['bundle', 'create', '-q', 'b.bundle', '--all']);
    const u = await createUser();
    const done = await importWith(u.token, new Uint8Array(readFileSync(join(dir, 'b.bundle'))), { labels: [{ title: 'kept', color: '#00ff00', type: 'ProjectLabel' }] });
    expect(done.body.import_status).toBe('finished');
    expect(done.body.failed_relations).toEqual([expect.objectContaining({ relation_name: 'repository', exception_class: 'Gitlab::ImportExport::Error', exception_message: 'The repository holds a submodule (mode 160000), which this server cannot hold' })]);
    const labels = (await api(`/projects/${done.body.id}/labels`, { token: u.token })).body;
    expect(labels.map((l: { name: string }) => l.name)).toEqual(['kept']);
    expect((await api(`/projects/${done.body.id}/repository/branches`, { token: u.token })).body).toEqual([]);
  });
});
