/** The system notes time tracking writes (SystemNotes::TimeTrackingService), read back through the notes API. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let project: { id: number };

beforeAll(async () => {
  owner = await createUser();
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
});

describe('time tracking system notes', () => {
  it('records estimate changes, spent and subtracted time and both resets, in order, by the acting user', async () => {
    const issue = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('t') } });
    const base = `/projects/${project.id}/issues/${issue.body.iid}`;
    const steps: [string, Record<string, string>][] = [
      ['time_estimate', { duration: '1w 1d 3h' }],
      ['time_estimate', { duration: '1w 1d 3h' }], // unchanged: Issues::UpdateService writes no note
      ['add_spent_time', { duration: '1h30m' }],
      ['add_spent_time', { duration: '-30m' }],
      ['reset_time_estimate', {}],
      ['reset_spent_time', {}],
    ];
    for (const [path, body] of steps) expect((await api(`${base}/${path}`, { token: owner.token, method: 'POST', body })).status).toBeLessThan(300);
    const notes = await api(`${base}/notes?sort=asc`, { token: owner.token });
    expect(notes.status).toBe(200);
    const system = (notes.body as { body: string; system: boolean; author: { id: number } }[]).filter((n) => n.system);
    expect(system.map((n) => n.body)).toEqual([
      'changed time estimate to 1w 1d 3h',
      'added 1h 30m of time spent',
      'subtracted 30m of time spent',
      'removed time estimate',
      'removed time spent',
    ]);
    expect(system.every((n) => n.author.id === owner.id)).toBe(true);
    const stats = await api(`${base}/time_stats`, { token: owner.token });
    expect(stats.body).toMatchObject({ time_estimate: 0, total_time_spent: 0 });
  });
});
