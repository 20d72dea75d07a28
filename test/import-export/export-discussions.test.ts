/**
 * What an export writes for tags and discussions, in GitLab's shape (import_export.yml): the
 * `protected_tags` relation with `create_access_levels`, `commit_notes`, notes with their
 * discussion_id, type, position/original_position (an object) and resolved state, and
 * only_allow_merge_if_all_discussions_are_resolved in project.json.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { download, ndjson, untar, waitForExport } from './export-support';

describe('export of tags and discussions', () => {
  it('writes protected_tags, commit_notes, DiffNote positions, resolved state and the discussions setting', async () => {
    const u = await createUser();
    const t = u.token;
    const p = (await api('/projects', { token: t, body: { name: unique('exd') } })).body;
    const P = `/projects/${p.id}`;
    const commit = (body: Record<string, unknown>) => api(`${P}/repository/commits`, { token: t, body });
    expect((await commit({ branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: '1\n' }] })).status).toBe(201);
    expect((await commit({ branch: 'f', start_branch: 'main', commit_message: 'two', actions: [{ action: 'update', file_path: 'a.txt', content: '1\n2\n' }] })).status).toBe(201);
    expect((await api(`${P}/protected_tags`, { token: t, body: { name: 'v*', create_access_level: 30 } })).status).toBe(201);
    expect((await api(P, { method: 'PUT', token: t, body: { only_allow_merge_if_all_discussions_are_resolved: true } })).status).toBe(200);
    const mr = (await api(`${P}/merge_requests`, { token: t, body: { source_branch: 'f', target_branch: 'main', title: 'MR' } })).body;
    const full = (await api(`${P}/merge_requests/${mr.iid}`, { token: t })).body;
    const position = { ...full.diff_refs, position_type: 'text', old_path: 'a.txt', new_path: 'a.txt', new_line: 2 };
    const d = (await api(`${P}/merge_requests/${mr.iid}/discussions`, { token: t, body: { body: 'line', position } })).body;
    expect((await api(`${P}/merge_requests/${mr.iid}/discussions/${d.id}`, { method: 'PUT', token: t, body: { resolved: true } })).status).toBe(200);
    const head = (await api(`${P}/repository/commits/main`, { token: t })).body.id;
    const cd = (await api(`${P}/repository/commits/${head}/discussions`, { token: t, body: { body: 'on a commit' } })).body;

    expect((await api(`${P}/export`, { method: 'POST', token: t })).status).toBe(202);
    await waitForExport(p.id, t);
    const files = await untar(await (await download(p.id, t)).arrayBuffer());

    expect(JSON.parse(new TextDecoder().decode(files.get('./tree/project.json')!)).only_allow_merge_if_all_discussions_are_resolved).toBe(true);
    expect(ndjson(files, 'protected_tags')).toEqual([
      expect.objectContaining({ id: expect.any(Number), project_id: p.id, name: 'v*', create_access_levels: [expect.objectContaining({ protected_tag_id: expect.any(Number), access_level: 30, user_id: null, group_id: null })] }),
    ]);
    const [exportedMr] = ndjson(files, 'merge_requests');
    const diffNote = exportedMr.notes.find((n: any) => n.type === 'DiffNote');
    const stored = { ...position, old_line: null, line_range: null, ignore_whitespace_change: false };
    expect(diffNote).toMatchObject({ note: 'line', discussion_id: d.id, position: stored, original_position: stored, resolved_by_id: u.id, line_code: expect.stringMatching(/^[0-9a-f]{40}_\d+_2$/) });
    expect(typeof diffNote.resolved_at).toBe('string');
    expect(ndjson(files, 'commit_notes')).toEqual([
      expect.objectContaining({ note: 'on a commit', noteable_type: 'Commit', noteable_id: null, commit_id: head, type: 'DiscussionNote', discussion_id: cd.id, author: { name: u.name } }),
    ]);
  });
});
