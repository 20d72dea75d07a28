/**
 * The project import job (RepositoryImportWorker + Gitlab::ImportExport::Importer for file imports):
 * scheduled -> started -> finished | failed. A remote import's archive is downloaded first
 * (remote-download.ts; a failed download fails the import). It streams the uploaded archive from the blob store in
 * two passes: the first checks VERSION and reads the project attributes and members (the user map
 * every later row needs), the second writes every relation line by line in chunks. Each chunk's rows,
 * its failed lines and the relation's progress go in one db.batch, so a redelivered or resumed job
 * skips what is written and never writes a row twice; a second copy racing the first loses on the
 * unique (project, iid/title) indexes and retries from the stored progress. A job that runs past its
 * budget hands the rest to a new message (each stays well under a Workers consumer's CPU limit).
 */
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { importFailures, internalIds, namespaces, projectImportStates, projects } from '../db/schema';
import { batchReads } from '../db/batch-reads';
import type { JobDeps } from '../platform/jobs-consumer';
import type { BlobStore } from '../platform/blobs';
import { overwriteSwap } from './import-overwrite';
import type { JobMessage } from '../platform/jobs';
import { loadSettings, type Settings } from '../settings/settings';
import { archiveMembers, checkVersion, documentText, ImportError, type RelationLine, relationLines } from './import-archive';
import { type ImportContext, issueRow, labelRow, LineError, mergeRequestRow, milestoneRow, protectedBranchRow, takenReads } from './import-relations';
import { IMPORT_JOB } from './import-job-message';
import { commitNoteRow, protectedTagRow } from './import-tags-notes';
import { downloadArchive } from './remote-download';
import { randomHex } from '../platform/crypto';
import { BulkRows } from './import-bulk';
import { importRepository } from './import-repository';
import { defaultBranchStatements } from '../projects/default-branch-hooks';
import { importUpload, isUploadMember } from './project-uploads';
import { importerLevelRead, memberStatements, projectAttributeUpdate, userMapReads, type ArchiveMember } from './import-project';

type Row = Record<string, unknown>;
type Stmt = BatchItem<'sqlite'>;

interface Progress {
  /** Lines of each relation already written. */
  next: Record<string, number>;
  /** Relations finished (their member was read to the end). */
  done: Record<string, true>;
  /** The first pass (version, project attributes, members) is written. */
  meta?: true;
  /** The tree is the legacy root project.json (one document) rather than ndjson files. */
  legacy?: true;
  /** project.bundle is written (or was absent, or recorded as a failed relation). */
  repository?: true;
  /** Position (parents first) of the bundle's next commit to write, when a message stopped mid-history. */
  repositoryNext?: number;
  users?: Record<string, number>;
  /** remote-import: the URL the archive is still to be downloaded from (dropped once it is stored). */
  download?: string;
}

/** Relations this server holds, in the order their rows may depend on each other's. */
const RELATIONS: Record<string, (ctx: ImportContext, row: Row) => Stmt[]> = {
  labels: labelRow,
  milestones: milestoneRow,
  protected_branches: protectedBranchRow,
  protected_tags: protectedTagRow,
  issues: issueRow,
  merge_requests: mergeRequestRow,
  commit_notes: commitNoteRow,
};
/** A chunk (one db.batch, one progress step) ends at whichever bound comes first. */
const CHUNK_LINES = 500;
const CHUNK_STATEMENTS = 1000;
/** Characters of bulk rows (import-bulk.ts) a chunk holds. */
const CHUNK_CHARS = 4 * 1024 * 1024;
/** Wall time one message may spend before handing the rest to the next (Workers: 15 min wall, 30 s CPU by default). */
const DEFAULT_BUDGET_MS = 20_000;
/** Batches one message may send: each is a subrequest, and a Worker invocation may make 1,000 of them. */
const MAX_BATCHES_PER_MESSAGE = 500;

