/** Uploading archives to POST /projects/import and waiting for the job, as a client polls. */
import { api, type ApiResponse } from '../support';

export async function uploadImport(token: string, archive: Uint8Array, fields: Record<string, string> = {}, filename = 'export.tar.gz'): Promise<ApiResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' }), filename);
  return api('/projects/import', { token, multipart: form });
}

/** Polls GET /projects/:id/import until the import ends (the Queue delivers in batches on workerd). */
export async function waitForImport(token: string, id: number, timeoutMs = 25_000): Promise<ApiResponse> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`/projects/${id}/import`, { token });
    if (res.status !== 200 || res.body.import_status === 'finished' || res.body.import_status === 'failed' || Date.now() > until) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}
