/** POST /projects/import and GET /projects/:id/import: the upload, its checks, and the job's result. */
import { storageSql } from '#harness';
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

const issue = (iid: number, extra: Record<string, unknown> = {}) => ({
  id: 1000 + iid,
  iid,
  title: `Issue ${iid}`,
  description: `Body ${iid}`,
  state: 'opened',
  author_id: 1,
  project_id: 999,
  created_at: '2020-01-02T03:04:05.000Z',
  updated_at: '2020-01-03T03:04:05.000Z',
  ...extra,
});

describe('POST /projects/import', () => {
  it('creates the project scheduled, then the job imports the archive (finished)', async () => {
    const user = await createUser();
    const path = unique('imp');
    const archive = await tarGz(
      exportTree({
        project: { description: 'From the archive', visibility_level: 10, creator_id: 1, import_type: 'github', id: 5 },
        relations: {
          labels: [{ id: 2, title: 'bug', color: '#ff0000', description: 'Bugs', project_id: 8, type: 'ProjectLabel', priorities: [{ priority: 3 }] }],
          milestones: [{ id: 7, iid: 4, title: 'v1', description: 'First', state: 'active', project_id: 8 }],
          issues: [
            issue(3, {
              milestone: { title: 'v1', iid: 4 },
              label_links: [{ label: { title: 'bug', color: '#ff0000' } }, { label: { title: 'new-from-link', color: '#00ff00' } }],
              notes: [{ note: 'First comment', author_id: 1, author: { name: 'Original Author' }, created_at: '2020-01-04T00:00:00.000Z', updated_at: '2020-01-04T00:00:00.000Z' }],
              award_emoji: [{ name: 'thumbsup', user_id: 1 }],
            }),
            issue(9, { state: 'closed', confidential: true, issue_type: 'incident', time_estimate: 7200, timelogs: [{ time_spent: 1800, user_id: 1, spent_at: '2020-01-05T00:00:00.000Z' }, { time_spent: 600, user_id: 1 }] }),
          ],
          merge_requests: [{ id: 50, iid: 2, title: 'Draft: feature', source_branch: 'feature', target_branch: 'main', state: 'opened', author_id: 1, notes: [{ note: 'MR note', author_id: 1 }] }],
          project_feature: '{"issues_access_level":20,"wiki_access_level":0,"snippets_access_level":10,"project_id":77}',
          protected_branches: [{ name: 'main', push_access_levels: [{ access_level: 40 }], merge_access_levels: [{ access_level: 30 }] }],
        },
      }),
    );
    await api('/user', { token: user.token }); // the caller cached, as the round-trip budget counts
    const res = await uploadImport(user.token, archive, { path });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ path, name: path, path_with_namespace: `${user.username}/${path}`, import_status: 'scheduled', import_type: 'gitlab_project', failed_relations: [], import_error: null });
    expect(res.body.correlation_id).toMatch(/^\w+$/);
    expect(Number(res.headers.get('x-storage-round-trips'))).toBeLessThanOrEqual(3);

    const done = await waitForImport(user.token, res.body.id);
    // project.json's id, creator_id and import_type are never assigned (mass assignment).
    expect(done.body).toMatchObject({ id: res.body.id, import_status: 'finished', import_type: 'gitlab_project', correlation_id: res.body.correlation_id, failed_relations: [], import_error: null });
    expect(Number(done.headers.get('x-storage-round-trips'))).toBeLessThanOrEqual(2);

    const id = res.body.id;
    const project = await api(`/projects/${id}`, { token: user.token });
    expect(project.body).toMatchObject({ description: 'From the archive', visibility: 'internal', creator_id: user.id, issues_access_level: 'enabled', wiki_access_level: 'disabled', snippets_access_level: 'private' });
    const labels = await api(`/projects/${id}/labels`, { token: user.token });
    expect(labels.body.map((l: any) => [l.name, l.color, l.priority]).sort()).toEqual([['bug', '#ff0000', 3], ['new-from-link', '#00ff00', null]]);
    const milestones = await api(`/projects/${id}/milestones`, { token: user.token });
    expect(milestones.body.map((m: any) => [m.iid, m.title])).toEqual([[4, 'v1']]);
    const issues = await api(`/projects/${id}/issues?order_by=relative_position&sort=asc`, { token: user.token });
    issues.body.sort((a: any, b: any) => a.iid - b.iid);
    expect(issues.body.map((i: any) => [i.iid, i.title, i.state, i.confidential])).toEqual([[3, 'Issue 3', 'opened', false], [9, 'Issue 9', 'closed', true]]);
    const first = issues.body[0];
    // Unmatched authors fall back to the importer; new ids, the archive's iids and timestamps.
    expect(first).toMatchObject({ author: { id: user.id }, milestone: { title: 'v1' }, labels: ['bug', 'new-from-link'], upvotes: 1, created_at: '2020-01-02T03:04:05.000Z' });
    expect(first.id).not.toBe(1003);
    const stats = await api(`/projects/${id}/issues/9/time_stats`, { token: user.token });
    expect(stats.body).toMatchObject({ time_estimate: 7200, total_time_spent: 2400 });
    expect(issues.body[1].issue_type).toBe('incident');
    const notes = await api(`/projects/${id}/issues/3/notes`, { token: user.token });
    // The archive's author is not a user here: the note says who wrote it (relation_factory.rb set_note_author).
    expect(notes.body.map((n: any) => [n.body, n.author.id])).toEqual([['First comment\n\n *By Original Author on 2020-01-04T00:00:00 (imported from GitLab)*', user.id]]);
    const mrs = await api(`/projects/${id}/merge_requests`, { token: user.token });
    expect(mrs.body.map((m: any) => [m.iid, m.title, m.source_branch, m.target_branch, m.state, m.draft])).toEqual([[2, 'Draft: feature', 'feature', 'main', 'opened', true]]);
    const mrNotes = await api(`/projects/${id}/merge_requests/2/notes`, { token: user.token });
    expect(mrNotes.body.map((n: any) => n.body.split('\n')[0])).toEqual(['MR note']);
    const pb = await api(`/projects/${id}/protected_branches`, { token: user.token });
    expect(pb.body.map((b: any) => [b.name, b.push_access_levels[0].access_level, b.merge_access_levels[0].access_level])).toEqual([['main', 40, 30]]);
    // The iid counters continue after the imported iids.
    const created = await api(`/projects/${id}/issues`, { token: user.token, body: { title: 'After import' } });
    expect(created.body.iid).toBe(10);
  });

  it('applies override_params over project.json, and takes name and namespace (group by path)', async () => {
    const user = await createUser();
    const group = await api('/groups', { token: user.token, body: { name: unique('g'), path: unique('g'), visibility: 'public' } });
    expect(group.status).toBe(201);
    const path = unique('imp');
    const res = await uploadImport(user.token, await tarGz(exportTree({ project: { description: 'archive', visibility_level: 20 } })), {
      path,
      name: 'Imported Name',
      namespace: group.body.full_path,
      'override_params[description]': 'overridden',
      'override_params[wiki_access_level]': 'private',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Imported Name', path_with_namespace: `${group.body.full_path}/${path}`, name_with_namespace: `${group.body.name} / Imported Name` });
    expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
    const project = await api(`/projects/${res.body.id}`, { token: user.token });
    expect(project.body).toMatchObject({ description: 'overridden', visibility: 'public', wiki_access_level: 'private' });
  });

  it('answers GitLab bodies for missing params, a bad file name, namespace and path problems', async () => {
    const user = await createUser();
    const other = await createUser();
    const archive = await tarGz(exportTree());
    expect((await api('/projects/import', { token: user.token, form: { file: 'x' } })).body).toEqual({ error: 'path is missing, file is invalid' });
    const noFile = new FormData();
    noFile.append('path', 'p');
    expect((await api('/projects/import', { token: user.token, multipart: noFile })).body).toEqual({ error: 'file is missing' });
    const bad = await uploadImport(user.token, archive, { path: unique('p') }, 'export.zip');
    expect([bad.status, bad.body]).toEqual([422, { message: { error: 'You need to upload a GitLab project export archive (ending in .gz).' } }]);
    const noNs = await uploadImport(user.token, archive, { path: unique('p'), namespace: 'no-such-namespace-x' });
    expect([noNs.status, noNs.body]).toEqual([404, { message: '404 Namespace Not Found' }]);
    // Another user's personal namespace is not even visible.
    const theirs = await uploadImport(user.token, archive, { path: unique('p'), namespace: other.username });
    expect([theirs.status, theirs.body]).toEqual([404, { message: '404 Namespace Not Found' }]);
    // A public group where the caller is not a member: visible, but not a place to create projects.
    const group = await api('/groups', { token: other.token, body: { name: unique('g'), path: unique('g'), visibility: 'public' } });
    // project_import allows 6 uploads a minute per user: the rest of the cases upload as another user.
    const user2 = await createUser();
    const notAllowed = await uploadImport(user2.token, archive, { path: unique('p'), namespace: String(group.body.id) });
    expect([notAllowed.status, notAllowed.body]).toEqual([400, { message: 'Namespace is not valid' }]);
    const path = unique('p');
    expect((await uploadImport(user2.token, archive, { path })).status).toBe(201);
    const taken = await uploadImport(user2.token, archive, { path, name: unique('n') });
    expect([taken.status, taken.body]).toEqual([400, { message: 'Path has already been taken' }]);
    const nameTaken = await uploadImport(user2.token, archive, { path });
    expect([nameTaken.status, nameTaken.body]).toEqual([400, { message: 'Name has already been taken' }]);
    const badPath = await uploadImport(user2.token, archive, { path: '-bad', name: unique('ok') });
    expect(badPath.status).toBe(400);
    expect(badPath.body.message).toMatch(/^Path can contain only/);
    expect((await uploadImport('', archive, { path: unique('p') })).status).toBe(401);
    // An import creates a project: the personal project limit holds for it too.
    const limited = await createUser({ attrs: { projects_limit: 0 } });
    const refused = await uploadImport(limited.token, archive, { path: unique('p') });
    expect([refused.status, refused.body]).toEqual([400, { message: 'Limit reached Personal project creation is not allowed. Please contact your administrator with questions' }]);
  });

  it('refuses an upload over max_import_size with 413, and all imports when import_sources lacks gitlab_project', async () => {
    const admin = await createUser({ admin: true });
    const user = await createUser();
    const big = new Uint8Array(1024 * 1024 + 10);
    try {
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_import_size: 1 } })).status).toBe(200);
      const res = await uploadImport(user.token, big, { path: unique('p') });
      expect([res.status, res.body]).toEqual([413, { message: '413 Request Entity Too Large' }]);
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: ['public'] } })).status).toBe(200);
      const restricted = await uploadImport(user.token, await tarGz(exportTree()), { path: unique('p'), 'override_params[visibility]': 'public' });
      expect([restricted.status, restricted.body]).toEqual([400, { message: 'Visibility level public has been restricted by your GitLab administrator' }]);
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { import_sources: ['github'] } })).status).toBe(200);
      const off = await uploadImport(user.token, await tarGz(exportTree()), { path: unique('p') });
      expect([off.status, off.body]).toEqual([403, { message: '403 Forbidden' }]);
      const mine = await api('/projects', { token: user.token, body: { name: unique('p') } });
      expect((await api(`/projects/${mine.body.id}/import`, { token: user.token })).status).toBe(403);
    } finally {
      await api('/application/settings', { method: 'PUT', token: admin.token, body: { max_import_size: 0, import_sources: ['github', 'gitlab_project', 'git'], restricted_visibility_levels: [] } });
    }
  });
});