export async function runProjectImport(message: JobMessage, deps: JobDeps): Promise<void> {
  const { db, blobs } = deps;
  const projectId = Number(message.projectId);
  const [states] = await batchReads(db, [db.select().from(projectImportStates).where(eq(projectImportStates.projectId, projectId)).limit(1)]);
  const state = states[0];
  // Finished or failed: a redelivery has nothing left to do.
  if (!state || (state.status !== 'scheduled' && state.status !== 'started') || !state.blobKey) return;
  if (state.status === 'scheduled') await db.update(projectImportStates).set({ status: 'started', updatedAt: Date.now() }).where(sql`${projectImportStates.projectId} = ${projectId} AND ${projectImportStates.status} = 'scheduled'`);
  const settings = await loadSettings(db);
  const progress = JSON.parse(state.progress || '{}') as Progress;
  progress.next ??= {};
  progress.done ??= {};
  const job: Job = { db, projectId, state, settings, progress, stored: state.progress, started: Date.now(), batches: 0, budgetMs: Number(message.budgetMs ?? DEFAULT_BUDGET_MS) };
  if (progress.download && !(await downloadStep(job, blobs))) return;
  try {
    const archive = () => archiveMembers(blobs, state.blobKey!, Number(settings.max_decompressed_archive_size ?? 0));
    if (!progress.meta) await metaPass(job, archive);
    // Before the relations: merge requests point their shas into the imported history.
    if (!progress.repository && !(await repositoryStep(job, archive, blobs))) {
      await deps.jobs.send({ type: IMPORT_JOB, id: `${IMPORT_JOB}:${projectId}:${state.correlationId}:repo:${Date.now()}`, projectId, ...(message.budgetMs !== undefined ? { budgetMs: message.budgetMs } : {}) });
      return;
    }
    const complete = await relationPass(job, archive, blobs);
    if (!complete) {
      await deps.jobs.send({ type: IMPORT_JOB, id: `${IMPORT_JOB}:${projectId}:${state.correlationId}:${Date.now()}`, projectId });
      return;
    }
    await finish(db, projectId, JSON.parse(state.overrideParams || '{}') as Row, blobs);
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    await db.update(projectImportStates).set({ status: 'failed', lastError: err.message, blobKey: null, updatedAt: Date.now() }).where(eq(projectImportStates.projectId, projectId));
  }
  await blobs.delete(state.blobKey);
}

/**
 * The remote archive into the blob store (remote-download.ts), then the progress without its URL
 * and the import's blob key pointing at it, by compare-and-set. Each copy of the message downloads
 * to a key of its own, so a copy that loses the race (or fails) never touches the archive the
 * winner stored. False when this copy stops: the download failed and the import is `failed` (only
 * while the download is still pending: a late copy never fails an import another one carries on),
 * or another copy stored the archive first and goes on.
 */
async function downloadStep(job: Job, blobs: BlobStore): Promise<boolean> {
  const pending = sql`${projectImportStates.projectId} = ${job.projectId} AND ${projectImportStates.progress} = ${job.stored}`;
  const key = `imports/${randomHex(16)}/archive.tar.gz`;
  const failed = await downloadArchive(blobs, job.progress.download!, job.settings, key);
  if (failed) {
    await job.db.update(projectImportStates).set({ status: 'failed', lastError: failed, blobKey: null, progress: '{}', updatedAt: Date.now() }).where(pending);
    return false;
  }
  delete job.progress.download;
  const next = JSON.stringify(job.progress);
  const moved = await job.db.update(projectImportStates).set({ progress: next, blobKey: key, updatedAt: Date.now() }).where(pending).returning({ id: projectImportStates.projectId }).all();
  if (!moved.length) {
    await blobs.delete(key);
    return false;
  }
  job.stored = next;
  job.state.blobKey = key;
  return true;
}

type Job = {
  db: Db;
  projectId: number;
  state: typeof projectImportStates.$inferSelect;
  settings: Settings;
  progress: Progress;
  /** The progress as stored when this job last read or wrote it: the compare-and-set's expected value. */
  stored: string;
  started: number;
  /** Chunk batches this message has sent. */
  batches: number;
  budgetMs: number;
};
type Archive = () => ReturnType<typeof archiveMembers>;

