/** `GET /projects/:id/repository/archive[.format]` (repositories.rb, Workhorse sendarchive): the repository at a ref as a download. */
import { ApiError, notFound } from '../platform/errors';
import type { RouteContext, Router } from '../platform/router';
import { raw } from '../platform/response-schemas';
import { g, params } from '../platform/validate';
import { checkRateLimit } from '../settings/rate-limits';
import { archiveExtension, archiveFiles, archivePrefix, tarArchive, zipArchive } from './archive';
import { commitAtRef, manifestRows, refSha } from './history-reads';
import { rememberManifest } from './repository-store';
import { readableRepoWith, TAGS } from './repository-support';

const archiveParams = params({
  id: g.string(),
  sha: g.string().optional(),
  format: g.string().optional(),
  path: g.string().optional(),
  /** No LFS objects are stored here, so there is nothing to leave out. */
  include_lfs_blobs: g.bool().default(true),
  exclude_paths: g.csv().default([]),
});

/** Gitlab::RepositoryArchiveRateLimiter: `project_repositories_archive`, 5 a minute per project and user, 100 for anonymous callers. */
const ARCHIVE_LIMIT = { user: 5, anonymous: 100, intervalSeconds: 60 };

/** Gitlab::PathRegex.archive_formats_regex: the extensions `archive.<format>` takes. */
const FORMATS = ['zip', 'tar.gz', 'tgz', 'gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2', 'tar'];

const responses = { 200: raw('application/*', 'The archive: application/zip for zip, application/octet-stream otherwise') };

export function mountArchive(r: Router) {
  r.route({ method: 'GET', path: '/projects/:id/repository/archive', summary: 'Get an archive of the repository', tags: TAGS, params: archiveParams, responses }, (ctx) => serveArchive(ctx, ctx.p.format));
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/repository/archive.:format',
      // Grape's `requirements: { format: archive_formats_regex }`: another extension matches no route.
      honoPath: `/projects/:id/repository/:format{archive\\.(?:${FORMATS.map((f) => f.replace('.', '\\.')).join('|')})}`,
      summary: 'Get an archive of the repository in a format named by its extension',
      tags: TAGS,
      params: archiveParams,
      responses,
    },
    (ctx) => serveArchive(ctx, ctx.p.format?.replace(/^archive\./, '')),
  );
}

async function serveArchive({ c, p, caller }: RouteContext<typeof archiveParams.shape>, format: string | undefined): Promise<Response> {
  const db = c.var.db;
  // The project, the commit the ref names (the default branch without one) and its files: one round trip.
  const found = await readableRepoWith(c, caller, p.id, (pid) => [commitAtRef(db, pid, p.sha), manifestRows(db, pid, refSha(pid, p.sha))] as const);
  try {
    await checkRateLimit(c, 'project_repositories_archive', [found.project.id, caller.user?.id ?? null], caller.user ? ARCHIVE_LIMIT.user : ARCHIVE_LIMIT.anonymous, ARCHIVE_LIMIT.intervalSeconds);
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) throw new ApiError(429, { message: { error: 'This archive has been requested too many times. Try again later.' } }, err.headers);
    throw err;
  }
  const [[commit], fileRows] = found.reads;
  const ext = archiveExtension(format);
  // repositories.rb answers every failure of send_git_archive (no such ref, no such path) with 404 File.
  if (!commit) throw notFound('File');
  const files = archiveFiles(rememberManifest(db, found.project.id, commit.sha, fileRows), p.path, p.exclude_paths);
  if (p.path && !files.length) throw notFound('File');
  // bzip2 needs a compressor no runtime here ships; GitLab's own answer to an archive it will not send.
  if (ext === 'tar.bz2') throw new ApiError(406, { message: '406 Not Acceptable' });
  const ref = p.sha ?? found.project.defaultBranch ?? commit.sha;
  const prefix = archivePrefix(found.project.path, ref, commit.sha, p.path);
  const input = { blobs: c.var.blobs, projectId: found.project.id, sha: commit.sha, prefix, mtime: commit.committedAt, files };
  const body = c.req.method === 'HEAD' ? null : ext === 'zip' ? zipArchive(input) : tarArchive(input, ext === 'tar.gz');
  // Workhorse's setArchiveHeaders.
  return new Response(body, {
    status: 200,
    headers: {
      'Content-Type': ext === 'zip' ? 'application/zip' : 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${prefix}.${ext}"`,
      'Content-Transfer-Encoding': 'binary',
    },
  });
}
