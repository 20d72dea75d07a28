/**
 * The dependency scanner: a push hook (repository/push.ts; src/app.ts registers it). When a push moves
 * the default branch and its lockfiles differ from the ones last read (by path and blob), the
 * lockfiles at the new head are parsed and the project's dependency rows replaced, in the push's own
 * batch: the list always describes the default branch's head, and a push that fails writes neither.
 * What it reads (the default branch, the lockfiles last read) travels in the pusher's first batch.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { batchReads } from '../db/batch-reads';
import type { Db } from '../db/client';
import { projectDependencies, projectDependencyFiles, projects } from '../db/schema';
import type { AppEnv } from '../platform/context';
import type { Push } from '../repository/push';
import { readBlob } from '../repository/repository-store';
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

/** The dependencies one lockfile pins; none when it cannot be read or parsed (the push still lands). */
async function scanFile(c: Context<AppEnv>, push: Push, path: string, blobSha: string, size: number): Promise<Row[]> {
  const format = formatOf(path);
  if (!format || size > MAX_LOCKFILE_BYTES) return [];
  try {
    // A blob this push adds is not stored until just before its batch: it comes with the push.
    const bytes = push.blobs?.get(blobSha) ?? (await readBlob(c, push.projectId, blobSha));
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

export async function scanOnPush(c: Context<AppEnv>, push: Push, read?: readonly unknown[]): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  const [project, scanned] = (read ?? (await batchReads(db, reads(db, push.projectId)))) as Read;
  // A project's first branch becomes its default in the push's own batch (commit-writer.ts).
  if ((project[0]?.defaultBranch ?? push.branch) !== push.branch) return [];
  const lockfiles = [...push.manifest].filter(([path]) => formatOf(path)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const before = new Map(scanned.map((f) => [f.path, f.blobSha]));
  if (lockfiles.length === before.size && lockfiles.every(([path, f]) => before.get(path) === f.blobSha)) return [];

  const found = await Promise.all(lockfiles.map(([path, f]) => scanFile(c, push, path, f.blobSha, f.size)));
  const rows = found.flatMap((list) => list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0)));
  const pid = push.projectId;
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
scanOnPush.reads = (db: Db, projectId: SQL) => reads(db, projectId);
