/**
 * `project.bundle`: a git bundle (v2) of every branch, as `git bundle create --all` writes it:
 * "# v2 git bundle", one "<sha> <ref>" line per ref (HEAD first), a blank line, then a packfile
 * (version 2) of every commit, tree and blob reachable from the branches, each object's zlib
 * stream undeltified, and the pack's SHA-1. Objects are serialised by repository/git-objects.ts,
 * the same bytes the server hashed their ids from, so `git bundle verify` and `git clone` agree
 * with the ids the API reports.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { repoBranches, repoCommitFiles, repoCommits } from '../db/schema';
import { inJson } from '../db/batch-reads';
import type { BlobStore } from '../platform/blobs';
import { commitBody, type ManifestEntry, treeObjects } from '../repository/git-objects';
import { blobKey } from '../repository/repository-store';
import { rawCommitKey } from './bundle-import';

const commitSha = (body: Uint8Array) => createHash('sha1').update(`commit ${body.byteLength}\0`).update(body).digest('hex');

const OBJ = { commit: 1, tree: 2, blob: 3 } as const;
/** Commits whose file lists are read in one statement. */
const COMMIT_PAGE = 50;
const encoder = new TextEncoder();

/** zlib's format (what a pack holds), synchronously: a stream per object costs more than the compression. */
const deflate = (bytes: Uint8Array): Uint8Array => deflateSync(bytes);

/** The pack object header: type and size, 4 bits then 7 per byte, the high bit meaning "more". */
function objectHeader(type: number, size: number): Uint8Array {
  const out: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  size = Math.floor(size / 16);
  while (size > 0) {
    out.push(byte | 0x80);
    byte = size & 0x7f;
    size = Math.floor(size / 128);
  }
  out.push(byte);
  return new Uint8Array(out);
}

class PackWriter {
  private readonly hash = createHash('sha1');
  readonly chunks: Uint8Array[] = [];
  count = 0;

  private push(bytes: Uint8Array) {
    this.hash.update(bytes);
    this.chunks.push(bytes);
  }

  async add(type: keyof typeof OBJ, body: Uint8Array) {
    this.push(objectHeader(OBJ[type], body.byteLength));
    this.push(deflate(body));
    this.count += 1;
  }

  /** The pack: header with the object count, the objects, the SHA-1 of all of it. */
  finish(): Uint8Array[] {
    const header = new Uint8Array(12);
    header.set(encoder.encode('PACK'), 0);
    const view = new DataView(header.buffer);
    view.setUint32(4, 2);
    view.setUint32(8, this.count);
    const whole = createHash('sha1');
    whole.update(header);
    for (const c of this.chunks) whole.update(c);
    return [header, ...this.chunks, new Uint8Array(whole.digest())];
  }
}

/**
 * The bundle's bytes, or null for a repository without branches (GitLab writes no bundle for an
 * empty repository).
 */
export async function projectBundle(db: Db, blobs: BlobStore, projectId: number, defaultBranch: string | null): Promise<Uint8Array | null> {
  const [branches, commits] = await db.batch([
    db.select({ name: repoBranches.name, sha: repoBranches.commitSha }).from(repoBranches).where(eq(repoBranches.projectId, projectId)).orderBy(asc(repoBranches.name)),
    db.select().from(repoCommits).where(eq(repoCommits.projectId, projectId)).orderBy(asc(repoCommits.generation), asc(repoCommits.sha)),
  ]);
  if (!branches.length) return null;
  const pack = new PackWriter();
  const seenTrees = new Set<string>();
  const seenBlobs = new Set<string>();
  for (let i = 0; i < commits.length; i += COMMIT_PAGE) {
    const page = commits.slice(i, i + COMMIT_PAGE);
    const files = await db
      .select({ commitSha: repoCommitFiles.commitSha, path: repoCommitFiles.path, blobSha: repoCommitFiles.blobSha, mode: repoCommitFiles.mode })
      .from(repoCommitFiles)
      .where(and(eq(repoCommitFiles.projectId, projectId), inJson(repoCommitFiles.commitSha, page.map((c) => c.sha))))
      .all();
    const manifests = new Map<string, Map<string, ManifestEntry>>(page.map((c) => [c.sha, new Map()]));
    for (const f of files) manifests.get(f.commitSha)?.set(f.path, { blobSha: f.blobSha, mode: f.mode });
    for (const c of page) {
      const manifest = manifests.get(c.sha)!;
      const { trees } = treeObjects(manifest);
      let body = commitBody(c.treeSha, c.parentShas, { name: c.authorName, email: c.authorEmail, at: c.authoredAt }, { name: c.committerName, email: c.committerEmail, at: c.committedAt }, c.message);
      // An imported commit the fields do not rewrite (a time zone, a signature): its exact object.
      if (commitSha(body) !== c.sha) {
        const raw = await blobs.get(rawCommitKey(projectId, c.sha));
        if (!raw) throw new Error(`commit ${c.sha} of project ${projectId} cannot be rewritten from its fields and has no stored object`);
        body = new Uint8Array(await new Response(raw.body).arrayBuffer());
      }
      await pack.add('commit', body);
      for (const [sha, tree] of trees) {
        if (seenTrees.has(sha)) continue;
        seenTrees.add(sha);
        await pack.add('tree', tree);
      }
      for (const entry of manifest.values()) {
        if (seenBlobs.has(entry.blobSha)) continue;
        seenBlobs.add(entry.blobSha);
        const blob = await blobs.get(blobKey(projectId, entry.blobSha));
        if (!blob) throw new Error(`blob ${entry.blobSha} of project ${projectId} is missing from the blob store`);
        await pack.add('blob', new Uint8Array(await new Response(blob.body).arrayBuffer()));
      }
    }
  }
  const head = branches.find((b) => b.name === defaultBranch) ?? branches[0];
  const refs = [`${head.sha} HEAD`, ...branches.map((b) => `${b.sha} refs/heads/${b.name}`)];
  const parts = [encoder.encode(`# v2 git bundle\n${refs.join('\n')}\n\n`), ...pack.finish()];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
