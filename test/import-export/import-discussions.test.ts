/**
 * An archive's discussions, protected tags and only_allow_merge_if_all_discussions_are_resolved as
 * GitLab's exporter writes them: notes keep their discussion_id, type, DiffNote position (an
 * object, as GitLab writes it) and resolved state, the resolver mapped like any user (the importer
 * when unmatched); a position that cannot be held leaves a plain discussion note; protected tags keep
 * their role create levels; a line without a name or a commit fails that line only.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

const sha = (c: string) => c.repeat(40);
const X = sha('a');
const Y = sha('b');
const Z = sha('c');
const T = sha('d');
const position = { base_sha: sha('1'), start_sha: sha('1'), head_sha: sha('2'), old_path: 'a.txt', new_path: 'a.txt', position_type: 'text', old_line: null, new_line: 3, line_range: null };

describe('import of discussions, protected tags and the discussions setting', () => {
  it('keeps discussion ids, DiffNote positions, resolved state and protected tags; bad lines fail alone', async () => {
    const user = await createUser();
    const note = (extra: Record<string, unknown>) => ({ note: 'n', author_id: 1, created_at: '2022-01-01T00:00:00.000Z', updated_at: '2022-01-01T00:00:00.000Z', ...extra });
    const archive = await tarGz(
      exportTree({
        project: { description: 'd', visibility_level: 0, only_allow_merge_if_all_discussions_are_resolved: true },
        relations: {
          issues: [{ iid: 1, title: 'Issue', author_id: 1, notes: [note({ note: 'start', type: 'DiscussionNote', discussion_id: T }), note({ note: 'reply', type: 'DiscussionNote', discussion_id: T })] }],
          merge_requests: [
            {
              iid: 1,
              title: 'MR',
              source_branch: 'f',
              target_branch: 'main',
              state: 'opened',
              author_id: 1,
              notes: [
                note({ note: 'on a line', type: 'DiffNote', discussion_id: X, position, original_position: position, line_code: 'abc_0_3', commit_id: null, resolved_at: '2022-01-02T00:00:00.000Z', resolved_by_id: 999 }),
                note({ note: 'lost line', type: 'DiffNote', discussion_id: Y, position: 'not json', original_position: null }),
                note({ note: 'open thread', type: 'DiscussionNote', discussion_id: Z, resolved_at: null }),
              ],
            },
          ],
          protected_tags: [
            { name: 'v*', create_access_levels: [{ access_level: 30 }, { access_level: 99 }] },
            { name: '', create_access_levels: [] },
            { name: 'release' },
          ],
          commit_notes: [note({ noteable_type: 'Commit', commit_id: sha('e'), discussion_id: sha('f') }), note({ noteable_type: 'Commit', commit_id: null })],
        },
      }),
    );
    const res = await uploadImport(user.token, archive, { path: unique('disc') });
    expect(res.status).toBe(201);
    const done = await waitForImport(user.token, res.body.id);
    expect(done.body.import_status).toBe('finished');
    expect(done.body.failed_relations.map((f: Record<string, unknown>) => [f.relation_name, f.line_number, f.exception_message]).sort()).toEqual([
      ['commit_notes', 1, "Validation failed: Commit can't be blank"],
      ['protected_tags', 1, "Validation failed: Name can't be blank"],
    ]);
    const P = `/projects/${res.body.id}`;
    const t = user.token;

    expect((await api(P, { token: t })).body.only_allow_merge_if_all_discussions_are_resolved).toBe(true);
    const mrThreads = (await api(`${P}/merge_requests/1/discussions`, { token: t })).body;
    expect(mrThreads.map((d: any) => [d.id, d.individual_note, d.notes.map((n: any) => [n.type, n.resolvable, n.resolved ?? null])])).toEqual([
      [X, false, [['DiffNote', true, true]]],
      [Y, false, [['DiscussionNote', true, false]]],
      [Z, false, [['DiscussionNote', true, false]]],
    ]);
    const diffNote = mrThreads[0].notes[0];
    expect(diffNote.position).toEqual({ ...position, ignore_whitespace_change: false });
    // resolved_by_id 999 is no user here: the importer, as members_mapper.rb maps any user reference.
    expect([diffNote.resolved_at, diffNote.resolved_by?.username]).toEqual(['2022-01-02T00:00:00.000Z', user.username]);
    // Unresolved threads block the merge under the imported setting.
    expect((await api(`${P}/merge_requests/1`, { token: t })).body.blocking_discussions_resolved).toBe(false);

    const issueThreads = (await api(`${P}/issues/1/discussions`, { token: t })).body;
    expect(issueThreads.map((d: any) => [d.id, d.notes.map((n: any) => [n.body.split('\n\n')[0], n.resolvable])])).toEqual([[T, [['start', false], ['reply', false]]]]);

    const tags = (await api(`${P}/protected_tags`, { token: t })).body;
    expect(tags.map((x: any) => [x.name, x.create_access_levels.map((l: any) => l.access_level)])).toEqual([
      ['v*', [30]],
      ['release', [40]],
    ]);
  });
});
