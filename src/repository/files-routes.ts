/** Files and trees (lib/api/files.rb, repositories.rb tree). */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { type BlobData, repositoryFileEntity, RepositoryFileSchema, type TreeObject, TreeObjectSchema } from './file-entity';
import { notFound } from '../platform/errors';
import { linkParamsFrom, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { raw } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, nonBlank, params } from '../platform/validate';
import { commitAtRef, fileAtRef, lastCommitForPathAtRef, manifestRows } from './history-reads';
import { cachedManifest, type CommitRow, type FileEntry, readBlob, rememberManifest } from './repository-store';
import { apiMessage, readableRepoWith, TAGS } from './repository-support';
import { blameGroups, blameReads, BlameRangeSchema } from './blame';
import { checkFilePath } from './file-commits';
import { mountFileWrites } from './file-writes-routes';

const fileParams = params({ id: g.string(), file_path: g.string(), ref: nonBlank() });
const rawParams = params({ id: g.string(), file_path: g.string(), ref: nonBlank().optional(), lfs: g.bool().default(false) });
const positive = () => g.int().refine((n) => n > 0, { message: 'does not have a valid value' });
const blameParams = params({ id: g.string(), file_path: g.string(), ref: nonBlank(), range: z.object({ start: positive(), end: positive() }).meta({ grapeType: 'Hash', jsonType: 'object' }).optional() });

export function mountFiles(r: Router) {
  // GET answers HEAD too (router.ts): files.rb's `head` sends the same X-Gitlab-* headers without a body.
  r.route(
    { method: 'GET', path: '/projects/:id/repository/files/:file_path', summary: 'Get file from repository', tags: TAGS, params: fileParams, responses: { 200: RepositoryFileSchema } },
    async ({ c, p, caller }) => {
      const path = checkFilePath(p.file_path);
      const { found, commit, file, lastCommit } = await findFile(c, caller, p, path, true);
      const bytes = await fileBytes(c, found.project.id, file);
      const data = await blobData(path, file, { ref: p.ref, commitSha: commit.sha, lastCommitId: lastCommit }, bytes);
      setBlobHeaders(c, data);
      if (c.req.method === 'HEAD') return c.body(null, 200);
      return c.json(repositoryFileEntity(data, Buffer.from(bytes).toString('base64')));
    },
  );

  r.route({ method: 'GET', path: '/projects/:id/repository/files/:file_path/raw', summary: 'Get raw file from repository', tags: TAGS, params: rawParams, responses: { 200: raw('text/plain') } }, async ({ c, p, caller }) => {
    const path = checkFilePath(p.file_path, { allowInitialSeparator: true });
    // `lfs`: no file here is an LFS pointer, so the blob is always what is sent.
    const { found, commit, file, lastCommit } = await findFile(c, caller, p, path, true);
    const bytes = await fileBytes(c, found.project.id, file);
    setBlobHeaders(c, await blobData(path, file, { ref: p.ref ?? null, commitSha: commit.sha, lastCommitId: lastCommit }, bytes));
    const name = path.split('/').pop()!;
    // no_cache_headers and send_git_blob's inline disposition (ActionDispatch::Http::ContentDisposition).
    return c.body(bytes as unknown as ArrayBuffer, 200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-cache, no-store',
      Pragma: 'no-cache',
      Expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
      'Content-Disposition': inlineDisposition(name),
    });
  });

  r.route(
    { method: 'GET', path: '/projects/:id/repository/files/:file_path/blame', summary: 'Get blame file from the repository', tags: TAGS, params: blameParams, responses: { 200: z.array(BlameRangeSchema) } },
    async ({ c, p, caller }) => {
      const path = checkFilePath(p.file_path);
      if (p.range && p.range.start > p.range.end) throw apiMessage(400, 'range[start] must be less than or equal to range[end]');
      const db = c.var.db;
      // The file, its last commit and the history of the path come with the project: one round trip.
      const { found, commit, file, lastCommit, extra } = await findFile(c, caller, p, path, true, (pid) => blameReads(db, pid, p.ref, path));
      const [history, blobs] = extra as [CommitRow[], { sha: string; blobSha: string; size: number }[]];
      const bytes = await fileBytes(c, found.project.id, file);
      setBlobHeaders(c, await blobData(path, file, { ref: p.ref, commitSha: commit.sha, lastCommitId: lastCommit }, bytes));
      if (c.req.method === 'HEAD') return c.body(null, 200);
      return c.json(await blameGroups(c, found.project.id, history, blobs, p.range?.start ?? 1, p.range?.end ?? Number.MAX_SAFE_INTEGER));
    },
  );

  mountFileWrites(r);

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/tree',
      summary: 'List repository tree',
      tags: TAGS,
      params: params({ id: g.string(), path: g.string().optional(), ref: g.string().optional(), recursive: g.bool().default(false), ...paginationParams }),
      responses: { 200: z.array(TreeObjectSchema) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      // The commit is resolved with the project's lookup; its file list is read only when this isolate has not kept it.
      const found = await readableRepoWith(c, caller, p.id, (projectId) => [commitAtRef(db, projectId, p.ref)] as const);
      const [commit] = found.reads[0];
      if (!commit) throw notFound('Tree');
      const dir = (p.path ?? '').replace(/^\/+|\/+$/g, '');
      const prefix = dir ? `${dir}/` : '';
      const files = cachedManifest(db, found.project.id, commit.sha) ?? rememberManifest(db, found.project.id, commit.sha, await manifestRows(db, found.project.id, commit.sha));
      const entries = new Map<string, TreeObject>();
      const { treeId } = await import('./git-objects');
      for (const [path, e] of files) {
        if (!path.startsWith(prefix)) continue;
        const rest = path.slice(prefix.length).split('/');
        const depth = p.recursive ? rest.length : 1;
        for (let i = 1; i <= Math.min(depth, rest.length); i++) {
          const entryPath = prefix + rest.slice(0, i).join('/');
          if (entries.has(entryPath)) continue;
          const isFile = i === rest.length;
          if (isFile) entries.set(entryPath, { id: e.blobSha, name: rest[i - 1], type: 'blob', path: entryPath, mode: e.mode });
          else {
            const sub = new Map([...files].filter(([fp]) => fp.startsWith(`${entryPath}/`)).map(([fp, fe]) => [fp.slice(entryPath.length + 1), fe]));
            entries.set(entryPath, { id: treeId(sub), name: rest[i - 1], type: 'tree', path: entryPath, mode: '040000' });
          }
        }
      }
      if (dir && !entries.size) throw notFound('Tree');
      // Gitaly's default tree order: trees first, then blobs, each by path.
      const list = [...entries.values()].sort((a, b) => (a.type === b.type ? (a.path < b.path ? -1 : 1) : a.type === 'tree' ? -1 : 1));
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      const page = list.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), list.length, page.length);
      return c.json(page);
    },
  );
}