/** VERSION, the project's attributes (tree/project.json, or the legacy root project.json) and its members. */
async function metaPass(job: Job, archive: Archive) {
  let version: string | undefined;
  let project: Row | undefined;
  let legacy = false;
  let features: Row | undefined;
  const members: ArchiveMember[] = [];
  for await (const m of archive()) {
    if (m.type !== 'file') continue;
    if (m.name === 'VERSION') version = await documentText(m);
    else if (m.name === 'tree/project.json' || (m.name === 'project.json' && (!project || legacy))) {
      legacy = m.name === 'project.json';
      const text = await documentText(m);
      try {
        project = JSON.parse(text) as Row;
      } catch {
        throw new ImportError('Error parsing project.json: malformed JSON');
      }
      if (!project || typeof project !== 'object' || Array.isArray(project)) throw new ImportError('Error parsing project.json: not an object');
      if (legacy && project.project_feature && typeof project.project_feature === 'object') features = project.project_feature as Row;
      if (legacy) for (const r of Array.isArray(project.project_members) ? project.project_members.slice(0, 10_000) : []) members.push(r as ArchiveMember);
    } else if (m.name === 'tree/project/project_feature.ndjson') {
      // A single-object relation: one JSON document.
      try {
        const doc = JSON.parse(await documentText(m)) as unknown;
        if (doc && typeof doc === 'object' && !Array.isArray(doc)) features = doc as Row;
      } catch (err) {
        if (err instanceof ImportError) throw err;
      }
    } else if (m.name === 'tree/project/project_members.ndjson') {
      for await (const l of relationLines(m)) if ('row' in l && members.length < 10_000) members.push(l.row as ArchiveMember);
    }
  }
  // version_checker.rb runs first: nothing is written for an archive of another version.
  if (version === undefined) throw new ImportError('Incorrect VERSION format');
  checkVersion(version);
  if (!project) throw new ImportError('Project tree is missing from the archive');
  const { db, projectId, state } = job;
  const [nsRows, level, candidates] = await batchReads(db, [
    // One table per select: a D1 batch keys row values by column name.
    db.select().from(namespaces).where(sql`${namespaces.id} = (SELECT namespace_id FROM projects WHERE id = ${projectId})`).limit(1),
    importerLevelRead(db, projectId, state.importerId),
    userMapReads(db, state.importerId, members),
  ]);
  if (!nsRows[0]) throw new ImportError('The project was deleted');
  const { users, statements } = memberStatements(db, projectId, state.importerId, level, candidates, members, Date.now());
  job.progress.users = users;
  job.progress.meta = true;
  if (legacy) job.progress.legacy = true;
  await db.batch([
    ...saveProgress(job),
    ...(projectAttributeUpdate(db, projectId, nsRows[0], project, JSON.parse(state.overrideParams || '{}') as Row, job.settings, features) ?? []),
    ...statements,
  ] as unknown as Parameters<Db['batch']>[0]);
}

/** Blobs one message stores: each is a subrequest, and a Worker invocation may make 1,000 of them. */
const REPOSITORY_PUTS_PER_MESSAGE = 400;

