/** bundle-import.ts over D1 and R2: an exported bundle written into another project answers the same commits and branches. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { d1Db } from '../../src/db/d1';
import { r2Blobs } from '../../src/platform/blobs';
import { readBundle } from '../../src/import-export/bundle-read';
import { importBundle } from '../../src/import-export/bundle-import';
import { api, createUser, unique } from '../support';
import { download, untar, waitForExport } from './export-support';

describe('importBundle on D1 and R2', () => {
  it('writes an exported history that the commits and branches APIs answer as for the original', async () => {
    const u = await createUser();
    const t = u.token;
    const a = (await api('/projects', { token: t, body: { name: unique('src') } })).body;
    const commit = (body: Record<string, unknown>) => api(`/projects/${a.id}/repository/commits`, { token: t, body });
    expect((await commit({ branch: 'main', commit_message: 'Initial', actions: Array.from({ length: 20 }, (_, i) => ({ action: 'create', file_path: `d${i % 3}/f${i}.txt`, content: `${i}\n` })) })).status).toBe(201);
    expect((await commit({ branch: 'topic', start_branch: 'main', commit_message: 'Topic', actions: [{ action: 'update', file_path: 'd0/f0.txt', content: 'zero\n' }] })).status).toBe(201);
    expect((await api(`/projects/${a.id}/export`, { method: 'POST', token: t })).status).toBe(202);
    await waitForExport(a.id, t);
    const bundle = readBundle((await untar(await (await download(a.id, t)).arrayBuffer())).get('./project.bundle')!);

    const b = (await api('/projects', { token: t, body: { name: unique('dst') } })).body;
    const bindings = env as unknown as { DB: D1Database; BLOBS: R2Bucket };
    expect(await importBundle(d1Db(bindings.DB), r2Blobs(bindings.BLOBS), b.id, bundle)).toBe('main');
    for (const path of ['/repository/commits?ref_name=main&with_stats=true', '/repository/commits?ref_name=topic&with_stats=true']) {
      const [x, y] = await Promise.all([api(`/projects/${a.id}${path}`, { token: t }), api(`/projects/${b.id}${path}`, { token: t })]);
      const strip = (list: Record<string, unknown>[]) => list.map(({ web_url: _w, project_id: _p, ...rest }) => rest);
      expect(strip(y.body)).toEqual(strip(x.body));
    }
    const file = await api(`/projects/${b.id}/repository/files/d0%2Ff0.txt?ref=topic`, { token: t });
    expect(atob(file.body.content)).toBe('zero\n');
  });
});