/**
 * files.rb `assign_file_vars!`: the project, the commit the ref names (404 Commit), the file in it
 * (404 File) and the last commit that changed it, with any `extra` reads, in one round trip: the ref
 * is resolved inside each statement (history-reads.ts).
 */
async function findFile(c: Context<AppEnv>, caller: Caller, p: { id: string; ref?: string }, path: string, withLastCommit: boolean, extra?: (projectId: SQL) => readonly BatchItem<'sqlite'>[]) {
  const db = c.var.db;
  const found = await readableRepoWith(c, caller, p.id, (projectId) => [
    commitAtRef(db, projectId, p.ref),
    fileAtRef(db, projectId, p.ref, path),
    ...(withLastCommit ? [lastCommitForPathAtRef(db, projectId, p.ref, path)] : []),
    ...(extra?.(projectId) ?? []),
  ]);
  const [[commit], [file], last, ...more] = found.reads as unknown as [CommitRow[], FileEntry[], { sha: string }[] | undefined, ...unknown[]];
  if (!commit) throw notFound('Commit');
  if (!file) throw notFound('File');
  return { found, commit, file, lastCommit: last?.[0]?.sha ?? null, extra: more };
}

/** files.rb `blob_data`: the fields of the JSON answer before `content`, also sent as headers. */
async function blobData(path: string, file: FileEntry, x: { ref: string | null; commitSha: string; lastCommitId: string | null }, bytes: Uint8Array): Promise<BlobData> {
  const { createHash } = await import('node:crypto');
  return {
    file_name: path.split('/').pop()!,
    file_path: path,
    size: file.size,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(bytes).digest('hex'),
    ref: x.ref,
    blob_id: file.blobSha,
    commit_id: x.commitSha,
    last_commit_id: x.lastCommitId,
    execute_filemode: file.mode === '100755',
  };
}

/** HeadersHelpers#set_http_headers: `X-Gitlab-File-Name` and so on; a nil value sends no header (raw without `ref`). */
function setBlobHeaders(c: Context<AppEnv>, data: BlobData) {
  for (const [key, value] of Object.entries(data)) {
    if (value === null) continue;
    c.header(`X-Gitlab-${key.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('-')}`, String(value));
  }
}

/** The file's content; an empty file is not fetched from the blob store (R2 logs a cancelled reader for an empty body). */
const fileBytes = async (c: Context<AppEnv>, projectId: number, file: FileEntry) => (file.size ? await readBlob(c, projectId, file.blobSha) : null) ?? new Uint8Array();

/**
 * ActionDispatch::Http::ContentDisposition.format(disposition: 'inline', filename:): an ASCII
 * `filename` (other characters transliterated to `?`, then percent-escaped outside its token set)
 * and the UTF-8 bytes in `filename*` (RFC 5987).
 */
function inlineDisposition(name: string): string {
  const hex = (b: number) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  const ascii = [...name].map((ch) => (ch.charCodeAt(0) > 0x7f ? '?' : ch)).join('').replace(/[^ A-Za-z0-9!#$+.^_`|~-]/g, (ch) => hex(ch.charCodeAt(0)));
  const utf8 = [...new TextEncoder().encode(name)].map((b) => (/[A-Za-z0-9!#$&+.^_`|~-]/.test(String.fromCharCode(b)) && b < 0x80 ? String.fromCharCode(b) : hex(b))).join('');
  return `inline; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}
