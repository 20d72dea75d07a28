/**
 * The `project_export` job (GitLab Projects::ImportExport::ExportService on a Sidekiq worker):
 * writes the archive, stores it in the blob store and marks the export finished. Delivery is at
 * least once: a finished or failed export is left alone, and a redelivered message of an export
 * that died half-way writes its archive again under a new key.
 */
import { and, eq, inArray, isNotNull, lt, ne, or } from 'drizzle-orm';
import type { Db } from '../db/client';
import { namespaces, projectExportJobs, projects } from '../db/schema';
import type { JobDeps, JobHandler } from '../platform/jobs-consumer';
import { randomHex } from '../platform/crypto';
import { TarWriter } from '../platform/tar-write';
import { projectBundle } from './bundle-write';
import { uploadMembers } from './project-uploads';
import { EXPORT_TTL_MS, exportFilename } from './export-status';
import { type ExportScope, issueLines, labelLines, memberLines, milestoneLines, projectFeatureLines, projectJson, protectedBranchLines } from './export-tree';
import { mergeRequestLines } from './export-merge-requests';
import { approvalAttributes, approvalRuleLines } from './export-approvals';
import type { BlobStore } from '../platform/blobs';
import { loadSettings } from '../settings/settings';
import { uploadArchive } from './export-upload';

export const EXPORT_JOB = 'project_export';
const encoder = new TextEncoder();

/** Gitlab::ImportExport.version. */
export const EXPORT_VERSION = '0.2.4';

/** The relations in import_export.yml's order (those this server holds). */
const RELATIONS: [string, (scope: ExportScope) => AsyncGenerator<Record<string, unknown>>][] = [
  ['labels', labelLines],
  ['milestones', milestoneLines],
  ['issues', issueLines],
  ['project_members', memberLines],
  ['merge_requests', mergeRequestLines],
  ['protected_branches', protectedBranchLines],
  ['project_feature', projectFeatureLines],
  ['approval_rules', approvalRuleLines],
];

/**
 * A failed export is marked `failed` (shown as `none`, or `finished` while an older archive is
 * still downloadable) rather than retried: the user asks again, as GitLab's export worker leaves it.
 */
export const runProjectExport: JobHandler = async (message, deps) => {
  try {
    await exportProject(message.id, deps);
  } catch (err) {
    console.error(JSON.stringify({ level: 'error', job: EXPORT_JOB, id: message.id, error: String(err) }));
    await deps.db
      .update(projectExportJobs)
      .set({ status: 'failed', error: 'The export could not be written', updatedAt: Date.now() })
      .where(and(eq(projectExportJobs.jid, message.id), inArray(projectExportJobs.status, ['queued', 'started'])))
      .run();
  }
};

async function exportProject(jid: string, { db, blobs }: JobDeps): Promise<void> {
  const now = Date.now();
  // queued -> started; a redelivery of a started export (its consumer died) starts it over.
  const [job] = await db
    .update(projectExportJobs)
    .set({ status: 'started', updatedAt: now })
    .where(and(eq(projectExportJobs.jid, jid), inArray(projectExportJobs.status, ['queued', 'started'])))
    .returning()
    .all();
  if (!job) return;
  const found = await db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, job.projectId)).get();
  if (!found) {
    await db.update(projectExportJobs).set({ status: 'failed', error: 'Project not found', updatedAt: Date.now() }).where(eq(projectExportJobs.id, job.id)).run();
    return;
  }
  const { project, namespace } = found;
  const filename = exportFilename(`${namespace.fullPath}/${project.path}`, new Date(now));
  // A random segment: a project re-created at the same path never finds an older project's archive.
  const key = `exports/${project.id}/${randomHex(16)}/${filename}`;
  await blobs.put(key, archiveStream({ db, blobs, project, namespace, userId: job.userId }, job.description, now), 'application/gzip');
  // The upload is part of `started` (spec: post-export actions); its outcome is recorded, and the
  // archive stays downloadable either way.
  const uploadError = job.uploadUrl ? await uploadStored(blobs, key, job.uploadUrl, job.uploadMethod ?? 'PUT', await loadSettings(db)) : null;

  const done = Date.now();
  // Older archives of the project (and expired ones) give way to this one: their keys are read in
  // the same batch that unlinks them, and the blobs go after.
  const staleWhere = and(eq(projectExportJobs.projectId, project.id), ne(projectExportJobs.id, job.id), isNotNull(projectExportJobs.blobKey), or(eq(projectExportJobs.status, 'finished'), lt(projectExportJobs.expiresAt, done)));
  const [stale] = await db.batch([
    db.select({ key: projectExportJobs.blobKey }).from(projectExportJobs).where(staleWhere),
    db
      .update(projectExportJobs)
      .set({ status: 'finished', blobKey: key, filename, error: uploadError, expiresAt: done + EXPORT_TTL_MS, updatedAt: done })
      .where(and(eq(projectExportJobs.id, job.id), eq(projectExportJobs.status, 'started'))),
    db.update(projectExportJobs).set({ blobKey: null, status: 'removed', updatedAt: done }).where(staleWhere),
  ]);
  for (const old of stale) if (old.key) await blobs.delete(old.key);
}

/** The stored archive, sent to the upload URL (read whole: the request carries its Content-Length). */
async function uploadStored(blobs: BlobStore, key: string, url: string, method: string, settings: Awaited<ReturnType<typeof loadSettings>>) {
  const stored = await blobs.get(key);
  if (!stored) return 'Error uploading the project. Code 0: the export file is missing';
  return uploadArchive(url, method, new Uint8Array(await new Response(stored.body).arrayBuffer()), settings);
}

/**
 * The archive as a stream: gzip'd tar as `tar -czf <archive> -C <export dir> .` writes it (members
 * under `./`): VERSION, tree/project.json, tree/project/<relation>.ndjson, project.bundle. It is
 * written as the blob store reads it; a failure half-way errors the stream, and so the store's write.
 */
export function archiveStream(scope: ExportScope, description: string | null, now: number): ReadableStream<Uint8Array> {
  const { db, blobs, project } = scope;
  const gzip = new CompressionStream('gzip');
  const writer = gzip.writable.getWriter();
  const tar = new TarWriter((chunk) => writer.write(chunk as Uint8Array<ArrayBuffer>));
  const write = async () => {
    const mtime = now;
    await tar.directory({ name: './', mtime });
    await tar.file({ name: './VERSION', mtime }, `${EXPORT_VERSION}\n`);
    await tar.directory({ name: './tree/', mtime });
    await tar.file({ name: './tree/project.json', mtime }, JSON.stringify({ ...projectJson(project, description), ...(await approvalAttributes(db, project.id)) }));
    await tar.directory({ name: './tree/project/', mtime });
    for (const [name, lines] of RELATIONS) {
      // One file is the unit a tar header sizes, so each relation is gathered before it is written.
      const parts: Uint8Array[] = [];
      for await (const line of lines(scope)) parts.push(encoder.encode(`${JSON.stringify(line)}\n`));
      await tar.chunks({ name: `./tree/project/${name}.ndjson`, mtime }, parts);
    }
    // UploadsSaver runs after the tree and before the repository.
    for await (const u of uploadMembers(db, blobs, project.id)) await tar.file({ name: `./${u.name}`, mtime }, u.bytes);
    const bundle = await projectBundle(db, blobs, project.id, project.defaultBranch);
    if (bundle) await tar.file({ name: './project.bundle', mtime }, bundle);
    await tar.end();
    await writer.close();
  };
  write().catch((err) => writer.abort(err).catch(() => undefined));
  return gzip.readable;
}
