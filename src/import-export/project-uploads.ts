/**
 * Project Markdown uploads (lib/api/project_uploads.rb, UploadService, FileUploader) and their place
 * in the export archive (Gitlab::ImportExport::UploadsManager): `uploads/<secret>/<filename>`.
 *
 * A file uploaded to a project is linked from Markdown as `/uploads/<secret>/<filename>`, a path
 * relative to the project; an import restores each file under the same secret and name in the NEW
 * project, so the links in imported descriptions and notes resolve there unchanged. The blob key
 * carries the project id (`uploads/project/<id>/<secret>/<filename>`): an archive naming another
 * project's secret writes only into the importing project (H1 #534794), and a name is one path
 * segment, never `..` (CVE-2020-10977).
 */
import { and, asc, eq, gt } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { projectUploads } from '../db/schema';
import type { BlobStore } from '../platform/blobs';
import { randomHex } from '../platform/crypto';
import { forbidden, notFound, tooLarge } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { id, obj, raw } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import type { TarMember } from '../platform/tar-read';
import { g, params } from '../platform/validate';
import { ACCESS } from '../projects/abilities';
import { findReadableProject } from '../projects/projects';
import { settingsOf } from '../settings/settings';

const MB = 1024 * 1024;
const SECRET = /^[0-9a-f]{32}$/;

export const uploadKey = (projectId: number, secret: string, filename: string) => `uploads/project/${projectId}/${secret}/${filename}`;

/** CarrierWave's sanitize_regexp: anything but word characters, `.`, `-` and `+` becomes `_`; never `.` or `..`. */
export function sanitizeUploadName(name: string): string | null {
  const clean = name.replace(/[^\p{L}\p{N}_.+-]/gu, '_').slice(0, 255);
  return clean && clean !== '.' && clean !== '..' ? clean : null;
}

/** Gitlab::FileTypeDetection::SAFE_IMAGE_EXT: these are linked as images (`![alt](url)`). */
const IMAGE_EXT = new Set(['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp']);

export const ProjectUploadSchema = obj({
  id,
  alt: z.string(),
  url: z.string(),
  full_path: z.string(),
  markdown: z.string(),
}).meta({ id: 'ProjectUpload' });

/** Entities::ProjectUpload (FileUploader#to_h): `full_path` is /-/project/<id>/uploads/… since GitLab 17.1. */
function uploadEntity(row: typeof projectUploads.$inferSelect): z.infer<typeof ProjectUploadSchema> {
  const url = `/uploads/${row.secret}/${row.filename}`;
  const dot = row.filename.lastIndexOf('.');
  const alt = dot > 0 ? row.filename.slice(0, dot) : row.filename;
  const image = IMAGE_EXT.has(row.filename.slice(dot + 1).toLowerCase());
  return { id: row.id, alt, url, full_path: `/-/project/${row.projectId}${url}`, markdown: image ? `![${alt}](${url})` : `[${row.filename}](${url})` };
}

