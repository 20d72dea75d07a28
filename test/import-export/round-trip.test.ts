/**
 * Issue 15 item 6: a project exported here and imported under a new path answers the same to the
 * issues, merge requests, labels, milestones, notes and repository (commits, branches, files, tree)
 * APIs, and to those main gained since: tags (lightweight and annotated), protected tags,
 * discussions (issue threads, a merge request DiffNote thread resolved, commit discussions) and the
 * project's only_allow_merge_if_all_discussions_are_resolved, and the resource label, milestone and state
 * events of issues and merge requests. Only what names the new project or the import itself may differ: ids, project ids, urls and
 * paths, and the time the import wrote a row GitLab does not carry over.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { download, waitForExport } from './export-support';
import { uploadImport, waitForImport } from './import-support';

/** Keys naming the project or a row's database id, dropped at any depth. */
const LOCAL = new Set(['id', 'project_id', 'web_url', '_links', 'references', 'noteable_id', 'source_project_id', 'target_project_id', 'path', 'path_with_namespace', 'group_id', 'blob_url', 'avatar_url', 'issue_id', 'merge_request_id', 'resource_id']);
function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([k]) => !LOCAL.has(k)).map(([k, x]) => [k, strip(x)]));
}

describe('export then import: the same project', () => {
  it('answers the same to the issues, merge requests, labels, milestones, notes and repository APIs', async () => {
    // A public email: a non-admin importer's archive users are matched by it (members_mapper.rb).
    const u = await createUser();
    expect((await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, body: { public_email: u.email } })).status).toBe(200);
    const t = u.token;
    const src = (await api('/projects', { token: t, body: { name: unique('rt-src') } })).body;
    const P = `/projects/${src.id}`;
    const commit = (body: Record<string, unknown>) => api(`${P}/repository/commits`, { token: t, body });
    expect((await commit({ branch: 'main', commit_message: 'Initial', actions: [{ action: 'create', file_path: 'README.md', content: 'hello\n' }, { action: 'create', file_path: 'src/app.ts', content: 'export {};\n' }] })).status).toBe(201);
    expect((await commit({ branch: 'feature', start_branch: 'main', commit_message: 'Feature work', actions: [{ action: 'update', file_path: 'README.md', content: 'hello\nworld\n' }] })).status).toBe(201);
    expect((await api(`${P}/labels`, { token: t, body: { name: 'bug', color: '#ff0000', description: 'Bugs', priority: 2 } })).status).toBe(201);
    expect((await api(`${P}/labels`, { token: t, body: { name: 'feature', color: '#00ff00' } })).status).toBe(201);
    const ms = (await api(`${P}/milestones`, { token: t, body: { title: 'v1', description: 'First', due_date: '2030-01-01' } })).body;
    await api(`${P}/milestones`, { token: t, body: { title: 'v0' } }).then((r) => api(`${P}/milestones/${r.body.id}`, { method: 'PUT', token: t, body: { state_event: 'close' } }));
    const i1 = (await api(`${P}/issues`, { token: t, body: { title: 'First issue', description: 'Body', labels: 'bug,feature', milestone_id: ms.id, weight: 3 } })).body;
    const i2 = (await api(`${P}/issues`, { token: t, body: { title: 'Second', confidential: true } })).body;
    await api(`${P}/issues/${i2.iid}`, { method: 'PUT', token: t, body: { state_event: 'close' } });
    expect((await api(`${P}/issues/${i1.iid}/notes`, { token: t, body: { body: 'A comment' } })).status).toBe(201);
    expect((await api(`${P}/issues/${i1.iid}/notes`, { token: t, body: { body: 'Another' } })).status).toBe(201);
    const mr = (await api(`${P}/merge_requests`, { token: t, body: { source_branch: 'feature', target_branch: 'main', title: 'Add world', labels: 'feature', milestone_id: ms.id } })).body;
    expect(mr.iid).toBe(1);
    expect((await api(`${P}/merge_requests/1/notes`, { token: t, body: { body: 'Looks good' } })).status).toBe(201);
    // Tags, protected tags, discussions and the setting that makes them block a merge.
    expect((await api(`${P}/repository/tags`, { token: t, body: { tag_name: 'v1.0', ref: 'main' } })).status).toBe(201);
    expect((await api(`${P}/repository/tags`, { token: t, body: { tag_name: 'v1.1-rc', ref: 'feature', message: 'Release candidate' } })).status).toBe(201);
    expect((await api(`${P}/protected_tags`, { token: t, body: { name: 'v*', create_access_level: 30 } })).status).toBe(201);
    expect((await api(`${P}/protected_tags`, { token: t, body: { name: 'release' } })).status).toBe(201);
    expect((await api(P, { method: 'PUT', token: t, body: { only_allow_merge_if_all_discussions_are_resolved: true } })).status).toBe(200);
    const thread = (await api(`${P}/issues/${i1.iid}/discussions`, { token: t, body: { body: 'A thread' } })).body;
    expect((await api(`${P}/issues/${i1.iid}/discussions/${thread.id}/notes`, { token: t, body: { body: 'A reply' } })).status).toBe(201);
    const refs = (await api(`${P}/merge_requests/1`, { token: t })).body.diff_refs;
    const position = { ...refs, position_type: 'text', old_path: 'README.md', new_path: 'README.md', new_line: 2 };
    const diffThread = await api(`${P}/merge_requests/1/discussions`, { token: t, body: { body: 'On this line', position } });
    expect([diffThread.status, diffThread.body.notes[0].type]).toEqual([201, 'DiffNote']);
    expect((await api(`${P}/merge_requests/1/discussions/${diffThread.body.id}`, { method: 'PUT', token: t, body: { resolved: true } })).status).toBe(200);
    expect((await api(`${P}/merge_requests/1/discussions`, { token: t, body: { body: 'Still open' } })).status).toBe(201);
    const head = (await api(`${P}/repository/commits/main`, { token: t })).body.id;
    expect((await api(`${P}/repository/commits/${head}/discussions`, { token: t, body: { body: 'On a commit' } })).status).toBe(201);

    // Resource events beyond those the creates above recorded: a label removed, a label deleted
    // after it was added (its events keep no label), a milestone set and taken away, a reopen and
    // a merge request closed and reopened.
    // A member other than the importer, matched by public email: their events stay theirs.
    const v = await createUser();
    expect((await api(`/users/${v.id}`, { method: 'PUT', token: rootToken, body: { public_email: v.email } })).status).toBe(200);
    expect((await api(`${P}/members`, { token: t, body: { user_id: v.id, access_level: 30 } })).status).toBe(201);
    expect((await api(`${P}/merge_requests/1`, { method: 'PUT', token: v.token, body: { add_labels: 'bug' } })).status).toBe(200);
    const temp = (await api(`${P}/labels`, { token: t, body: { name: 'temp', color: '#0000ff' } })).body;
    expect((await api(`${P}/issues/${i1.iid}`, { method: 'PUT', token: t, body: { remove_labels: 'feature', add_labels: 'temp' } })).status).toBe(200);
    expect((await api(`${P}/labels/${temp.id}`, { method: 'DELETE', token: t })).status).toBe(204);
    expect((await api(`${P}/issues/${i2.iid}`, { method: 'PUT', token: t, body: { milestone_id: ms.id } })).status).toBe(200);
    expect((await api(`${P}/issues/${i2.iid}`, { method: 'PUT', token: t, body: { milestone_id: 0, state_event: 'reopen' } })).status).toBe(200);
    await api(`${P}/issues/${i2.iid}`, { method: 'PUT', token: t, body: { state_event: 'close' } });
    for (const state_event of ['close', 'reopen']) expect((await api(`${P}/merge_requests/1`, { method: 'PUT', token: t, body: { state_event } })).status).toBe(200);
    const events = (kind: string, path: string) => api(`${P}${path}/resource_${kind}_events`, { token: t }).then((r) => r.body as { label?: unknown }[]);
    expect((await events('label', `/issues/${i1.iid}`)).map((e) => e.label === null)).toContain(true);
    expect((await events('milestone', `/issues/${i2.iid}`)).length).toBe(2);
    expect((await events('state', `/issues/${i2.iid}`)).length).toBe(3);
    expect((await events('state', '/merge_requests/1')).length).toBe(2);
    expect((await events('label', '/merge_requests/1')).map((e: any) => e.user.username)).toContain(v.username);

    expect((await api(`${P}/export`, { method: 'POST', token: t })).status).toBe(202);
    await waitForExport(src.id, t);
    const archive = new Uint8Array(await (await download(src.id, t)).arrayBuffer());
    const up = await uploadImport(t, archive, { path: unique('rt-dst') });
    expect(up.status).toBe(201);
    const done = await waitForImport(t, up.body.id);
    expect([done.body.import_status, done.body.failed_relations]).toEqual(['finished', []]);
    const D = `/projects/${up.body.id}`;

    const paths = [
      '/issues?sort=asc',
      `/issues/${i1.iid}`,
      `/issues/${i1.iid}/notes?sort=asc`,
      '/merge_requests?state=all&sort=asc',
      '/merge_requests/1',
      '/merge_requests/1/notes?sort=asc',
      '/labels?with_counts=true',
      '/milestones',
      '/repository/commits?all=true&with_stats=true',
      '/repository/branches',
      '/repository/tree?recursive=true&ref=feature',
      '/repository/files/README.md?ref=feature',
      '/repository/compare?from=main&to=feature',
      '/repository/tags',
      '/repository/tags/v1.1-rc',
      '/protected_tags',
      `/issues/${i1.iid}/discussions`,
      '/merge_requests/1/discussions',
      `/repository/commits/${head}/discussions`,
      ...[`/issues/${i1.iid}`, `/issues/${i2.iid}`, '/merge_requests/1'].flatMap((x) => ['label', 'milestone', 'state'].map((kind) => `${x}/resource_${kind}_events`)),
    ];
    for (const path of paths) {
      const [a, b] = await Promise.all([api(`${P}${path}`, { token: t }), api(`${D}${path}`, { token: t })]);
      expect([path, b.status]).toEqual([path, 200]);
      expect([path, strip(b.body)]).toEqual([path, strip(a.body)]);
    }
    // Thread ids (dropped with every `id` above) are the archive's discussion_id, so links to a
    // thread hold; an individual note's id is derived from its note's, which the import renumbers.
    const threadIds = (list: { id: string; individual_note: boolean }[]) => list.filter((d) => !d.individual_note).map((d) => d.id);
    for (const path of [`/issues/${i1.iid}/discussions`, '/merge_requests/1/discussions', `/repository/commits/${head}/discussions`]) {
      const [a, b] = await Promise.all([api(`${P}${path}`, { token: t }), api(`${D}${path}`, { token: t })]);
      expect(threadIds(a.body).length).toBeGreaterThan(0);
      expect([path, threadIds(b.body)]).toEqual([path, threadIds(a.body)]);
    }
    const [srcProject, dstProject] = await Promise.all([api(P, { token: t }), api(D, { token: t })]);
    expect(dstProject.body.only_allow_merge_if_all_discussions_are_resolved).toBe(true);
    expect(srcProject.body.only_allow_merge_if_all_discussions_are_resolved).toBe(true);
    // The unresolved thread blocks the imported merge request as it does the original.
    const [mrA, mrB] = await Promise.all([api(`${P}/merge_requests/1`, { token: t }), api(`${D}/merge_requests/1`, { token: t })]);
    expect([mrB.body.blocking_discussions_resolved, mrB.body.detailed_merge_status]).toEqual([mrA.body.blocking_discussions_resolved, mrA.body.detailed_merge_status]);
    expect(mrB.body.blocking_discussions_resolved).toBe(false);
  });
});
