/**
 * An export split across queue messages. Each message writes the next bounded run of rows of a
 * relation as its own blob (a part: raw ndjson, so its size is the size it adds to the tar member)
 * and records the relation's cursor and the part's size in the export's `progress`. A last step
 * writes the tar.gz from the parts, the header of each relation sized by its parts before any of
 * their bytes are read, so no relation is ever held whole (issues.ndjson of 10,000 issues is 28 MB).
 * Part keys follow from the progress alone: a redelivered message rewrites the same key.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { projectExportJobs } from '../db/schema';
import type { BlobStore } from '../platform/blobs';
import { TarWriter } from '../platform/tar-write';
import { PartBuffer } from './part-buffer';
import { type BundleObjects, bundleMember, writeBundleObjects } from './bundle-write';
import { uploadMembers } from './project-uploads';
import { type ExportScope, issueLines, labelLines, memberLines, milestoneLines, projectFeatureLines, projectJson, protectedBranchLines } from './export-tree';
import { mergeRequestLines } from './export-merge-requests';
import { approvalAttributes, approvalRuleLines } from './export-approvals';
import { commitNoteLines, protectedTagLines } from './export-tags-notes';

/** Gitlab::ImportExport.version. */
export const EXPORT_VERSION = '0.2.4';

type LinesOf = (scope: ExportScope) => AsyncGenerator<Record<string, unknown>>;
/**
 * The relations in import_export.yml's order (those this server holds). `paged` ones are read by
 * id, so a part may stop anywhere and the next start after its last line's id; the others are
 * small (one document, the members, the protected branches) and written as one part.
 */
const RELATIONS: { name: string; lines: LinesOf; paged: boolean }[] = [
  { name: 'labels', lines: labelLines, paged: true },
  { name: 'milestones', lines: milestoneLines, paged: true },
  { name: 'issues', lines: issueLines, paged: true },
  { name: 'project_members', lines: memberLines, paged: false },
  { name: 'merge_requests', lines: mergeRequestLines, paged: true },
  { name: 'commit_notes', lines: commitNoteLines, paged: true },
  { name: 'protected_branches', lines: protectedBranchLines, paged: false },
  { name: 'protected_tags', lines: protectedTagLines, paged: false },
  { name: 'project_feature', lines: projectFeatureLines, paged: false },
  { name: 'approval_rules', lines: approvalRuleLines, paged: false },
];

export interface ExportProgress {
  /** The archive's key, file name and member mtime: fixed by the first message, so every later one writes the same bytes. */
  key: string;
  filename: string;
  now: number;
  /** Index in RELATIONS of the relation being written (RELATIONS.length once all are). */
  relation: number;
  /** Id of the last row of the current relation already in a part. */
  after: number;
  /** Sizes of the parts written, per relation, in order. An empty part is not stored. */
  parts: Record<string, number[]>;
  /** The repository's pack objects are stored (bundleKey): what they need to become project.bundle, null for an empty repository. */
  bundle?: BundleObjects | null;
  /** The archive blob is complete (its parts may be deleted). */
  assembled?: true;
  /** The export finished with this progress: a `started` row carrying it again starts over. */
  done?: true;
}

export const newProgress = (key: string, filename: string, now: number): ExportProgress => ({ key, filename, now, relation: 0, after: 0, parts: {} });
export const relationsWritten = (p: ExportProgress) => p.relation >= RELATIONS.length;

/** Next to the archive's key, under the same random folder: `exports/<project>/<random>/parts/<relation>/<n>.ndjson`. */
export const partKey = (p: ExportProgress, relation: string, n: number) => `${p.key.slice(0, p.key.lastIndexOf('/'))}/parts/${relation}/${n}.ndjson`;

/**
 * Compare-and-set of the export's progress: true when `stored` was still the row's (this message
 * may go on), false when another delivery of the message moved it first (this one stops).
 */
export async function advance(db: Db, id: number, stored: string | null, next: ExportProgress): Promise<boolean> {
  const rows = await db
    .update(projectExportJobs)
    .set({ progress: JSON.stringify(next), updatedAt: Date.now() })
    .where(and(eq(projectExportJobs.id, id), eq(projectExportJobs.status, 'started'), stored === null ? isNull(projectExportJobs.progress) : eq(projectExportJobs.progress, stored)))
    .returning({ id: projectExportJobs.id })
    .all();
  return rows.length > 0;
}

/**
 * Writes the next part (at most `maxRows` lines of the current relation) and returns the progress
 * after it. `buffer` holds the part's bytes (part-buffer.ts: lines are encoded as they come, not
 * joined); a caller writing several parts passes the same one.
 */
