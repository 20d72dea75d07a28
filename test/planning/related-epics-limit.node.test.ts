/**
 * IssuableLink::MAX_LINKS_COUNT: an epic has at most 100 links (either way); the 101st is refused
 * with IssuableLinks::CreateService's 422, naming the epic asked for. Node only: it takes two
 * hundred requests to get there.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

describe('an epic has at most 100 linked epics', () => {
  it('refuses the 101st link from either end with a 422', async () => {
    const owner = await createUser();
    const path = unique('g');
    const g = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
    const epic = async () => (await api(`/groups/${g.id}/epics`, { token: owner.token, body: { title: unique('e') } })).body as { iid: number };
    const hub = await epic();
    const link = (from: { iid: number }, to: { iid: number }) =>
      api(`/groups/${g.id}/epics/${from.iid}/related_epics`, { token: owner.token, body: { target_group_id: g.id, target_epic_iid: to.iid } });
    for (let i = 0; i < 100; i++) {
      const other = await epic();
      // Half of them link to the hub, half from it: both directions count.
      expect((await (i % 2 ? link(hub, other) : link(other, hub))).status).toBe(201);
    }
    const extra = await epic();
    const limit = 'This epic would exceed the maximum number of linked epics (100).';
    expect(await link(hub, extra)).toMatchObject({ status: 422, body: { message: `&${extra.iid} cannot be added: ${limit}` } });
    expect(await link(extra, hub)).toMatchObject({ status: 422, body: { message: `&${hub.iid} cannot be added: ${limit}` } });
    expect((await api(`/groups/${g.id}/epics/${hub.iid}/related_epics`, { token: owner.token })).body).toHaveLength(100);
  }, 120_000);
});