export function mountProjectUploads(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/:id/uploads',
      summary: 'Upload a file to a project, for Markdown',
      tags: ['projects'],
      signedIn: true,
      bodyLimit: async (c) => (Number((await settingsOf(c)).max_attachment_size) || 100) * MB + MB,
      params: params({ id: g.string(), file: g.file() }),
      responses: { 201: ProjectUploadSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const found = await findReadableProject(c, caller, p.id);
      // ProjectPolicy: upload_file comes with guest_access (any member; an administrator).
      if (!caller.isAdmin && found.level < ACCESS.GUEST) throw forbidden();
      // FileUploader's size check (enforce_max_attachment_size_upload_api): 413.
      if (p.file.size > (Number((await settingsOf(c)).max_attachment_size) || 100) * MB) throw tooLarge();
      const filename = sanitizeUploadName((p.file as File).name || 'file') ?? 'file';
      const secret = randomHex(16);
      const projectId = found.project.id;
      await c.var.blobs.put(uploadKey(projectId, secret, filename), await p.file.arrayBuffer(), 'application/octet-stream');
      const [row] = await c.var.db.insert(projectUploads).values({ projectId, secret, filename, size: p.file.size, uploadedById: caller.user!.id, createdAt: Date.now() }).returning();
      return c.json(uploadEntity(row), 201);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/uploads/:secret/:filename',
      summary: 'Download an uploaded file by secret and filename',
      tags: ['projects'],
      params: params({ id: g.string(), secret: g.string(), filename: g.string() }),
      responses: { 200: raw('application/octet-stream', 'The file, always as an attachment') },
    },
    async ({ c, p, caller }) => {
      const found = await findReadableProject(c, caller, p.id);
      // project_uploads.rb: authorize! :admin_upload (Maintainer).
      if (!caller.isAdmin && found.level < ACCESS.MAINTAINER) throw forbidden();
      if (!SECRET.test(p.secret) || sanitizeUploadName(p.filename) !== p.filename) throw notFound('Upload');
      const rows = await c.var.db
        .select()
        .from(projectUploads)
        .where(and(eq(projectUploads.projectId, found.project.id), eq(projectUploads.secret, p.secret), eq(projectUploads.filename, p.filename)))
        .limit(1)
        .all();
      const blob = rows[0] ? await c.var.blobs.get(uploadKey(found.project.id, p.secret, p.filename)) : null;
      if (!blob) throw notFound('Upload');
      // Never rendered by the browser as the uploader chose: an attachment, not sniffed.
      return new Response(blob.body, {
        headers: {
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(blob.size),
          'Content-Disposition': `attachment; filename="${p.filename}"`,
          'X-Content-Type-Options': 'nosniff',
        },
      });
    },
  );
}

/** The project's uploads for the archive, a page of rows at a time, each file read whole (a tar header needs its size; each is bounded by max_attachment_size). */
export async function* uploadMembers(db: Db, blobs: BlobStore, projectId: number): AsyncGenerator<{ name: string; bytes: Uint8Array }> {
  let after = 0;
  for (;;) {
    const rows = await db.select().from(projectUploads).where(and(eq(projectUploads.projectId, projectId), gt(projectUploads.id, after))).orderBy(asc(projectUploads.id)).limit(100).all();
    if (!rows.length) return;
    for (const u of rows) {
      const blob = await blobs.get(uploadKey(projectId, u.secret, u.filename));
      // A file gone from the store is left out, as UploadsManager skips a missing file.
      if (blob) yield { name: `uploads/${u.secret}/${u.filename}`, bytes: new Uint8Array(await new Response(blob.body).arrayBuffer()) };
    }
    after = rows[rows.length - 1].id;
  }
}

export const isUploadMember = (name: string) => name.startsWith('uploads/');

/**
 * One `uploads/<secret>/<filename>` member into project `projectId`; the reason it was refused, or
 * null. Written again by a resumed import, it lands on the same key and row (idempotent).
 */
export async function importUpload(db: Db, blobs: BlobStore, projectId: number, m: TarMember, maxAttachmentMb: number): Promise<string | null> {
  const parts = /^uploads\/([^/]+)\/([^/]+)$/.exec(m.name);
  const filename = parts ? sanitizeUploadName(parts[2]) : null;
  // A member left unread is skipped by the tar reader.
  if (!parts || !SECRET.test(parts[1]) || filename !== parts[2]) return 'Upload path is invalid';
  const max = (maxAttachmentMb > 0 ? maxAttachmentMb : 100) * MB;
  if (m.size > max) return 'File is too large';
  const bytes = new Uint8Array(await new Response(m.body).arrayBuffer());
  await blobs.put(uploadKey(projectId, parts[1], filename), bytes, 'application/octet-stream');
  await db.insert(projectUploads).values({ projectId, secret: parts[1], filename, size: bytes.byteLength, uploadedById: null, createdAt: Date.now() }).onConflictDoNothing();
  return null;
}
