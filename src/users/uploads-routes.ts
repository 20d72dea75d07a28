/**
 * Uploaded files served from the blob store where GitLab serves them (outside /api/v4): user
 * avatars at /uploads/-/system/user/avatar/:id/:filename. Avatars are public in GitLab.
 */
import { notFound } from '../platform/errors';
import { raw } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';

/** Only image types are ever stored as avatars (services/users.ts); serve them with a fixed type, never sniffed. */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', tiff: 'image/tiff', ico: 'image/x-icon', webp: 'image/webp',
};

export function mountUploads(web: Router) {
  web.route(
    {
      method: 'GET',
      path: '/uploads/-/system/user/avatar/:id/:filename',
      summary: "A user's uploaded avatar",
      tags: ['uploads'],
      params: params({ id: g.int(), filename: g.string() }),
      responses: { 200: raw('image/*', 'The image, with the type its extension names') },
    },
    async ({ c, p }) => {
      const ext = p.filename.split('.').pop()?.toLowerCase() ?? '';
      const type = IMAGE_TYPES[ext];
      if (!type) throw notFound();
      const blob = await c.var.blobs.get(`uploads/-/system/user/avatar/${p.id}/${p.filename}`);
      if (!blob) throw notFound();
      return new Response(blob.body, {
        headers: {
          'Content-Type': type,
          'Content-Length': String(blob.size),
          'Content-Disposition': 'inline',
          'Cache-Control': 'public, max-age=300',
          'X-Content-Type-Options': 'nosniff',
        },
      });
    },
  );
}
