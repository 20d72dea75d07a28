/**
 * The dependency scanner: a push hook (repository/push.ts; src/app.ts registers it). When a push moves
 * the default branch and its lockfiles differ from the ones last read (by path and blob), the
 * lockfiles at the new head are parsed and the project's dependency rows replaced, in the push's own
 * batch: the list always describes the default branch's head, and a push that fails writes neither.
 * What it reads (the default branch, the lockfiles last read) travels in the pusher's first batch.
 * A merged merge request is such a push (merge-requests/merge-request-repo.ts); a new default
 * branch or an imported repository reads the list again through `scanOnDefaultBranch`.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { batchReads } from '../db/batch-reads';
import type { Db } from '../db/client';
import { projectDependencies, projectDependencyFiles, projects, repoCommitFiles } from '../db/schema';
import type { AppEnv } from '../platform/context';
import type { Push } from '../repository/push';
import { blobKey, type Manifest } from '../repository/repository-store';
import type { BlobStore } from '../platform/blobs';
import type { Storage } from '../projects/default-branch-hooks';
import { ecosystemOf, packageKey } from './ecosystems';
import { formatOf } from './parsers';
import type { ParsedDependency } from './parsers/types';

/** Larger files are not read: no real lockfile comes near it, and parsing one costs the push's time. */
const MAX_LOCKFILE_BYTES = 20 * 1024 * 1024;

/** Rows kept per project, and the size of one statement's JSON: far above real projects, well under D1's 2 MB value limit, so no lockfile can fail the push's batch. */
const MAX_ROWS = 100_000;
const MAX_JSON_CHARS = 500_000;
const MAX_TEXT = 1000;

/** JSON arrays of `rows`, each under MAX_JSON_CHARS (one insert each, in order). */
function* jsonChunks(rows: unknown[][]): Generator<string> {
  let part: string[] = [];
  let size = 0;
  for (const row of rows) {
    const text = JSON.stringify(row);
    if (part.length && size + text.length > MAX_JSON_CHARS) {
      yield `[${part.join(',')}]`;
      part = [];
      size = 0;
    }
    part.push(text);
    size += text.length + 1;
  }
  if (part.length) yield `[${part.join(',')}]`;
}

type Read = [{ defaultBranch: string | null }[], { path: string; blobSha: string }[]];

const reads = (db: Db, projectId: SQL | number) =>
  [
    db.select({ defaultBranch: projects.defaultBranch }).from(projects).where(sql`${projects.id} = ${projectId}`),
    db.select({ path: projectDependencyFiles.path, blobSha: projectDependencyFiles.blobSha }).from(projectDependencyFiles).where(sql`${projectDependencyFiles.projectId} = ${projectId}`),
  ] as const;

interface Row extends ParsedDependency {
  packageManager: string;
  path: string;
}

/** The dependencies one lockfile pins; none when it cannot be read or parsed (the write still lands). */
async function scanFile(s: Storage, projectId: number, added: ReadonlyMap<string, Uint8Array> | undefined, path: string, blobSha: string, size: number): Promise<Row[]> {
  const format = formatOf(path);
  if (!format || size > MAX_LOCKFILE_BYTES) return [];
  try {
    // A blob a push adds is not stored until just before its batch: it comes with the push.
    const bytes = added?.get(blobSha) ?? (await readStoredBlob(s.blobs, projectId, blobSha));
    if (!bytes) return [];
    const text = new TextDecoder().decode(bytes);
    // No real package name or version comes near the bound: a longer one is not a pin.
    return format
      .parse(text)
      .filter((d) => d.name.length <= MAX_TEXT && d.version.length <= MAX_TEXT)
      .map((d) => ({ name: d.name, version: d.version, packageManager: format.packageManager, path }));
  } catch {
    return [];
  }
}

async function readStoredBlob(blobs: BlobStore, projectId: number, sha: string): Promise<Uint8Array | null> {
  const obj = await blobs.get(blobKey(projectId, sha));
  return obj ? new Uint8Array(await new Response(obj.body).arrayBuffer()) : null;
}

