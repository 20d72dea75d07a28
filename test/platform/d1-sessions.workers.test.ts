/**
 * D1 read replication through the Sessions API (src/db/d1-sessions.ts; README "Reads near the client").
 *
 * Local workerd has one database and no replicas, so what is asserted is the contract a client sees:
 * every answer carries a bookmark, bookmarks never go backwards when sent back, a read sent with the
 * bookmark of a write sees that write, a bookmark D1 would not accept is ignored, a caller that sends
 * none starts from the last bookmark the isolate answered it, and the statements of a request really
 * run in its session. Whether a read is served by a replica cannot be observed here.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BOOKMARK_HEADER, inSession, sessionRouter, sessionStart } from '../../src/db/d1-sessions';
import { api, rootToken, unique } from '../support';

const DB = (env as unknown as { DB: D1Database }).DB;
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

async function createUser() {
  const username = unique('bm');
  const res = await api('/users', {
    token: rootToken,
    body: { email: `${username}@example.com`, name: username, username, password: `Pw-${unique('p')}-long`, skip_confirmation: true },
  });
  expect(res.status).toBe(201);
  return { res, username, id: res.body.id as number };
}

describe('D1 sessions over HTTP', () => {
  it('a write answers a bookmark; a read sent with it sees the write and answers a bookmark no older', async () => {
    const { res: write, username, id } = await createUser();
    const bookmark = write.headers.get(BOOKMARK_HEADER)!;
    expect(bookmark).toMatch(BOOKMARK);

    const read = await api(`/users/${id}`, { token: rootToken, headers: { [BOOKMARK_HEADER]: bookmark } });
    expect(read.status).toBe(200);
    expect(read.body.username).toBe(username);
    const after = read.headers.get(BOOKMARK_HEADER)!;
    expect(after).toMatch(BOOKMARK);
    // Bookmarks are ordered as strings: a session continued from a bookmark never reports an older one.
    expect(after >= bookmark).toBe(true);
  });

  it('bookmarks move forward with writes', async () => {
    const first = (await createUser()).res.headers.get(BOOKMARK_HEADER)!;
    const second = (await createUser()).res.headers.get(BOOKMARK_HEADER)!;
    expect(second > first).toBe(true);
  });

  it('a read without a bookmark still answers one', async () => {
    const res = await api('/user', { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
  });

  it('error responses carry the bookmark too', async () => {
    const res = await api('/users/999999999', { token: rootToken });
    expect(res.status).toBe(404);
    expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
  });

  it('a bookmark D1 would not accept is ignored, not a 500', async () => {
    for (const garbage of ['garbage', 'zzzzzzzz-zzzzzzzz-zzzzzzzz-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', 'x'.repeat(4000), '']) {
      const res = await api('/user', { token: rootToken, headers: { [BOOKMARK_HEADER]: garbage } });
      expect(res.status).toBe(200);
      // Local D1 would echo a garbage bookmark back; the session started unconstrained instead.
      expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
    }
  });
});

describe('D1 sessions: where a session starts', () => {
  const req = (method: string, bookmark?: string) => new Request('http://x/api/v4/user', { method, headers: bookmark === undefined ? {} : { [BOOKMARK_HEADER]: bookmark } });
  const valid = '00000000-00000015-00000000-00000000000000000000000000000000';

  it('writes on the primary whatever the client sent; reads after the bookmark, or anywhere', () => {
    expect(sessionStart(req('POST'))).toBe('first-primary');
    expect(sessionStart(req('PUT', valid))).toBe('first-primary');
    expect(sessionStart(req('DELETE'))).toBe('first-primary');
    expect(sessionStart(req('GET'))).toBe('first-unconstrained');
    expect(sessionStart(req('HEAD', valid))).toBe(valid);
    expect(sessionStart(req('GET', valid.toUpperCase()))).toBe(valid);
    expect(sessionStart(req('GET', 'first-primary'))).toBe('first-unconstrained');
    expect(sessionStart(req('GET', `${valid}0`))).toBe('first-unconstrained');
  });
});

describe('D1 sessions: callers that send no bookmark', () => {
  const ping = (method: string, headers: Record<string, string>) =>
    inSession(DB, new Request('http://x/api/v4/user', { method, headers }), async () => {
      await sessionRouter(DB).prepare('select 1').run();
      return new Response('ok');
    });

  it("start their reads after the bookmark this isolate last answered them, other callers' reads do not", async () => {
    const token = unique('tok');
    const write = await ping('POST', { 'PRIVATE-TOKEN': token });
    const bookmark = write.headers.get(BOOKMARK_HEADER)!;
    expect(bookmark).toMatch(BOOKMARK);
    expect(sessionStart(new Request('http://x/api/v4/user', { headers: { 'PRIVATE-TOKEN': token } }))).toBe(bookmark);
    expect(sessionStart(new Request(`http://x/api/v4/user?private_token=${token}`))).toBe('first-unconstrained');
    expect(sessionStart(new Request('http://x/api/v4/user', { headers: { 'PRIVATE-TOKEN': unique('other') } }))).toBe('first-unconstrained');
    expect(sessionStart(new Request('http://x/api/v4/user'))).toBe('first-unconstrained');
  });

  it('keep the later of the bookmark they send and the one remembered for them', async () => {
    const token = unique('tok');
    const remembered = (await ping('POST', { Authorization: `Bearer ${token}` })).headers.get(BOOKMARK_HEADER)!;
    const older = '00000000-00000000-00000000-00000000000000000000000000000000';
    const newer = 'ffffffff-00000000-00000000-00000000000000000000000000000000';
    const read = (sent: string) => sessionStart(new Request('http://x/', { headers: { Authorization: `Bearer ${token}`, [BOOKMARK_HEADER]: sent } }));
    expect(read(older)).toBe(remembered);
    expect(read(newer)).toBe(newer);
  });

  it('never go back to an older bookmark when their requests finish out of order', async () => {
    const token = unique('tok');
    const headers = { 'JOB-TOKEN': token };
    let newest = '';
    // A read runs a statement, then the same caller's write starts and finishes before the read does.
    const read = await inSession(DB, new Request('http://x/', { headers }), async () => {
      await sessionRouter(DB).prepare('select 1').run();
      newest = (await ping('POST', headers)).headers.get(BOOKMARK_HEADER)!;
      return new Response('ok');
    });
    expect(read.headers.get(BOOKMARK_HEADER)! < newest).toBe(true);
    expect(sessionStart(new Request('http://x/', { headers }))).toBe(newest);
  });
});

describe('D1 sessions: the router', () => {
  it('runs a statement prepared before the request in the request session', async () => {
    const router = sessionRouter(DB);
    // Prepared once, as Drizzle's `.prepare()` and `prepared()` do, then run inside a request.
    const stmt = router.prepare('select ? as v');
    let seen: unknown;
    const res = await inSession(DB, new Request('http://x/', { method: 'POST' }), async () => {
      seen = (await stmt.bind(7).first<{ v: number }>())?.v;
      return new Response('ok');
    });
    expect(seen).toBe(7);
    // A session that ran no statement has no bookmark: the header proves the statement ran in it.
    expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
  });

  it('sends a batch to the request session, and to the binding outside a request', async () => {
    const router = sessionRouter(DB);
    const outside = await router.batch([router.prepare('select 1 as v'), router.prepare('select ? as v').bind(2)]);
    expect(outside.map((r) => (r.results[0] as { v: number }).v)).toEqual([1, 2]);
    const res = await inSession(DB, new Request('http://x/', { method: 'GET' }), async () => {
      const rows = await router.batch([router.prepare('select 3 as v')]);
      return Response.json(rows[0].results[0]);
    });
    expect(await res.json()).toEqual({ v: 3 });
    expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
  });

  it('answers no bookmark when the request ran nothing and the client sent none', async () => {
    const res = await inSession(DB, new Request('http://x/'), async () => new Response('ok'));
    expect(res.headers.get(BOOKMARK_HEADER)).toBeNull();
  });

  it('sets the header on a response whose headers are immutable', async () => {
    const res = await inSession(DB, new Request('http://x/', { method: 'POST' }), async () => {
      await sessionRouter(DB).prepare('select 1').run();
      // Response.redirect's headers are immutable (Fetch spec), like a response passed through from a binding.
      return Response.redirect('http://x/elsewhere', 302);
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://x/elsewhere');
    expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
  });
});
