/**
 * Project import from an uploaded export archive (lib/api/project_import.rb): POST /projects/import
 * and GET /projects/:id/import. The work itself runs on the Jobs port (import-job.ts).
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { ApiError, forbidden, tooLarge } from '../platform/errors';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import type { FileSink } from '../platform/multipart-params';
import { randomHex } from '../platform/crypto';
import { requireUser } from '../platform/guards';
import { type Settings, settingsOf } from '../settings/settings';
import { findReadableProjectWith } from '../projects/projects';
import { ACCESS } from '../projects/abilities';
import { createImport } from './import-create';
import { importStatusEntity, importStatusReads, ProjectImportStatusSchema } from './import-status';
import { mountRemoteImport } from './remote-import';
import { mountRemoteImportS3 } from './remote-import-s3';

const TAGS = ['project_import'];
const MB = 1024 * 1024;
/**
 * With `max_import_size` 0 (unlimited) the upload is still bounded (a Worker's request body is
 * capped by its plan anyway); a larger archive needs an explicit max_import_size.
 */
const UNLIMITED_UPLOAD = 256 * MB;
const UPLOAD_KEY = 'importUploadKey';

/**
 * The archive goes to the blob store as it arrives (Workhorse's upload acceleration, here without a
 * disk): the multipart file part is streamed into the store (a file on Node, an R2 multipart upload
 * on Workers, one part in memory at a time) and its bytes are counted against max_import_size as they
 * come, so an upload over it stops with a 413 at the limit. Whatever was stored is removed when the
 * request fails (router.ts), so a refused upload leaves no blob.
 */
const archiveSink: FileSink = {
  async store(c, part) {
    const ctx = c as Context<AppEnv>;
    // Only a `.gz` file parameter where gitlab_project imports are on is stored; anything else is
    // read past and the handler answers it (403, 422) after the rate limit, as GitLab orders them.
    const sources = (await settingsOf(ctx)).import_sources;
    const enabled = Array.isArray(sources) && sources.map(String).includes('gitlab_project');
    if (part.field !== 'file' || !enabled || !/\.gz$/i.test(part.filename) || ctx.get(UPLOAD_KEY as never)) {
      await part.body.cancel();
      return new File([], part.filename);
    }
    const max = await maxImportBytes(ctx);
    const key = `imports/${randomHex(16)}/archive.tar.gz`;
    ctx.set(UPLOAD_KEY as never, key as never);
    let size = 0;
    const counted = part.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          size += chunk.byteLength;
          if (size > max) out.error(tooLarge());
          else out.enqueue(chunk);
        },
      }),
    );
    try {
      await ctx.var.blobs.put(key, counted, 'application/gzip');
    } catch (err) {
      if (size > max) throw tooLarge();
      throw err;
    }
    return new File([], part.filename, { type: part.type });
  },
  async discard(c) {
    const key = c.get(UPLOAD_KEY as never) as string | undefined;
    if (key) await (c as Context<AppEnv>).var.blobs.delete(key);
  },
};

/** FileUploadHelpers#validate_file!: ImportExportUploader allows `gz` and `tar.gz` names. */
const notGzip = () => new ApiError(422, { message: { error: 'You need to upload a GitLab project export archive (ending in .gz).' } });

/** `max_import_size` (MB) bounds the file; the form's other fields get a little room beyond it. */
const maxImportBytes = async (c: Context<AppEnv>) => {
  const mb = Number((await settingsOf(c)).max_import_size) || 0;
  return mb > 0 ? mb * MB : UNLIMITED_UPLOAD;
};

/** project_import.rb `before { forbidden! unless import_sources.include?('gitlab_project') }`, for every route of the file. */
function requireGitlabProjectSource(settings: Settings) {
  const sources = Array.isArray(settings.import_sources) ? settings.import_sources.map(String) : [];
  if (!sources.includes('gitlab_project')) throw forbidden();
}

export function mountProjectImport(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/import',
      summary: 'Import a project from a GitLab export archive',
      tags: TAGS,
      signedIn: true,
      rateLimit: 'project_import',
      bodyLimit: async (c) => (await maxImportBytes(c)) + MB,
      fileSink: archiveSink,
      params: params({
        path: g.string(),
        file: g.file(),
        name: g.string().optional(),
        namespace: g.string().optional(),
        overwrite: g.bool().optional(),
        override_params: g.hash().optional(),
      }),
      responses: { 201: ProjectImportStatusSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const settings = await settingsOf(c);
      requireGitlabProjectSource(settings);
      const blobKey = c.get(UPLOAD_KEY as never) as string | undefined;
      if (!blobKey) throw notGzip();
      const status = await createImport(c, caller, settings, {
        path: p.path,
        name: p.name,
        namespace: p.namespace,
        overwrite: p.overwrite ?? false,
        overrideParams: (p.override_params ?? {}) as Record<string, unknown>,
        blobKey,
      });
      return c.json(status, 201);
    },
  );

  mountRemoteImport(r);
  mountRemoteImportS3(r);

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/import',
      summary: 'Get the import status of a project',
      tags: TAGS,
      params: params({ id: g.string() }),
      responses: { 200: ProjectImportStatusSchema },
    },
    async ({ c, p, caller }) => {
      requireGitlabProjectSource(await settingsOf(c));
      const found = await findReadableProjectWith(c, caller, p.id, (projectId) => importStatusReads(c.var.db, projectId));
      const [states, failures, names] = found.reads;
      const status = importStatusEntity(found.project, found.namespace, names[0]?.fullName ?? found.namespace.name, states[0], failures);
      // ProjectImportStatus#import_error: the error itself only for who may administer the project (read_import_error).
      if (status.import_error !== null && !caller.isAdmin && found.level < ACCESS.MAINTAINER) status.import_error = 'Ask a maintainer to check the import status for more details.';
      return c.json(status);
    },
  );
}