/** The repository step (import-repository.ts); false when the rest goes on in the next message. */
async function repositoryStep(job: Job, archive: Archive, blobs: BlobStore): Promise<boolean> {
  const { db, projectId, progress } = job;
  // A zero budget (the tests' way to split a job) stores one commit's blobs a message.
  const maxPuts = job.budgetMs === 0 ? 1 : REPOSITORY_PUTS_PER_MESSAGE;
  const done = await importRepository(db, blobs, projectId, archive(), Number(job.settings.max_decompressed_archive_size ?? 0), { from: progress.repositoryNext ?? 0, maxPuts });
  if (done.next !== undefined) {
    progress.repositoryNext = done.next;
    await db.batch(saveProgress(job) as unknown as Parameters<Db['batch']>[0]);
    return false;
  }
  progress.repository = true;
  // What follows the default branch (the dependency list) is read from the imported one, in the
  // batch that ends the step: the project.json's default branch, else the bundle's HEAD.
  const follow = done.head
    ? await defaultBranchStatements({ db, blobs }, projectId, sql`COALESCE((SELECT ip.default_branch FROM projects ip WHERE ip.id = ${projectId}), ${done.head})`)
    : [];
  await db.batch([
    ...saveProgress(job),
    ...(done.refused ? [failure(job, 'repository', 0, 'Gitlab::ImportExport::Error', done.refused)] : []),
    // The bundle's HEAD is the default branch unless project.json named one.
    ...(done.head ? [db.update(projects).set({ defaultBranch: done.head }).where(sql`${projects.id} = ${projectId} AND ${projects.defaultBranch} IS NULL`)] : []),
    ...follow,
  ] as unknown as Parameters<Db['batch']>[0]);
  return true;
}

/** Every relation member of the tree, in archive order; false when the budget ran out first. */
async function relationPass(job: Job, archive: Archive, blobs: BlobStore): Promise<boolean> {
  const { db, projectId } = job;
  const [issueIids, mrs] = await batchReads(db, takenReads(db, projectId));
  const ctx: ImportContext = {
    db,
    projectId,
    importerId: job.state.importerId,
    users: job.progress.users ?? {},
    now: Date.now(),
    issueIids: new Set(issueIids.map((r) => r.iid)),
    mrIids: new Set(mrs.map((r) => r.iid)),
    labelsSeen: new Set(),
    milestonesSeen: new Set(),
    bulk: new BulkRows(),
    openBranchPairs: new Set(mrs.filter((r) => r.state === 'opened' || r.state === 'locked').map((r) => `${r.source}\n${r.target}`)),
    diffLimits: { maxFiles: Number(job.settings.diff_max_files ?? 1000), maxPatchBytes: Number(job.settings.diff_max_patch_bytes ?? 204800) },
  };
  for await (const m of archive()) {
    if (m.type !== 'file') continue;
    const tree = /^tree\/project\/([a-z_]+)\.ndjson$/.exec(m.name)?.[1];
    if (tree && RELATIONS[tree] && !job.progress.done[tree]) {
      if (!(await writeRelation(job, ctx, tree, relationLines(m)))) return false;
    } else if (isUploadMember(m.name)) {
      // Idempotent (same key, same row): a resumed pass that reaches it again changes nothing.
      const refused = await importUpload(db, blobs, projectId, m, Number(job.settings.max_attachment_size ?? 0));
      if (refused) await failure(job, 'uploads', 0, 'Gitlab::ImportExport::Error', refused);
    } else if (m.name === 'project.json' && job.progress.legacy) {
      // Legacy format: the whole tree in one document (read bounded, like any document).
      const project = JSON.parse(await documentText(m)) as Row;
      for (const rel of Object.keys(RELATIONS)) {
        if (job.progress.done[rel] || !Array.isArray(project[rel])) continue;
        const lines = (project[rel] as unknown[]).map((row, number): RelationLine =>
          row && typeof row === 'object' && !Array.isArray(row) ? { number, row: row as Row } : { number, error: 'Relation item is not an object', exceptionClass: 'Gitlab::ImportExport::Error' },
        );
        if (!(await writeRelation(job, ctx, rel, toAsync(lines)))) return false;
      }
    }
  }
  return true;
}

async function* toAsync<T>(items: T[]) {
  yield* items;
}