export async function writeNextPart(scope: ExportScope, p: ExportProgress, maxRows: number, buffer = new PartBuffer()): Promise<ExportProgress> {
  const rel = RELATIONS[p.relation];
  buffer.reset();
  let rows = 0;
  let last = p.after;
  let full = false;
  for await (const line of rel.lines({ ...scope, after: p.after })) {
    buffer.append(`${JSON.stringify(line)}\n`);
    last = Number(line.id);
    if (rel.paged && ++rows >= maxRows) {
      full = true;
      break;
    }
  }
  const sizes = p.parts[rel.name] ?? [];
  const body = buffer.view();
  const size = body.byteLength;
  // No content type: a part is only read back here, and on Node a type is one more file to sync.
  if (size) await scope.blobs.put(partKey(p, rel.name, sizes.length), body);
  const parts = { ...p.parts, [rel.name]: size ? [...sizes, size] : sizes };
  return full ? { ...p, parts, after: last } : { ...p, parts, relation: p.relation + 1, after: 0 };
}

/** The pack objects of project.bundle, beside the relation parts. */
export const bundleKey = (p: ExportProgress) => `${p.key.slice(0, p.key.lastIndexOf('/'))}/parts/project.bundle.objects`;

/**
 * Stores the repository's pack objects as a stream (never the whole bundle in memory) and returns
 * the progress after it; the archive reads them back when it writes project.bundle.
 */
export async function writeBundlePart(scope: ExportScope, p: ExportProgress): Promise<ExportProgress> {
  const bundle = await writeBundleObjects(scope.db, scope.blobs, scope.project.id, scope.project.defaultBranch, bundleKey(p));
  return { ...p, bundle };
}

// The bundle's key is listed whether or not it was written: deleting a missing blob is a no-op.
const partKeys = (p: ExportProgress) => [...Object.entries(p.parts).flatMap(([relation, sizes]) => sizes.map((_, n) => partKey(p, relation, n))), bundleKey(p)];

export async function deleteParts(blobs: BlobStore, p: ExportProgress): Promise<void> {
  for (const key of partKeys(p)) await blobs.delete(key);
}

/**
 * The blobs an unfinished export holds (its parts, and its archive if written but not yet recorded
 * as the row's `blob_key`): what goes when the export fails or its project is deleted mid-way.
 */
export function unfinishedKeys(stored: string | null): string[] {
  if (!stored) return [];
  const p = JSON.parse(stored) as ExportProgress;
  return p.done ? [] : [...partKeys(p), p.key];
}

/** The bytes of a relation's parts, one part in memory at a time. */
async function* partBytes(blobs: BlobStore, p: ExportProgress, relation: string): AsyncGenerator<Uint8Array> {
  const sizes = p.parts[relation] ?? [];
  for (let n = 0; n < sizes.length; n++) {
    const stored = await blobs.get(partKey(p, relation, n));
    if (!stored) throw new Error(`Export part ${relation}/${n} is missing`);
    for await (const chunk of stored.body as unknown as AsyncIterable<Uint8Array>) yield chunk;
  }
}

/**
 * The archive as a stream: gzip'd tar as `tar -czf <archive> -C <export dir> .` writes it (members
 * under `./`): VERSION, tree/project.json, tree/project/<relation>.ndjson from the parts, uploads,
 * project.bundle from its stored objects. It is written as the blob store reads it (R2: a multipart upload, one part in
 * memory; Node: a file); a failure half-way errors the stream, and so the store's write.
 */
export function assembleArchive(scope: ExportScope, description: string | null, p: ExportProgress): ReadableStream<Uint8Array> {
  const { db, blobs, project } = scope;
  const gzip = new CompressionStream('gzip');
  const writer = gzip.writable.getWriter();
  const tar = new TarWriter((chunk) => writer.write(chunk as Uint8Array<ArrayBuffer>));
  const write = async () => {
    const mtime = p.now;
    await tar.directory({ name: './', mtime });
    await tar.file({ name: './VERSION', mtime }, `${EXPORT_VERSION}\n`);
    await tar.directory({ name: './tree/', mtime });
    await tar.file({ name: './tree/project.json', mtime }, JSON.stringify({ ...projectJson(project, description), ...(await approvalAttributes(db, project.id)) }));
    await tar.directory({ name: './tree/project/', mtime });
    for (const { name } of RELATIONS) {
      const size = (p.parts[name] ?? []).reduce((n, s) => n + s, 0);
      await tar.stream({ name: `./tree/project/${name}.ndjson`, mtime }, size, partBytes(blobs, p, name));
    }
    // UploadsSaver runs after the tree and before the repository.
    for await (const u of uploadMembers(db, blobs, project.id)) await tar.file({ name: `./${u.name}`, mtime }, u.bytes);
    if (p.bundle) {
      const bundle = bundleMember(blobs, bundleKey(p), p.bundle);
      await tar.stream({ name: './project.bundle', mtime }, bundle.size, bundle.bytes);
    }
    await tar.end();
    await writer.close();
  };
  write().catch((err) => writer.abort(err).catch(() => undefined));
  return gzip.readable;
}