describe('POST /projects/import rate limit', () => {
  it('allows project_import_limit (6) uploads a minute per user, then 429', async () => {
    const user = await createUser();
    const archive = await tarGz(exportTree());
    // Refused uploads count too (the throttle comes before the upload's own checks).
    for (let k = 0; k < 6; k++) expect((await uploadImport(user.token, archive, { path: unique('p') }, 'x.zip')).status).toBe(422);
    const res = await uploadImport(user.token, archive, { path: unique('p') });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
  });
});

describe('GET /projects/:id/import', () => {
  it('answers none for a project never imported, and 404 for a project the caller cannot see', async () => {
    const user = await createUser();
    const other = await createUser();
    const p = await api('/projects', { token: user.token, body: { name: unique('p') } });
    const res = await api(`/projects/${p.body.id}/import`, { token: user.token });
    expect(res.body).toMatchObject({ id: p.body.id, import_status: 'none', import_type: null, correlation_id: null, failed_relations: [], import_error: null });
    expect((await api(`/projects/${p.body.id}/import`, { token: other.token })).body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('POST /projects/import with overwrite', () => {
  it('imports under a temporary path, then replaces the project at the original path', async () => {
    const user = await createUser();
    const path = unique('ow');
    const old = await api('/projects', { token: user.token, body: { name: path, path } });
    await api(`/projects/${old.body.id}/issues`, { token: user.token, body: { title: 'Old issue' } });
    const archive = await tarGz(exportTree({ relations: { issues: [{ iid: 7, title: 'New issue' }] } }));
    const res = await uploadImport(user.token, archive, { path, overwrite: 'true' });
    expect(res.status).toBe(201);
    expect(res.body.path).toMatch(new RegExp(`^${path}-[0-9a-f]+$`));
    expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
    const now = await api(`/projects/${encodeURIComponent(`${user.username}/${path}`)}`, { token: user.token });
    expect(now.body).toMatchObject({ id: res.body.id, path, name: path });
    expect((await api(`/projects/${old.body.id}`, { token: user.token })).status).toBe(404);
    expect((await api(`/projects/${res.body.id}/issues`, { token: user.token })).body.map((i: any) => i.title)).toEqual(['New issue']);
    // Without overwrite the clash is a 400.
    expect((await uploadImport(user.token, archive, { path, name: unique('n') })).body).toEqual({ message: 'Path has already been taken' });
  });
});

describe('legacy archives', () => {
  it('reads the whole tree from a root project.json (exports of GitLab 13.x and before)', async () => {
    const user = await createUser();
    const legacy = {
      description: 'Legacy export',
      visibility_level: 0,
      labels: [{ title: 'legacy-label', color: '#abcdef' }],
      milestones: [{ iid: 2, title: 'legacy-ms' }],
      project_members: [],
      issues: [{ iid: 5, title: 'Legacy issue', notes: [{ note: 'legacy note' }], label_links: [{ label: { title: 'legacy-label', color: '#abcdef' } }] }, 'not an object'],
      merge_requests: [{ iid: 3, title: 'Legacy MR', source_branch: 'a', target_branch: 'b' }],
    };
    const archive = await tarGz([{ name: './VERSION', body: '0.2.4' }, { name: './project.json', body: JSON.stringify(legacy) }]);
    const res = await uploadImport(user.token, archive, { path: unique('legacy') });
    const done = await waitForImport(user.token, res.body.id);
    expect(done.body).toMatchObject({ import_status: 'finished', import_error: null });
    expect(done.body.failed_relations.map((f: any) => [f.relation_name, f.line_number])).toEqual([['issues', 1]]);
    const id = res.body.id;
    expect((await api(`/projects/${id}`, { token: user.token })).body.description).toBe('Legacy export');
    const issues = await api(`/projects/${id}/issues`, { token: user.token });
    expect(issues.body.map((i: any) => [i.iid, i.title, i.labels])).toEqual([[5, 'Legacy issue', ['legacy-label']]]);
    expect((await api(`/projects/${id}/issues/5/notes`, { token: user.token })).body.map((n: any) => n.body.split('\n')[0])).toEqual(['legacy note']);
    expect((await api(`/projects/${id}/milestones`, { token: user.token })).body.map((m: any) => [m.iid, m.title])).toEqual([[2, 'legacy-ms']]);
    expect((await api(`/projects/${id}/merge_requests`, { token: user.token })).body.map((m: any) => m.title)).toEqual(['Legacy MR']);
  });

  it('forgets the import state with a deleted project', async () => {
    const user = await createUser();
    const res = await uploadImport(user.token, await tarGz(exportTree()), { path: unique('gone') });
    expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
    expect((await api(`/projects/${res.body.id}`, { method: 'DELETE', token: user.token })).status).toBe(202);
    expect(await storageSql(`SELECT * FROM project_import_states WHERE project_id = ${res.body.id}`)).toEqual([]);
  });
});
