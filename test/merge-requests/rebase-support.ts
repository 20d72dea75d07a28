/** The queued rebase as clients see it: PUT answers 202 in progress, GET polls until it is not. */
import { expect } from 'vitest';
import { api, type ApiResponse } from '../support';

/**
 * GET with include_rebase_in_progress until the queued rebase is done (the in-process runner on
 * Node, the Queue consumer on workerd), as GitLab's clients poll; the merge request as then shown.
 */
export async function waitForRebase(base: string, token: string, timeoutMs = 25_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`${base}?include_rebase_in_progress=true`, { token });
    expect(res.status).toBe(200);
    if (res.body.rebase_in_progress === false) return res.body;
    if (Date.now() > until) throw new Error(`rebase of ${base} still in progress`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** PUT `${base}/rebase` (queued: 202, in progress), then wait for it; the PUT's answer and the merge request after. */
export async function rebase(base: string, token: string): Promise<{ res: ApiResponse; mr: Record<string, any> }> {
  const res = await api(`${base}/rebase`, { method: 'PUT', token });
  expect(res).toMatchObject({ status: 202, body: { rebase_in_progress: true } });
  return { res, mr: await waitForRebase(base, token) };
}
