/**
 * Resource events in an archive (import_export.yml `resource_label_events` with `label`,
 * `resource_milestone_events` with `milestone`, `resource_state_events` under issues and merge
 * requests): written with their issuable, labels and milestones found or created by title, users
 * mapped (an unmatched one is the importer); a line whose event GitLab could not build fails alone.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

const at = (k: number) => new Date(Date.UTC(2022, 0, 1) + k * 60_000).toISOString();
const base = { author_id: 7, created_at: at(0), updated_at: at(0) };

describe('import of resource events', () => {
  it('writes label, milestone and state events of issues and merge requests; a bad event fails only its line', async () => {
    const user = await createUser();
    const events = {
      resource_label_events: [
        { action: 'add', user_id: 7, created_at: at(1), label: { title: 'listed', color: '#112233' } },
        { action: 'add', user_id: 7, created_at: at(2), label: { title: 'only-in-event', color: '#445566' } },
        // A label deleted in the source: the event stays, without one.
        { action: 'remove', user_id: 7, created_at: at(3) },
      ],
      resource_milestone_events: [
        { action: 'add', user_id: 7, created_at: at(4), state: 'opened', milestone: { title: 'event-milestone', iid: 4 } },
        { action: 'remove', user_id: 7, created_at: at(5), state: 'closed', milestone: { title: 'event-milestone', iid: 4 } },
      ],
      resource_state_events: [
        { user_id: 7, created_at: at(6), state: 'closed', source_commit: null, close_after_error_tracking_resolve: false, close_auto_resolve_prometheus_alert: false },
        { user_id: 7, created_at: at(7), state: 'reopened', source_commit: null },
      ],
    };
    const archive = await tarGz(
      exportTree({
        relations: {
          labels: [{ title: 'listed', color: '#112233' }],
          issues: [
            { ...base, iid: 1, title: 'With events', state: 'opened', ...events },
            { ...base, iid: 2, title: 'Bad event', state: 'opened', resource_label_events: [{ action: 'explode', user_id: 7, created_at: at(1) }] },
            { ...base, iid: 3, title: 'After the bad one', state: 'opened', resource_state_events: [{ user_id: 7, created_at: at(8), state: 'closed' }] },
          ],
          merge_requests: [
            { ...base, iid: 1, title: 'MR with events', source_branch: 'f', target_branch: 'main', state: 'opened', ...events },
            { ...base, iid: 2, title: 'MR bad state', source_branch: 'g', target_branch: 'main', state: 'opened', resource_state_events: [{ user_id: 7, created_at: at(1), state: 'vanished' }] },
          ],
        },
      }),
    );
    const res = await uploadImport(user.token, archive, { path: unique('events') });
    expect(res.status).toBe(201);
    const done = await waitForImport(user.token, res.body.id);
    expect(done.body.import_status).toBe('finished');
    expect(done.body.failed_relations.map((f: Record<string, unknown>) => [f.relation_name, f.line_number, f.exception_message]).sort()).toEqual([
      ['issues', 1, 'Validation failed: Resource label events is invalid'],
      ['merge_requests', 1, 'Validation failed: Resource state events is invalid'],
    ]);
    const P = `/projects/${res.body.id}`;
    const get = async (path: string) => {
      const r = await api(`${P}${path}`, { token: user.token });
      expect([path, r.status]).toEqual([path, 200]);
      return r.body;
    };
    expect((await get('/issues?state=all')).map((i: { iid: number }) => i.iid).sort()).toEqual([1, 3]);
    expect((await get('/merge_requests?state=all')).map((m: { iid: number }) => m.iid)).toEqual([1]);
    for (const [type, owner] of [['Issue', '/issues/1'], ['MergeRequest', '/merge_requests/1']] as const) {
      const id = (await get(owner)).id;
      const labels = await get(`${owner}/resource_label_events`);
      expect(labels.map((e: any) => [e.action, e.label?.name ?? null, e.created_at, e.user.username, e.resource_type, e.resource_id])).toEqual([
        ['add', 'listed', at(1), user.username, type, id],
        ['add', 'only-in-event', at(2), user.username, type, id],
        ['remove', null, at(3), user.username, type, id],
      ]);
      const milestones = await get(`${owner}/resource_milestone_events`);
      expect(milestones.map((e: any) => [e.action, e.milestone?.title, e.state, e.created_at, e.user.username, e.resource_id])).toEqual([
        ['add', 'event-milestone', 'opened', at(4), user.username, id],
        ['remove', 'event-milestone', 'closed', at(5), user.username, id],
      ]);
      const states = await get(`${owner}/resource_state_events`);
      expect(states.map((e: any) => [e.state, e.created_at, e.user.username, e.resource_id, e.source_commit, e.source_merge_request_id])).toEqual([
        ['closed', at(6), user.username, id, null, null],
        ['reopened', at(7), user.username, id, null, null],
      ]);
    }
    expect((await get('/issues/3/resource_state_events')).map((e: any) => e.state)).toEqual(['closed']);
    // The label and milestone only the events named were created, once each.
    expect((await get('/labels')).map((l: { name: string }) => l.name).sort()).toEqual(['listed', 'only-in-event']);
    expect((await get('/milestones')).map((m: { title: string }) => m.title)).toEqual(['event-milestone']);
  });
});
