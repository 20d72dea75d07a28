/**
 * The stored repository: branches, commits, their file manifests and the blobs (in the blob store at
 * `repositories/<project id>/<blob id>`), read by name or id; branch listing; what goes with a
 * deleted project.
 */
import { and, asc, eq, inArray, like, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { Db } from '../db/client';
import { protectedTagCreateAccessLevels, protectedTags, repoBranches, repoBranchUpdates, repoCommitFiles, repoCommitParents, repoCommits, repoTags } from '../db/schema';
import { memo, primeMemo } from '../platform/read-memo';
import type { ManifestEntry } from './git-objects';
import { manifestCache } from './sha-cache';
import { batchReads } from '../db/batch-reads';
import { nameMatches } from './branch-reads';

export type CommitRow = typeof repoCommits.$inferSelect;
export type BranchRow = typeof repoBranches.$inferSelect;

export interface FileEntry extends ManifestEntry {
  size: number;
}
export type Manifest = Map<string, FileEntry>;

export const blobKey = (projectId: number, sha: string) => `repositories/${projectId}/${sha}`;

export async function findBranch(db: Db, projectId: number, name: string): Promise<BranchRow | undefined> {
  return db.select().from(repoBranches).where(and(eq(repoBranches.projectId, projectId), eq(repoBranches.name, name))).get();
}

export async function branchHead(db: Db, projectId: number, name: string): Promise<string | null> {
  return (await findBranch(db, projectId, name))?.commitSha ?? null;
}

/**
 * Reads shared by many merge requests of one page (lib/read-memo.ts): the same branch head or
 * manifest is read once while a memo is open, as usual otherwise (the merge base: history.ts).
 */
export const memoBranchHead = (c: Context<AppEnv>, projectId: number, name: string) => memo(c, `head:${projectId}:${name}`, () => branchHead(c.var.db, projectId, name));
export const memoManifest = (c: Context<AppEnv>, projectId: number, sha: string | null) => memo(c, `manifest:${projectId}:${sha}`, () => manifestOf(c.var.db, projectId, sha));

/** Seeds the branch-head memo for many branches with one query (a missing branch is remembered as null). */
export async function primeBranchHeads(c: Context<AppEnv>, refs: { projectId: number; name: string }[]): Promise<void> {
  const byProject = new Map<number, Set<string>>();
  for (const r of refs) (byProject.get(r.projectId) ?? byProject.set(r.projectId, new Set()).get(r.projectId)!).add(r.name);
  const entries: [string, unknown][] = [];
  for (const [projectId, names] of byProject) {
    const list = [...names];
    for (let i = 0; i < list.length; i += 90) {
      const part = list.slice(i, i + 90);
      const rows = await c.var.db
        .select({ name: repoBranches.name, sha: repoBranches.commitSha })
        .from(repoBranches)
        .where(and(eq(repoBranches.projectId, projectId), inArray(repoBranches.name, part)))
        .all();
      const found = new Map(rows.map((r) => [r.name, r.sha]));
      for (const n of part) entries.push([`head:${projectId}:${n}`, found.get(n) ?? null]);
    }
  }
  primeMemo(c, entries);
}

export async function hasCommits(db: Db, projectId: number): Promise<boolean> {
  return (await db.select({ one: sql`1` }).from(repoBranches).where(eq(repoBranches.projectId, projectId)).limit(1).get()) != null;
}

export async function findCommit(db: Db, projectId: number, sha: string): Promise<CommitRow | undefined> {
  return db.select().from(repoCommits).where(and(eq(repoCommits.projectId, projectId), eq(repoCommits.sha, sha))).get();
}

/** A branch name first, then a tag, else a full or abbreviated (4+ hex) commit id. */
export async function resolveRef(db: Db, projectId: number, ref: string): Promise<CommitRow | null> {
  const branch = await findBranch(db, projectId, ref);
  if (branch) return (await findCommit(db, projectId, branch.commitSha)) ?? null;
  const tag = await db.select({ sha: repoTags.commitSha }).from(repoTags).where(and(eq(repoTags.projectId, projectId), eq(repoTags.name, ref))).get();
  if (tag) return (await findCommit(db, projectId, tag.sha)) ?? null;
  const hex = ref.toLowerCase();
  if (!/^[0-9a-f]{4,40}$/.test(hex)) return null;
  if (hex.length === 40) return (await findCommit(db, projectId, hex)) ?? null;
  const rows = await db
    .select()
    .from(repoCommits)
    .where(and(eq(repoCommits.projectId, projectId), like(repoCommits.sha, `${hex}%`)))
    .limit(2)
    .all();
  // An ambiguous abbreviation names nothing, as in git.
  return rows.length === 1 ? rows[0] : null;
}

/** The files of a commit; a commit's files never change, so they are read once per isolate (sha-cache.ts). Callers get their own copy. */
export async function manifestOf(db: Db, projectId: number, sha: string | null): Promise<Manifest> {
  if (!sha) return new Map();
  const known = manifestCache<Manifest>(db).get(`${projectId}:${sha}`);
  if (known) return new Map(known);
  return rememberManifest(db, projectId, sha, await db.select().from(repoCommitFiles).where(manifestWhere(projectId, sha)).all());
}

/** Several commits' files: those this isolate has not cached are read in one round trip. */
export async function manifestsOf(db: Db, projectId: number, shas: readonly (string | null)[]): Promise<Manifest[]> {
  const cache = manifestCache<Manifest>(db);
  const known = new Map<string, Manifest>();
  for (const sha of shas) {
    const hit = sha === null ? undefined : cache.get(`${projectId}:${sha}`);
    if (hit) known.set(sha!, hit);
  }
  const missing = [...new Set(shas.filter((sha): sha is string => sha !== null && !known.has(sha)))];
  if (missing.length) {
    const rows = await batchReads(db, missing.map((sha) => db.select().from(repoCommitFiles).where(manifestWhere(projectId, sha))));
    missing.forEach((sha, i) => known.set(sha, rememberManifest(db, projectId, sha, rows[i] as (typeof repoCommitFiles.$inferSelect)[])));
  }
  return shas.map((sha) => new Map(sha === null ? [] : known.get(sha)));
}

/** The rows of a manifest read, for a batch whose results `rememberManifest` takes. */
export const manifestWhere = (projectId: number, sha: string | SQL) => and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha as string));

