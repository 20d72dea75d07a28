/** Files and trees (lib/api/files.rb, repositories.rb tree). */
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import { repositoryFileEntity, RepositoryFileSchema, type TreeObject, TreeObjectSchema } from './file-entity';
import { grapeError, notFound } from '../platform/errors';
import { linkParamsFrom, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { raw } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { commitAtRef, fileAtRef, lastCommitForPathAtRef, manifestRows } from './history-reads';
import { cachedManifest, type CommitRow, type FileEntry, readBlob, rememberManifest } from './repository-store';
import { readableRepoWith, TAGS } from './repository-support';

const fileParams = params({ id: g.string(), file_path: g.string(), ref: g.string().optional() });

export function mountFiles(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/repository/files/:file_path', summary: 'Get file from repository', tags: TAGS, params: fileParams, responses: { 200: RepositoryFileSchema } },
    async ({ c, p, caller }) => {
      const { found, commit, file, ref, lastCommit } = await findFile(c, caller, p, true);
      const bytes = (await readBlob(c, found.project.id, file.blobSha)) ?? new Uint8Array();
      const { createHash } = await import('node:crypto');
      return c.json(
        repositoryFileEntity(p.file_path, file, {
          ref,
          commitSha: commit.sha,
          lastCommitId: lastCommit,
          contentSha256: createHash('sha256').update(bytes).digest('hex'),
          content: Buffer.from(bytes).toString('base64'),
        }),
      );
    },
  );

  r.route({ method: 'GET', path: '/projects/:id/repository/files/:file_path/raw', summary: 'Get raw file from repository', tags: TAGS, params: fileParams, responses: { 200: raw('text/plain') } }, async ({ c, p, caller }) => {
    const { found, file } = await findFile(c, caller, p, false);
    const bytes = (await readBlob(c, found.project.id, file.blobSha)) ?? new Uint8Array();
    return c.body(bytes as unknown as ArrayBuffer, 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Gitlab-Blob-Id': file.blobSha, 'X-Gitlab-Size': String(file.size) });
  });

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
 * The project, the commit the ref names, the file and (for the JSON answer) the last commit that
 * changed it, in one round trip: the ref is resolved inside each statement (history-reads.ts).
 */
async function findFile(c: Context<AppEnv>, caller: Caller, p: { id: string; file_path: string; ref?: string }, withLastCommit: boolean) {
  if (withLastCommit && p.ref === undefined) throw grapeError('ref is missing');
  const db = c.var.db;
  const found = await readableRepoWith(
    c,
    caller,
    p.id,
    (projectId) => [commitAtRef(db, projectId, p.ref), fileAtRef(db, projectId, p.ref, p.file_path), ...(withLastCommit ? [lastCommitForPathAtRef(db, projectId, p.ref, p.file_path)] : [])] as const,
  );
  const [[commit], [file], last] = found.reads as unknown as [CommitRow[], FileEntry[], { sha: string }[] | undefined];
  if (!commit || !file) throw notFound('File');
  return { found, commit, file, ref: p.ref ?? found.project.defaultBranch ?? '', lastCommit: last?.[0]?.sha ?? null };
}
