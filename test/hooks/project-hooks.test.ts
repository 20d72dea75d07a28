/** Project and group hook CRUD (project_hooks.rb, group_hooks.rb) on both runtimes: GitLab's entity, the token never shown, URL and branch filter checks. */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const URL_ = 'https://example.com/hook';

async function project() {
  const u = await createUser();
  const p = (await api('/projects', { token: u.token, body: { name: unique('hk') } })).body;
  return { u, p };
}

describe('project hooks', () => {
  it('creates, lists, reads, edits and deletes a hook in GitLab’s entity, never showing the token', async () => {
    const { u, p } = await project();
    const created = await api(`/projects/${p.id}/hooks`, {
      token: u.token,
      body: { url: URL_, name: 'ci', description: 'to ci', token: 'very-secret-hook-token', issues_events: true, merge_requests_events: 'true', push_events: false, enable_ssl_verification: false, push_events_branch_filter: 'main' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: URL_,
      name: 'ci',
      description: 'to ci',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      push_events: false,
      tag_push_events: false,
      merge_requests_events: true,
      repository_update_events: false,
      enable_ssl_verification: false,
      alert_status: 'executable',
      disabled_until: null,
      url_variables: [],
      push_events_branch_filter: 'main',
      branch_filter_strategy: 'wildcard',
      custom_webhook_template: null,
      custom_headers: [],
      project_id: p.id,
      issues_events: true,
      confidential_issues_events: false,
      note_events: false,
      confidential_note_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      deployment_events: false,
      feature_flag_events: false,
      job_events: false,
      releases_events: false,
      milestone_events: false,
      emoji_events: false,
      resource_access_token_events: false,
      resource_deploy_token_events: false,
      vulnerability_events: false,
    });
    expect(created.text).not.toContain('very-secret-hook-token');
    const id = created.body.id;
    const list = await api(`/projects/${p.id}/hooks`, { token: u.token });
    expect([list.status, list.body, list.headers.get('x-total')]).toEqual([200, [created.body], '1']);
    expect((await api(`/projects/${p.id}/hooks/${id}`, { token: u.token })).body).toEqual(created.body);
    const edited = await api(`/projects/${p.id}/hooks/${id}`, { method: 'PUT', token: u.token, body: { note_events: true, branch_filter_strategy: 'all_branches' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ note_events: true, issues_events: true, branch_filter_strategy: 'all_branches', push_events_branch_filter: null });
    expect((await api(`/projects/${p.id}/hooks/${id}`, { method: 'DELETE', token: u.token })).status).toBe(204);
    const gone = await api(`/projects/${p.id}/hooks/${id}`, { token: u.token });
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Not found' }]);
  });

  it('refuses local URLs, bad schemes and bad branch filters with 422, and hooks of other projects with 404', async () => {
    const { u, p } = await project();
    const post = (body: Record<string, unknown>) => api(`/projects/${p.id}/hooks`, { token: u.token, body });
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.0.0.8/x', 'ftp://example.com/x', 'not a url']) {
      const res = await post({ url });
      expect([url, res.status, res.body]).toEqual([url, 422, { message: 'Invalid url given' }]);
    }
    expect((await post({ url: URL_, push_events_branch_filter: 'bad..branch' })).body).toEqual({ message: 'Invalid branch filter given' });
    expect((await post({ url: URL_, push_events_branch_filter: '(', branch_filter_strategy: 'regex' })).body).toEqual({ message: 'Invalid branch filter given' });
    expect((await post({})).body).toEqual({ error: 'url is missing' });
    expect((await api(`/projects/${p.id}/hooks`, { token: u.token })).body).toEqual([]);

    const other = await project();
    const theirs = (await api(`/projects/${other.p.id}/hooks`, { token: other.u.token, body: { url: URL_ } })).body;
    const res = await api(`/projects/${p.id}/hooks/${theirs.id}`, { method: 'PUT', token: u.token, body: { url: 'https://example.org/x' } });
    expect([res.status, res.body]).toEqual([404, { message: '404 Not found' }]);
    expect((await api(`/projects/${other.p.id}/hooks/${theirs.id}`, { token: other.u.token })).body.url).toBe(URL_);
  });

  it('accepts local URLs once allow_local_requests_from_web_hooks_and_services is on', async () => {
    const { u, p } = await project();
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: true } });
    try {
      const res = await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: 'http://127.0.0.1:9/x' } });
      expect([res.status, res.body.url]).toEqual([201, 'http://127.0.0.1:9/x']);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: false } });
    }
  });

  it('is for maintainers: a developer gets 403, a non-member 404', async () => {
    const { u, p } = await project();
    const dev = await createUser();
    const stranger = await createUser();
    await api(`/projects/${p.id}/members`, { token: u.token, body: { user_id: dev.id, access_level: 30 } });
    expect((await api(`/projects/${p.id}/hooks`, { token: dev.token })).status).toBe(403);
    expect((await api(`/projects/${p.id}/hooks`, { token: dev.token, body: { url: URL_ } })).status).toBe(403);
    expect((await api(`/projects/${p.id}/hooks`, { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('group hooks', () => {
  it('are for group owners, with the group entity', async () => {
    const u = await createUser();
    const path = unique('ghk');
    const g = (await api('/groups', { token: u.token, body: { name: path, path } })).body;
    const created = await api(`/groups/${g.id}/hooks`, { token: u.token, body: { url: URL_, subgroup_events: true, member_events: true, token: 'group-hook-secret' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ group_id: g.id, url: URL_, subgroup_events: true, member_events: true, project_events: false, push_events: true, alert_status: 'executable' });
    expect(created.text).not.toContain('group-hook-secret');
    expect((await api(`/groups/${g.id}/hooks`, { token: u.token })).body.map((h: { id: number }) => h.id)).toEqual([created.body.id]);
    const maintainer = await createUser();
    await api(`/groups/${g.id}/members`, { token: u.token, body: { user_id: maintainer.id, access_level: 40 } });
    expect((await api(`/groups/${g.id}/hooks`, { token: maintainer.token })).status).toBe(403);
    expect((await api(`/groups/${g.id}/hooks/${created.body.id}`, { method: 'PUT', token: u.token, body: { url: 'http://localhost/x' } })).body).toEqual({ message: 'Invalid url given' });
    expect((await api(`/groups/${g.id}/hooks/${created.body.id}`, { method: 'DELETE', token: u.token })).status).toBe(204);
    expect((await api(`/groups/${g.id}/hooks`, { token: u.token })).body).toEqual([]);
  });
});