/** A manifest from its rows, kept in the isolate's cache when the commit has files (an empty one may not be written yet). */
export function rememberManifest(db: Db, projectId: number, sha: string, rows: (typeof repoCommitFiles.$inferSelect)[]): Manifest {
  const out: Manifest = new Map();
  for (const r of rows) out.set(r.path, { blobSha: r.blobSha, mode: r.mode, size: r.size });
  if (out.size) manifestCache<Manifest>(db).set(`${projectId}:${sha}`, new Map(out));
  return out;
}

/** A cached manifest, or undefined without reading. */
export function cachedManifest(db: Db, projectId: number, sha: string): Manifest | undefined {
  const known = manifestCache<Manifest>(db).get(`${projectId}:${sha}`);
  return known ? new Map(known) : undefined;
}

export async function fileAt(db: Db, projectId: number, sha: string, path: string): Promise<FileEntry | null> {
  const r = await db
    .select()
    .from(repoCommitFiles)
    .where(and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha), eq(repoCommitFiles.path, path)))
    .get();
  return r ? { blobSha: r.blobSha, mode: r.mode, size: r.size } : null;
}

export async function readBlob(c: Context<AppEnv>, projectId: number, sha: string): Promise<Uint8Array | null> {
  const obj = await c.var.blobs.get(blobKey(projectId, sha));
  if (!obj) return null;
  return new Uint8Array(await new Response(obj.body).arrayBuffer());
}

/** Branch names of a project, for listing (search is a case-insensitive substring, as Gitaly's). */
export async function listBranches(db: Db, projectId: number, o: { search?: string; limit: number; offset: number }) {
  const conds = [eq(repoBranches.projectId, projectId)];
  // BranchesFinder: ^prefix, suffix$, else a substring; case-insensitive (branch-reads.ts).
  if (o.search) conds.push(nameMatches(o.search));
  const where = and(...conds);
  const rows = await db.select().from(repoBranches).where(where).orderBy(asc(repoBranches.name)).limit(o.limit).offset(o.offset).all();
  return { rows, where };
}

/** Rows removed with a project (blob files: `repositoryBlobKeys` at the head of the batch). */
export function repositoryDeletionStatements(db: Db, projectIds: SQL | { getSQL(): SQL }): BatchItem<'sqlite'>[] {
  const within = (col: Parameters<typeof inArray>[0]) => inArray(col, projectIds as never);
  return [
    db.delete(repoBranchUpdates).where(within(repoBranchUpdates.projectId)),
    db.delete(repoBranches).where(within(repoBranches.projectId)),
    db.delete(repoTags).where(within(repoTags.projectId)),
    db.delete(protectedTagCreateAccessLevels).where(inArray(protectedTagCreateAccessLevels.protectedTagId, db.select({ id: protectedTags.id }).from(protectedTags).where(within(protectedTags.projectId)))),
    db.delete(protectedTags).where(within(protectedTags.projectId)),
    db.delete(repoCommitFiles).where(within(repoCommitFiles.projectId)),
    db.delete(repoCommitParents).where(within(repoCommitParents.projectId)),
    db.delete(repoCommits).where(within(repoCommits.projectId)),
  ];
}

/** Blob-store keys of the projects' repository contents: a read for the head of the deleting batch (platform/cascade.ts). */
export function repositoryBlobKeys(db: Db, projectIds: SQL | { getSQL(): SQL }) {
  return {
    query: db.selectDistinct({ projectId: repoCommitFiles.projectId, blob: repoCommitFiles.blobSha }).from(repoCommitFiles).where(inArray(repoCommitFiles.projectId, projectIds as never)),
    keys: (rows: { projectId: number; blob: string }[]) => rows.map((r) => blobKey(r.projectId, r.blob)),
  };
}