/** Writes one relation from its stored progress on; false when the budget ran out before its end. */
async function writeRelation(job: Job, ctx: ImportContext, relation: string, lines: AsyncIterable<RelationLine>): Promise<boolean> {
  const { db, projectId, progress } = job;
  const from = progress.next[relation] ?? 0;
  const build = RELATIONS[relation];
  let stmts: Stmt[] = [];
  let failures: Stmt[] = [];
  let count = 0;
  const flush = async (next: number, done: boolean) => {
    progress.next[relation] = next;
    if (done) progress.done[relation] = true;
    // The bulk rows after the per-line statements: they name the labels and milestones those wrote.
    await db.batch([...saveProgress(job), ...stmts, ...ctx.bulk.statements(db, projectId), ...failures] as unknown as Parameters<Db['batch']>[0]);
    stmts = [];
    failures = [];
    count = 0;
  };
  let last = from;
  for await (const l of lines) {
    if (l.number < from) continue;
    last = l.number + 1;
    if ('error' in l) failures.push(failure(job, relation, l.number, l.exceptionClass, l.error));
    else {
      try {
        stmts.push(...build(ctx, l.row));
      } catch (err) {
        if (!(err instanceof LineError)) throw err;
        failures.push(failure(job, relation, l.number, 'ActiveRecord::RecordInvalid', err.message));
      }
    }
    if (++count >= CHUNK_LINES || stmts.length + ctx.bulk.after.length >= CHUNK_STATEMENTS || ctx.bulk.chars >= CHUNK_CHARS) {
      await flush(last, false);
      if (Date.now() - job.started > job.budgetMs || ++job.batches >= MAX_BATCHES_PER_MESSAGE) return false;
    }
  }
  await flush(last, true);
  return true;
}

/** ImportFailure: fixed texts only, never archive content (CVE-2021-22201 leaked files through them). */
function failure(job: Job, relation: string, line: number, exceptionClass: string, message: string): Stmt {
  return job.db.insert(importFailures).values({
    projectId: job.projectId,
    correlationId: job.state.correlationId,
    relationKey: relation,
    relationIndex: line,
    exceptionClass,
    exceptionMessage: message,
    source: 'process_relation_item!',
    createdAt: Date.now(),
  });
}

/**
 * The batch's first statements: the progress moves from what this job last saw to its new value,
 * and when another copy of the job moved it first (changes() = 0) the guard's NULL into a NOT NULL
 * column aborts the whole batch, so a stale copy never writes a row or rewinds the progress.
 */
function saveProgress(job: Job): Stmt[] {
  const next = JSON.stringify(job.progress);
  const expected = job.stored;
  job.stored = next;
  return [
    job.db.update(projectImportStates).set({ progress: next, updatedAt: Date.now() }).where(sql`${projectImportStates.projectId} = ${job.projectId} AND ${projectImportStates.progress} = ${expected}`),
    job.db.insert(importFailures).select(sql`SELECT NULL, 0, NULL, '', NULL, '', NULL, '', 0 WHERE changes() = 0`),
  ];
}

/** iid counters continue after the imported iids; the import is finished (and takes over the original path under overwrite). */
async function finish(db: Db, projectId: number, override: Row, blobs: BlobStore) {
  const counter = (usage: 'issues' | 'merge_requests' | 'milestones') =>
    db
      .insert(internalIds)
      .select(sql`SELECT ${usage}, ${projectId}, coalesce(max(iid), 0) FROM ${sql.raw(usage)} WHERE project_id = ${projectId}`)
      .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`max(${internalIds.lastValue}, excluded.last_value)` } });
  await overwriteSwap(
    db,
    projectId,
    override,
    [
      counter('issues'),
      counter('merge_requests'),
      counter('milestones'),
      db.update(projectImportStates).set({ status: 'finished', lastError: null, blobKey: null, updatedAt: Date.now() }).where(eq(projectImportStates.projectId, projectId)),
    ],
    blobs,
  );
}

/** The dead-letter path: a job that failed on every delivery leaves the import failed, not `started` for ever. */
export async function failProjectImport(message: JobMessage, deps: JobDeps): Promise<void> {
  await deps.db
    .update(projectImportStates)
    .set({ status: 'failed', lastError: 'The import job failed after repeated errors', updatedAt: Date.now() })
    .where(sql`${projectImportStates.projectId} = ${Number(message.projectId)} AND ${projectImportStates.status} IN ('scheduled', 'started')`);
}
