/** Project export over HTTP (lib/api/project_export.rb; spec 001 "Project import and export"; reference 2 §4.1). */
import { beforeAll, describe, expect, it } from 'vitest';
import { storageSql } from '#harness';
import { api, createUser, rootToken, unique, type TestUser } from '../support';
import { download, ndjson, untar, waitForExport } from './export-support';
import { readBundle } from '../../src/import-export/bundle-read';

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let outsider: TestUser;

async function newProject(visibility = 'private') {
  const res = await api('/projects', { token: owner.token, body: { name: unique('exp'), visibility, description: 'The original' } });
  expect(res.status).toBe(201);
  for (const [u, level] of [[maintainer, 40], [developer, 30]] as const) {
    expect((await api(`/projects/${res.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
  return res.body as { id: number; name: string; path: string; path_with_namespace: string; name_with_namespace: string; created_at: string };
}

beforeAll(async () => {
  [owner, maintainer, developer, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
});

describe('POST /projects/:id/export', () => {
  it('accepts an export from a maintainer with 202 and GitLab body; others get 403, 404 or 401', async () => {
    const p = await newProject();
    // The caller is known (cached) after a first request: the write then costs at most 3 round trips.
    expect((await api(`/projects/${p.id}/export`, { token: maintainer.token })).status).toBe(200);
    const res = await api(`/projects/${p.id}/export`, { method: 'POST', token: maintainer.token });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: '202 Accepted' });
    expect(Number(res.headers.get('x-storage-round-trips'))).toBeLessThanOrEqual(3);
    const dev = await api(`/projects/${p.id}/export`, { method: 'POST', token: developer.token });
    expect(dev.status).toBe(403);
    expect(dev.body).toEqual({ message: '403 Forbidden' });
    const hidden = await api(`/projects/${p.id}/export`, { method: 'POST', token: outsider.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: null })).status).toBe(401);
  });

  it('validates upload[url] and upload[http_method] with GitLab bodies', async () => {
    const p = await newProject();
    const post = (body: unknown) => api(`/projects/${p.id}/export`, { method: 'POST', token: maintainer.token, body });
    let res = await post({ upload: { http_method: 'PUT' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'upload[url] is missing' });
    res = await post({ upload: { url: 'https://example.com/put-here', http_method: 'GET' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'upload[http_method] does not have a valid value' });
    res = await post({ upload: { url: 'not a url' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { url: ['must be a valid URL'] } });
    res = await post({ upload: { url: 'ftp://example.com/x' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { url: ['is blocked: Only allowed schemes are http, https'] } });
    // Form fields as python-gitlab sends them (a local address: accepted here, refused by the job's outbound guard).
    res = await api(`/projects/${p.id}/export`, { token: maintainer.token, form: { 'upload[url]': 'https://10.255.255.1/put-here', 'upload[http_method]': 'POST' } });
    expect(res.status).toBe(202);
  });

  it('answers 429 with GitLab body past project_export_limit (6 a minute per user)', async () => {
    const p = await newProject();
    const user = await createUser();
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: user.id, access_level: 40 } })).status).toBe(201);
    for (let i = 0; i < 6; i++) expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: user.token })).status).toBe(202);
    const res = await api(`/projects/${p.id}/export`, { method: 'POST', token: user.token });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    await waitForExport(p.id, user.token);
  });
});

describe('GET /projects/:id/export', () => {
  it('shows none before any export, then finished with _links', async () => {
    const p = await newProject();
    const before = await api(`/projects/${p.id}/export`, { token: maintainer.token });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      id: p.id,
      description: 'The original',
      name: p.name,
      name_with_namespace: p.name_with_namespace,
      path: p.path,
      path_with_namespace: p.path_with_namespace,
      created_at: p.created_at,
      export_status: 'none',
    });
    expect(Number(before.headers.get('x-storage-round-trips'))).toBeLessThanOrEqual(3);
    expect((await api(`/projects/${p.id}/export`, { token: developer.token })).status).toBe(403);
    expect((await api(`/projects/${p.id}/export`, { token: outsider.token })).status).toBe(404);

    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: maintainer.token })).status).toBe(202);
    const queued = await api(`/projects/${p.id}/export`, { token: maintainer.token });
    expect(['queued', 'started', 'finished']).toContain(queued.body.export_status);
    const done = await waitForExport(p.id, maintainer.token);
    expect(Object.keys(done)).toEqual(['id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at', 'export_status', '_links']);
    expect(done._links.api_url).toMatch(new RegExp(`/api/v4/projects/${p.id}/export/download$`));
    expect(done._links.web_url).toMatch(new RegExp(`/${p.path_with_namespace}/download_export$`));

    // A new export while one is downloadable: regeneration_in_progress, then finished again.
    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: maintainer.token })).status).toBe(202);
    const again = await api(`/projects/${p.id}/export`, { token: maintainer.token });
    expect(['regeneration_in_progress', 'finished']).toContain(again.body.export_status);
    if (again.body.export_status === 'regeneration_in_progress') expect(again.body._links).toBeUndefined();
    await waitForExport(p.id, maintainer.token);
  });
});

describe('GET /projects/:id/export/download', () => {
  it('answers 404 before an export exists, then the archive with GitLab filename, once a minute', async () => {
    const p = await newProject();
    // The owner asks (the limit counts the 404 too: check_rate_limit! comes first).
    const missing = await api(`/projects/${p.id}/export/download`, { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found or has expired' });
    const label = await api(`/projects/${p.id}/labels`, { token: maintainer.token, body: { name: 'bug', color: '#ff0000', priority: 3 } });
    expect(label.status).toBe(201);
    const issue = await api(`/projects/${p.id}/issues`, { token: maintainer.token, body: { title: 'Exported issue', description: 'Body', labels: 'bug', assignee_ids: [developer.id] } });
    expect(issue.status).toBe(201);
    expect((await api(`/projects/${p.id}/issues/${issue.body.iid}/notes`, { token: developer.token, body: { body: 'A comment' } })).status).toBe(201);

    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: maintainer.token, body: { description: 'Exported description' } })).status).toBe(202);
    await waitForExport(p.id, maintainer.token);
    const res = await download(p.id, maintainer.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const path = p.path_with_namespace.replaceAll('/', '_');
    const disposition = res.headers.get('content-disposition') ?? '';
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? '';
    expect(filename).toMatch(/^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{3}_.+_export\.tar\.gz$/);
    expect(filename).toBe(`${filename.slice(0, 21)}${path}`.slice(0, 51) + '_export.tar.gz');

    const files = await untar(await res.arrayBuffer());
    expect(new TextDecoder().decode(files.get('./VERSION'))).toBe('0.2.4\n');
    const project = JSON.parse(new TextDecoder().decode(files.get('./tree/project.json')));
    expect(project.description).toBe('Exported description');
    expect(ndjson(files, 'labels')).toEqual([expect.objectContaining({ id: label.body.id, title: 'bug', color: '#ff0000', type: 'ProjectLabel', priorities: [{ project_id: p.id, priority: 3 }] })]);
    const [exported] = ndjson(files, 'issues');
    expect(exported).toMatchObject({ id: issue.body.id, iid: issue.body.iid, title: 'Exported issue', description: 'Body', state: 'opened', issue_assignees: [{ user_id: developer.id, issue_id: issue.body.id }] });
    expect(exported.label_links).toEqual([expect.objectContaining({ label_id: label.body.id, target_type: 'Issue', label: expect.objectContaining({ title: 'bug' }) })]);
    expect(exported.notes.filter((n: any) => !n.system)).toEqual([expect.objectContaining({ note: 'A comment', noteable_type: 'Issue', author_id: developer.id, author: { name: developer.name } })]);
    const members = ndjson(files, 'project_members');
    expect(members.find((m) => m.user_id === developer.id)).toMatchObject({ access_level: 30, source_type: 'Project', user: { id: developer.id, email: developer.email, username: developer.username } });

    // project_download_export: 1 a minute per user and namespace.
    const second = await download(p.id, maintainer.token);
    expect(second.status).toBe(429);
    expect(await second.json()).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    expect((await download(p.id, developer.token)).status).toBe(403);
  });
});

describe('the project_export job', () => {
  it('marks an export it cannot write failed: the status falls back to none and nothing is downloadable', async () => {
    const p = await newProject();
    expect((await api(`/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } })).status).toBe(201);
    // A file whose contents the blob store does not hold: the bundle cannot be written.
    await storageSql(`UPDATE repo_commit_files SET blob_sha = '${'0'.repeat(40)}' WHERE project_id = ${p.id}`);
    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: owner.token })).status).toBe(202);
    const until = Date.now() + 25_000;
    let status = 'queued';
    while (['queued', 'started'].includes(status) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await api(`/projects/${p.id}/export`, { token: owner.token })).body.export_status;
    }
    expect(status).toBe('none');
    expect(await storageSql(`SELECT status, error FROM project_export_jobs WHERE project_id = ${p.id}`)).toEqual([{ status: 'failed', error: 'The export could not be written' }]);
    // A maintainer who has not downloaded from this namespace within the minute (project_download_export).
    const fresh = await createUser();
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: fresh.id, access_level: 40 } })).status).toBe(201);
    const res = await api(`/projects/${p.id}/export/download`, { token: fresh.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Not found or has expired' });
  });

  it('goes with its project when the project is deleted', async () => {
    const p = await newProject();
    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: owner.token })).status).toBe(202);
    await waitForExport(p.id, owner.token);
    expect(await storageSql(`SELECT count(*) AS n FROM project_export_jobs WHERE project_id = ${p.id}`)).toEqual([{ n: 1 }]);
    expect((await api(`/projects/${p.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect(await storageSql(`SELECT count(*) AS n FROM project_export_jobs WHERE project_id = ${p.id}`)).toEqual([{ n: 0 }]);
  });
});

describe('the archive tree', () => {
  it('carries milestones, merge requests with notes, diffs and award emoji, time logs and protected branches', async () => {
    const p = await newProject();
    const t = owner.token;
    const commit = (body: Record<string, unknown>) => api(`/projects/${p.id}/repository/commits`, { token: t, body });
    expect((await commit({ branch: 'main', commit_message: 'Initial', actions: [{ action: 'create', file_path: 'README.md', content: 'one\n' }] })).status).toBe(201);
    const feature = await commit({ branch: 'feature', start_branch: 'main', commit_message: 'Change the readme', actions: [{ action: 'update', file_path: 'README.md', content: 'one\ntwo\n' }] });
    expect(feature.status).toBe(201);
    const milestone = await api(`/projects/${p.id}/milestones`, { token: t, body: { title: 'v1.0', description: 'First' } });
    expect(milestone.status).toBe(201);
    const issue = await api(`/projects/${p.id}/issues`, { token: t, body: { title: 'Timed', milestone_id: milestone.body.id } });
    expect((await api(`/projects/${p.id}/issues/${issue.body.iid}/add_spent_time`, { token: t, body: { duration: '1h30m', summary: 'work' } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/issues/${issue.body.iid}/award_emoji`, { token: developer.token, body: { name: 'thumbsup' } })).status).toBe(201);
    const mr = await api(`/projects/${p.id}/merge_requests`, { token: t, body: { source_branch: 'feature', target_branch: 'main', title: 'Feature MR', description: 'Please merge', milestone_id: milestone.body.id } });
    expect(mr.status).toBe(201);
    expect((await api(`/projects/${p.id}/merge_requests/${mr.body.iid}/notes`, { token: developer.token, body: { body: 'Looks good' } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/merge_requests/${mr.body.iid}/award_emoji`, { token: developer.token, body: { name: 'rocket' } })).status).toBe(201);
    // Resource events beyond the milestone ones the creates recorded: a label added, a close and a reopen.
    expect((await api(`/projects/${p.id}/labels`, { token: t, body: { name: 'triage', color: '#aa0000' } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/issues/${issue.body.iid}`, { method: 'PUT', token: developer.token, body: { add_labels: 'triage' } })).status).toBe(200);
    for (const state_event of ['close', 'reopen']) expect((await api(`/projects/${p.id}/merge_requests/${mr.body.iid}`, { method: 'PUT', token: t, body: { state_event } })).status).toBe(200);

    expect((await api(`/projects/${p.id}`, { method: 'PUT', token: t, body: { wiki_access_level: 'disabled', snippets_access_level: 'private' } })).status).toBe(200);
    const mainPb = await api(`/projects/${p.id}/protected_branches/main`, { token: t });
    expect(mainPb.status).toBe(200);
    const rule = await api(`/projects/${p.id}/approval_rules`, { token: t, body: { name: 'Security', approvals_required: 2, user_ids: [developer.id], protected_branch_ids: [mainPb.body.id] } });
    expect(rule.status).toBe(201);
    expect((await api(`/projects/${p.id}/approvals`, { token: t, body: { reset_approvals_on_push: false, merge_requests_author_approval: true } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: t })).status).toBe(202);
    await waitForExport(p.id, t);
    const fresh = await createUser();
    expect((await api(`/projects/${p.id}/members`, { token: t, body: { user_id: fresh.id, access_level: 40 } })).status).toBe(201);
    const res = await download(p.id, fresh.token);
    expect(res.status).toBe(200);
    const files = await untar(await res.arrayBuffer());

    expect(ndjson(files, 'milestones')).toEqual([expect.objectContaining({ id: milestone.body.id, iid: milestone.body.iid, title: 'v1.0', description: 'First', state: 'active', project_id: p.id })]);
    const [exportedIssue] = ndjson(files, 'issues');
    expect(exportedIssue.milestone).toMatchObject({ id: milestone.body.id, title: 'v1.0' });
    expect(exportedIssue.timelogs).toEqual([expect.objectContaining({ time_spent: 5400, user_id: owner.id, summary: 'work' })]);
    expect(exportedIssue.award_emoji).toEqual([expect.objectContaining({ name: 'thumbsup', user_id: developer.id, awardable_type: 'Issue', awardable_id: issue.body.id })]);

    const [exportedMr] = ndjson(files, 'merge_requests');
    expect(exportedMr).toMatchObject({ id: mr.body.id, iid: mr.body.iid, title: 'Feature MR', description: 'Please merge', source_branch: 'feature', target_branch: 'main', state: 'opened', target_project_id: p.id, source_project_id: p.id, milestone: { title: 'v1.0' } });
    expect(exportedMr.notes.filter((n: any) => !n.system)).toEqual([expect.objectContaining({ note: 'Looks good', noteable_type: 'MergeRequest', author: { name: developer.name } })]);
    expect(exportedMr.award_emoji).toEqual([expect.objectContaining({ name: 'rocket', awardable_type: 'MergeRequest' })]);
    // Resource events as import_export.yml writes them: the attributes it lets through, no ids of rows here.
    const milestoneEvent = (x: any) => [
      {
        user_id: owner.id,
        action: 'add',
        created_at: x.created_at,
        state: 'opened',
        milestone: { iid: milestone.body.iid, title: 'v1.0', project_id: p.id, group_id: null, description: 'First', due_date: null, created_at: milestone.body.created_at, updated_at: milestone.body.updated_at, start_date: null, state: 'active' },
      },
    ];
    expect(exportedIssue.resource_milestone_events).toEqual(milestoneEvent(exportedIssue));
    expect(exportedMr.resource_milestone_events).toEqual(milestoneEvent(exportedMr));
    expect(exportedIssue.resource_label_events).toEqual([{ action: 'add', user_id: developer.id, created_at: expect.stringMatching(/Z$/), label: expect.objectContaining({ title: 'triage', color: '#aa0000', type: 'ProjectLabel' }) }]);
    expect(exportedIssue.resource_state_events).toEqual([]);
    expect(exportedMr.resource_state_events).toEqual(
      ['closed', 'reopened'].map((state) => ({ user_id: owner.id, state, created_at: expect.stringMatching(/Z$/), source_commit: null, close_after_error_tracking_resolve: false, close_auto_resolve_prometheus_alert: false })),
    );
    const diff = exportedMr.merge_request_diff;
    expect(diff.head_commit_sha).toBe(feature.body.id);
    expect(diff.merge_request_diff_commits).toEqual([expect.objectContaining({ relative_order: 0, sha: feature.body.id, message: 'Change the readme' })]);
    expect(diff.merge_request_diff_files).toEqual([expect.objectContaining({ relative_order: 0, new_path: 'README.md', old_path: 'README.md', new_file: false, deleted_file: false, utf8_diff: '@@ -1 +1,2 @@\n one\n+two\n' })]);

    expect(ndjson(files, 'project_feature')).toEqual([expect.objectContaining({ project_id: p.id, issues_access_level: 20, wiki_access_level: 0, snippets_access_level: 10 })]);
    expect(ndjson(files, 'approval_rules')).toEqual([
      expect.objectContaining({
        id: rule.body.id,
        name: 'Security',
        approvals_required: 2,
        rule_type: 'regular',
        approval_project_rules_users: [{ approval_project_rule_id: rule.body.id, user_id: developer.id }],
        approval_project_rules_protected_branches: [{ approval_project_rule_id: rule.body.id, protected_branch_id: mainPb.body.id, branch_name: 'main' }],
      }),
    ]);
    const projectJson = JSON.parse(new TextDecoder().decode(files.get('./tree/project.json')));
    expect(projectJson).toMatchObject({ reset_approvals_on_push: false, merge_requests_author_approval: true, require_password_to_approve: false });
    // project.bundle read back (bundle-read.ts, in this runtime): the branches at the API's heads, every commit the API lists.
    const bundle = readBundle(files.get('./project.bundle')!);
    expect(bundle.refs).toEqual([
      { sha: expect.any(String), name: 'HEAD' },
      { sha: feature.body.id, name: 'refs/heads/feature' },
      { sha: bundle.refs[0].sha, name: 'refs/heads/main' },
    ]);
    const commits = (await api(`/projects/${p.id}/repository/commits?all=true`, { token: t })).body.map((c: { id: string }) => c.id).sort();
    expect([...bundle.objects].filter(([, o]) => o.type === 'commit').map(([sha]) => sha).sort()).toEqual(commits);
    const branches = ndjson(files, 'protected_branches');
    expect(branches.map((b) => b.name)).toEqual(['main']);
    expect(branches[0].push_access_levels).toEqual([expect.objectContaining({ access_level: 40 })]);
    expect(branches[0].merge_access_levels).toEqual([expect.objectContaining({ access_level: 40 })]);
  });
});

