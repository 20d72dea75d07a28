/**
 * The `project_export` job (GitLab Projects::ImportExport::ExportService on a Sidekiq worker):
 * writes the archive, stores it in the blob store and marks the export finished. The work is split
 * across queue messages (export-parts.ts): each writes parts of the relations until its budget is
 * spent and hands the rest to a new message; the message after the last part writes the archive
 * from them. Delivery is at least once: progress moves by compare-and-set, so a redelivered message
 * rewrites a part under the same key and then stops or goes on from the stored progress; a
 * finished or failed export is left alone. The status shows `started` until the archive is stored.
 */
import { and, eq, inArray, isNotNull, lt, ne, or } from 'drizzle-orm';
import { namespaces, projectExportJobs, projects } from '../db/schema';
import type { JobDeps, JobHandler } from '../platform/jobs-consumer';
import type { JobMessage } from '../platform/jobs';
import { randomHex } from '../platform/crypto';
import { EXPORT_TTL_MS, exportFilename } from './export-status';
import type { ExportScope } from './export-tree';
import type { BlobStore } from '../platform/blobs';
import { loadSettings } from '../settings/settings';
import { uploadArchive } from './export-upload';
import { PartBuffer } from './part-buffer';
import { advance, assembleArchive, deleteParts, type ExportProgress, newProgress, relationsWritten, unfinishedKeys, writeBundlePart, writeNextPart } from './export-parts';

export const EXPORT_JOB = 'project_export';
export { EXPORT_VERSION } from './export-parts';

/** Rows of a relation per part: 1,000 issues with their notes are about 3 MB of ndjson. */
const PART_ROWS = 1000;
/** Wall time one message may spend writing parts before handing the rest on (Workers: 30 s CPU by default). */
const DEFAULT_BUDGET_MS = 20_000;
/** Parts one message writes at most: each is a few D1 batches and an R2 put, all subrequests of the invocation. */
const MAX_PARTS_PER_MESSAGE = 20;

/**
 * A failed export is marked `failed` (shown as `none`, or `finished` while an older archive is
 * still downloadable) rather than retried: the user asks again, as GitLab's export worker leaves it.
 */
export const runProjectExport: JobHandler = async (message, deps) => {
  try {
    await exportProject(message, deps);
  } catch (err) {
    console.error(JSON.stringify({ level: 'error', job: EXPORT_JOB, id: message.id, error: String(err) }));
    const [failed] = await deps.db
      .update(projectExportJobs)
      .set({ status: 'failed', error: 'The export could not be written', updatedAt: Date.now() })
      .where(and(eq(projectExportJobs.jid, message.id), inArray(projectExportJobs.status, ['queued', 'started'])))
      .returning({ progress: projectExportJobs.progress })
      .all();
    // The parts of a failed export are never read again (the user asks for a new export).
    for (const key of unfinishedKeys(failed?.progress ?? null)) await deps.blobs.delete(key);
  }
};

async function exportProject(message: JobMessage, { db, blobs, jobs }: JobDeps): Promise<void> {
  const began = Date.now();
  const jid = message.id;
  // Tests force tiny parts and budgets; they travel with every message the export hands on.
  const budgetMs = Number(message.budgetMs ?? DEFAULT_BUDGET_MS);
  const partRows = Math.max(1, Number(message.partRows ?? PART_ROWS));
  // queued -> started; a later message (or a redelivery after its consumer died) finds it started.
  const [job] = await db
    .update(projectExportJobs)
    .set({ status: 'started', updatedAt: began })
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
  const scope: ExportScope = { db, blobs, project, namespace, userId: job.userId };

  let stored = job.progress;
  let progress = stored ? (JSON.parse(stored) as ExportProgress) : null;
  if (!progress || progress.done) {
    // The first message (or a started row whose export finished before: it is written anew).
    const filename = exportFilename(`${namespace.fullPath}/${project.path}`, new Date(began));
    // A random segment: a project re-created at the same path never finds an older project's archive.
    const fresh = newProgress(`exports/${project.id}/${randomHex(16)}/${filename}`, filename, began);
    if (!(await advance(db, job.id, stored, fresh))) return;
    [progress, stored] = [fresh, JSON.stringify(fresh)];
  }
  const handOn = () => jobs.send({ type: EXPORT_JOB, id: jid, ...(message.budgetMs !== undefined ? { budgetMs: message.budgetMs } : {}), ...(message.partRows !== undefined ? { partRows: message.partRows } : {}) });
  // Every message writes at least one part, so a chain of messages always gets somewhere.
  let written = 0;
  // One buffer for every part this message writes (part-buffer.ts).
  const buffer = new PartBuffer();
  const spent = () => written > 0 && (written >= MAX_PARTS_PER_MESSAGE || Date.now() - began >= budgetMs);
  while (!relationsWritten(progress)) {
    if (spent()) {
      buffer.release();
      return handOn();
    }
    const next = await writeNextPart(scope, progress, partRows, buffer);
    // Another delivery of this message wrote the same part first and goes on from there.
    if (!(await advance(db, job.id, stored, next))) return;
    [progress, stored] = [next, JSON.stringify(next)];
    written++;
  }
  buffer.release();
  // The repository's objects are a step of their own: stored as they are written, and one message's work.
  if (progress.bundle === undefined && !progress.assembled) {
    if (spent()) return handOn();
    const next = await writeBundlePart(scope, progress);
    if (!(await advance(db, job.id, stored, next))) return;
    [progress, stored] = [next, JSON.stringify(next)];
    written++;
  }
  if (!progress.assembled) {
    if (spent()) return handOn();
    await blobs.put(progress.key, assembleArchive(scope, job.description, progress), 'application/gzip');
    const next: ExportProgress = { ...progress, assembled: true };
    if (!(await advance(db, job.id, stored, next))) return;
    [progress, stored] = [next, JSON.stringify(next)];
  }
  // The archive is stored: the parts go before the export shows finished (a redelivery deletes them again).
  await deleteParts(blobs, progress);
  const { key, filename } = progress;
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
      .set({ status: 'finished', blobKey: key, filename, error: uploadError, expiresAt: done + EXPORT_TTL_MS, progress: JSON.stringify({ ...progress, done: true }), updatedAt: done })
      .where(and(eq(projectExportJobs.id, job.id), eq(projectExportJobs.status, 'started'))),
    db.update(projectExportJobs).set({ blobKey: null, status: 'removed', updatedAt: done }).where(staleWhere),
  ]);
  for (const old of stale) if (old.key) await blobs.delete(old.key);
}

/** The stored archive, streamed to the upload URL with its Content-Length (opened anew for each attempt). */
async function uploadStored(blobs: BlobStore, key: string, url: string, method: string, settings: Awaited<ReturnType<typeof loadSettings>>) {
  const stored = await blobs.get(key);
  if (!stored) return 'Error uploading the project. Code 0: the export file is missing';
  let first: ReadableStream<Uint8Array> | null = stored.body;
  const open = async () => {
    const body = first ?? (await blobs.get(key))?.body;
    first = null;
    if (!body) throw new Error('the export file is missing');
    return body;
  };
  try {
    return await uploadArchive(url, method, { size: stored.size, open }, settings);
  } finally {
    // Not sent (the URL was refused): the file is closed.
    await first?.cancel().catch(() => undefined);
  }
}
