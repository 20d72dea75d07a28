/**
 * `project.bundle`: a git bundle (v2) of every branch and tag, as `git bundle create --all` writes it:
 * "# v2 git bundle", one "<sha> <ref>" line per ref (HEAD first, then refs/heads, then refs/tags: a
 * lightweight tag names its commit, an annotated one its tag object), a blank line, then a packfile
 * (version 2) of every commit, tree, blob and annotated tag object, each object's zlib
 * stream undeltified, and the pack's SHA-1. Objects are serialised by repository/git-objects.ts,
 * the same bytes the server hashed their ids from, so `git bundle verify` and `git clone` agree
 * with the ids the API reports.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { repoBranches, repoCommitFiles, repoCommits, repoTags } from '../db/schema';
import { inJson } from '../db/batch-reads';
import type { BlobStore } from '../platform/blobs';
import { commitBody, type ManifestEntry, tagBody, treeObjects } from '../repository/git-objects';
import { blobKey } from '../repository/repository-store';
import { rawCommitKey } from './bundle-import';

const objectSha = (type: string, body: Uint8Array) => createHash('sha1').update(`${type} ${body.byteLength}\0`).update(body).digest('hex');
const commitSha = (body: Uint8Array) => objectSha('commit', body);

const OBJ = { commit: 1, tree: 2, blob: 3, tag: 4 } as const;
/** Commits whose file lists are read in one statement. */
const COMMIT_PAGE = 50;
const encoder = new TextEncoder();

/**
 * zlib's format (what a pack holds), synchronously: a stream per object costs more than the
 * compression. The output buffer is sized to the object (zlib's bound for incompressible input, so
 * one buffer always suffices): by default each call allocates 16 KB and returns a view of it, so a
 * pack of small objects kept 16 KB alive per object until the garbage collector came (issue 15:
 * about 13 MB of the export's resident memory for 800 objects).
 */
const deflate = (bytes: Uint8Array): Uint8Array => deflateSync(bytes, { chunkSize: Math.max(64, bytes.byteLength + (bytes.byteLength >> 10) + 64) });

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

/**
 * What the bundle's stored objects need to become `project.bundle`: the bundle header (refs), the
 * object count the pack header carries, and the bytes of the objects as stored.
 */
export interface BundleObjects {
  refs: string;
  count: number;
  size: number;
}

/**
 * Writes the pack's objects (each a header and its zlib stream, without the pack header and
 * checksum, which need the count and every byte first) to `key` as a stream: the blob store writes
 * it as it comes (R2: a multipart upload, one part in memory; Node: a file), so a repository is
 * never held whole. Null, and nothing stored, for a repository without branches (GitLab writes no
 * bundle for an empty repository).
 */
export async function writeBundleObjects(db: Db, blobs: BlobStore, projectId: number, defaultBranch: string | null, key: string): Promise<BundleObjects | null> {
  const [branches, commits, tags] = await db.batch([
    db.select({ name: repoBranches.name, sha: repoBranches.commitSha }).from(repoBranches).where(eq(repoBranches.projectId, projectId)).orderBy(asc(repoBranches.name)),
    db.select().from(repoCommits).where(eq(repoCommits.projectId, projectId)).orderBy(asc(repoCommits.generation), asc(repoCommits.sha)),
    db.select().from(repoTags).where(eq(repoTags.projectId, projectId)).orderBy(asc(repoTags.name)),
  ]);
  if (!branches.length) return null;
  let count = 0;
  let size = 0;
  const objects = packObjects(db, blobs, projectId, commits, tags);
  const stream = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      const next = await objects.next();
      if (next.done) return ctrl.close();
      count += 1;
      for (const bytes of next.value) {
        size += bytes.byteLength;
        ctrl.enqueue(bytes);
      }
    },
    async cancel() {
      await objects.return(undefined);
    },
  });
  await blobs.put(key, stream);
  const head = branches.find((b) => b.name === defaultBranch) ?? branches[0];
  const refs = [`${head.sha} HEAD`, ...branches.map((b) => `${b.sha} refs/heads/${b.name}`), ...tags.map((t) => `${t.targetSha} refs/tags/${t.name}`)];
  return { refs: `# v2 git bundle\n${refs.join('\n')}\n\n`, count, size };
}