/**
 * The statements that make project `pid`'s dependency list the one of `files` (the default branch's
 * files), none when its lockfiles are the ones last read (`scanned`, by path and blob).
 */
async function listStatements(s: Storage, pid: number, files: Manifest, scanned: { path: string; blobSha: string }[], added?: ReadonlyMap<string, Uint8Array>): Promise<BatchItem<'sqlite'>[]> {
  const db = s.db;
  const lockfiles = [...files].filter(([path]) => formatOf(path)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const before = new Map(scanned.map((f) => [f.path, f.blobSha]));
  if (lockfiles.length === before.size && lockfiles.every(([path, f]) => before.get(path) === f.blobSha)) return [];

  const found = await Promise.all(lockfiles.map(([path, f]) => scanFile(s, pid, added, path, f.blobSha, f.size)));
  const rows = found.flatMap((list) => list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0)));
  const out: BatchItem<'sqlite'>[] = [
    db.delete(projectDependencies).where(sql`${projectDependencies.projectId} = ${pid}`),
    db.delete(projectDependencyFiles).where(sql`${projectDependencyFiles.projectId} = ${pid}`),
  ];
  // One statement each for any number of rows (bound parameters per row would pass D1's limit of
  // 100): the rows travel as one JSON array, inserted in its order so that ids follow it.
  if (lockfiles.length) {
    const json = JSON.stringify(lockfiles.map(([path, f]) => [path, f.blobSha]));
    out.push(db.insert(projectDependencyFiles).select(sql`SELECT ${pid}, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${json})`));
  }
  for (const json of jsonChunks(rows.slice(0, MAX_ROWS).map((r) => {
    const ecosystem = ecosystemOf(r.packageManager);
    return [r.name, r.version, r.packageManager, r.path, ecosystem, packageKey(ecosystem, r.name)];
  })))
    out.push(
      // Columns in the table's order (an insert from a select names them all); a NULL id is the next one.
      db.insert(projectDependencies).select(
        sql`SELECT NULL, ${pid}, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]') FROM json_each(${json}) ORDER BY key`,
      ),
    );
  return out;
}

export async function scanOnPush(c: Context<AppEnv>, push: Push, read?: readonly unknown[]): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  const [project, scanned] = (read ?? (await batchReads(db, reads(db, push.projectId)))) as Read;
  // A project's first branch becomes its default in the push's own batch (commit-writer.ts).
  if ((project[0]?.defaultBranch ?? push.branch) !== push.branch) return [];
  return listStatements({ db, blobs: c.var.blobs }, push.projectId, push.manifest, scanned, push.blobs);
}
scanOnPush.reads = (db: Db, projectId: SQL) => reads(db, projectId);

/**
 * Another branch became the default, or an import wrote the repository (projects/default-branch-hooks.ts):
 * the list is read again from the files at the default branch's head, in the change's batch. The
 * reads (the lockfiles last read, the file list at the branch's head) travel in the caller's first batch.
 */
export async function scanOnDefaultBranch(s: Storage, projectId: number, read: readonly unknown[]): Promise<BatchItem<'sqlite'>[]> {
  const [scanned, files] = read as [{ path: string; blobSha: string }[], { path: string; blobSha: string; mode: string; size: number }[]];
  const manifest: Manifest = new Map(files.map((f) => [f.path, { blobSha: f.blobSha, mode: f.mode, size: f.size }]));
  return listStatements(s, projectId, manifest, scanned);
}
scanOnDefaultBranch.reads = (db: Db, projectId: SQL | number, branch: SQL | string) => [
  reads(db, projectId)[1],
  db
    .select({ path: repoCommitFiles.path, blobSha: repoCommitFiles.blobSha, mode: repoCommitFiles.mode, size: repoCommitFiles.size })
    .from(repoCommitFiles)
    .where(
      sql`${repoCommitFiles.projectId} = ${projectId} AND ${repoCommitFiles.commitSha} = (SELECT db_rb.commit_sha FROM repo_branches db_rb WHERE db_rb.project_id = ${projectId} AND db_rb.name = ${branch})`,
    ),
];