describe('stuck exports', () => {
  it('stop counting as queued or started after 6 hours (StuckExportJobsWorker)', async () => {
    const p = await newProject();
    // A job whose consumer died: no API makes one, so the row is written as the dead consumer left it.
    const hours = (h: number) => Date.now() - h * 3600_000;
    await storageSql(
      `INSERT INTO project_export_jobs (project_id, user_id, jid, status, created_at, updated_at) VALUES (${p.id}, ${owner.id}, 'stuck-${p.id}', 'started', ${hours(7)}, ${hours(7)})`,
    );
    expect((await api(`/projects/${p.id}/export`, { token: owner.token })).body.export_status).toBe('none');
    await storageSql(`UPDATE project_export_jobs SET updated_at = ${hours(5)} WHERE jid = 'stuck-${p.id}'`);
    expect((await api(`/projects/${p.id}/export`, { token: owner.token })).body.export_status).toBe('started');
  });
});

describe('project_members in the archive', () => {
  it("adds the group's members when the exporter owns the group, and only the direct members otherwise", async () => {
    const [groupOwner, groupDev, direct, projectMaintainer] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    const group = await api('/groups', { token: groupOwner.token, body: { name: unique('G'), path: unique('g') } });
    expect(group.status).toBe(201);
    expect((await api(`/groups/${group.body.id}/members`, { token: groupOwner.token, body: { user_id: groupDev.id, access_level: 30 } })).status).toBe(201);
    const p = await api('/projects', { token: groupOwner.token, body: { name: unique('gp'), namespace_id: group.body.id } });
    expect(p.status).toBe(201);
    for (const [u, level] of [[direct, 20], [projectMaintainer, 40]] as const) {
      expect((await api(`/projects/${p.body.id}/members`, { token: groupOwner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
    }
    const membersOf = async (exporter: TestUser) => {
      expect((await api(`/projects/${p.body.id}/export`, { method: 'POST', token: exporter.token })).status).toBe(202);
      // Wait for this export's own archive: the previous one stays finished until it is replaced.
      const until = Date.now() + 25_000;
      while ((await api(`/projects/${p.body.id}/export`, { token: exporter.token })).body.export_status !== 'finished' && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      const res = await download(p.body.id, exporter.token);
      expect(res.status).toBe(200);
      return ndjson(await untar(await res.arrayBuffer()), 'project_members').map((m) => [m.user.username, m.access_level, m.source_type]);
    };
    expect(await membersOf(projectMaintainer)).toEqual([
      [direct.username, 20, 'Project'],
      [projectMaintainer.username, 40, 'Project'],
    ]);
    expect((await membersOf(groupOwner)).sort()).toEqual(
      [
        [direct.username, 20, 'Project'],
        [projectMaintainer.username, 40, 'Project'],
        [groupOwner.username, 50, 'Project'],
        [groupDev.username, 30, 'Project'],
      ].sort(),
    );
  });
});

describe('project_export_enabled', () => {
  it('answers every export route with 404 while the setting is off', async () => {
    const p = await newProject();
    const off = await api('/application/settings', { method: 'PUT', token: rootToken, body: { project_export_enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.project_export_enabled).toBe(false);
    try {
      for (const [method, path] of [['POST', '/export'], ['GET', '/export'], ['GET', '/export/download']] as const) {
        const res = await api(`/projects/${p.id}${path}`, { method, token: owner.token });
        expect([method, path, res.status, res.body]).toEqual([method, path, 404, { message: '404 Not Found' }]);
      }
    } finally {
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { project_export_enabled: true } })).status).toBe(200);
    }
    expect((await api(`/projects/${p.id}/export`, { token: owner.token })).body.export_status).toBe('none');
  });
});