type CommitRow = typeof repoCommits.$inferSelect;
type TagRow = typeof repoTags.$inferSelect;

/**
 * An annotated tag's object: rebuilt from its row (repository/git-objects.ts tagBody, what the tags
 * API hashed its id from), else, for an imported tag the fields do not rewrite (a time zone, a
 * signature, a tag of a tag), the exact object bundle-import.ts kept under its id.
 */
async function tagObject(blobs: BlobStore, projectId: number, t: TagRow): Promise<Uint8Array> {
  if (t.taggerName !== null && t.taggerEmail !== null && t.taggedAt !== null && t.message !== null) {
    const body = tagBody(t.commitSha, t.name, { name: t.taggerName, email: t.taggerEmail, at: t.taggedAt }, t.message);
    if (objectSha('tag', body) === t.targetSha) return body;
  }
  const raw = await blobs.get(rawCommitKey(projectId, t.targetSha));
  if (!raw) throw new Error(`tag ${t.name} of project ${projectId} cannot be rewritten from its fields and has no stored object`);
  return new Uint8Array(await new Response(raw.body).arrayBuffer());
}

/**
 * Every object reachable from the commits, oldest commit first, then the annotated tags' objects
 * (a lightweight tag is only a ref), each as [pack object header, zlib stream].
 */
async function* packObjects(db: Db, blobs: BlobStore, projectId: number, commits: CommitRow[], tags: TagRow[]): AsyncGenerator<[Uint8Array, Uint8Array]> {
  const object = (type: keyof typeof OBJ, body: Uint8Array): [Uint8Array, Uint8Array] => [objectHeader(OBJ[type], body.byteLength), deflate(body)];
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
      yield object('commit', body);
      for (const [sha, tree] of trees) {
        if (seenTrees.has(sha)) continue;
        seenTrees.add(sha);
        yield object('tree', tree);
      }
      for (const entry of manifest.values()) {
        if (seenBlobs.has(entry.blobSha)) continue;
        seenBlobs.add(entry.blobSha);
        const blob = await blobs.get(blobKey(projectId, entry.blobSha));
        if (!blob) throw new Error(`blob ${entry.blobSha} of project ${projectId} is missing from the blob store`);
        yield object('blob', new Uint8Array(await new Response(blob.body).arrayBuffer()));
      }
    }
  }
  const seenTags = new Set<string>();
  for (const t of tags) {
    if (t.targetSha === t.commitSha || seenTags.has(t.targetSha)) continue;
    seenTags.add(t.targetSha);
    yield object('tag', await tagObject(blobs, projectId, t));
  }
}

/**
 * `project.bundle` as a tar member: its size, and its bytes read back from the stored objects one
 * chunk at a time: bundle header, pack header (version 2, the count), the objects, and the SHA-1 of
 * the pack, hashed as the bytes go by.
 */
export function bundleMember(blobs: BlobStore, key: string, b: BundleObjects): { size: number; bytes: AsyncGenerator<Uint8Array> } {
  const refs = encoder.encode(b.refs);
  async function* bytes(): AsyncGenerator<Uint8Array> {
    const header = new Uint8Array(12);
    header.set(encoder.encode('PACK'), 0);
    const view = new DataView(header.buffer);
    view.setUint32(4, 2);
    view.setUint32(8, b.count);
    const hash = createHash('sha1').update(header);
    yield refs;
    yield header;
    const stored = await blobs.get(key);
    if (!stored) throw new Error(`Export bundle objects ${key} are missing`);
    for await (const chunk of stored.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      yield chunk;
    }
    yield new Uint8Array(hash.digest());
  }
  return { size: refs.byteLength + 12 + b.size + 20, bytes: bytes() };
}
