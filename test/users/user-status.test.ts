import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, createToken, createUser } from '../support';

const KEYS = ['emoji', 'availability', 'message', 'message_html', 'clear_status_at'];
const EMPTY = { emoji: null, availability: null, message: null, message_html: null, clear_status_at: null };
const PALM = '<gl-emoji title="palm tree" data-name="palm_tree" data-unicode-version="6.0">🌴</gl-emoji>';
const COFFEE = '<gl-emoji title="hot beverage" data-name="coffee" data-unicode-version="4.0">☕</gl-emoji>';

const putStatus = (token: string, body: Record<string, unknown>) => api('/user/status', { method: 'PUT', token, body });
const patchStatus = (token: string, body: Record<string, unknown>) => api('/user/status', { method: 'PATCH', token, body });
const ownStatus = async (token: string) => (await api('/user/status', { token })).body;

describe('GET /user/status', () => {
  it('answers 200 with every field null when the user has no status, in the entity order', async () => {
    const u = await createUser();
    const res = await api('/user/status', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(EMPTY);
    expect(Object.keys(res.body)).toEqual(KEYS);
  });

  it('requires authentication', async () => {
    const res = await api('/user/status');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('PUT /user/status', () => {
  it('sets the status and reads it back on both GET endpoints', async () => {
    const u = await createUser();
    const res = await putStatus(u.token, { emoji: 'coffee', message: 'I crave coffee :coffee:', availability: 'busy' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(KEYS);
    const expected = { emoji: 'coffee', availability: 'busy', message: 'I crave coffee :coffee:', message_html: `I crave coffee ${COFFEE}`, clear_status_at: null };
    expect(res.body).toEqual(expected);
    expect(await ownStatus(u.token)).toEqual(expected);
    // No authentication needed; the username matches case-insensitively; ids work too.
    const anon = await api(`/users/${u.username.toUpperCase()}/status`);
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual(expected);
    expect((await api(`/users/${u.id}/status`)).body).toEqual(expected);
  });

  it('HTML-escapes the message and renders :codes: and Unicode emoji as gl-emoji, without a paragraph', async () => {
    const u = await createUser();
    const message = '<script>alert(1)</script> & :palm_tree: ☕ :not_an_emoji: a:palm_tree:';
    const res = await putStatus(u.token, { emoji: 'palm_tree', message });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(message);
    expect(res.body.message_html).toBe(`&lt;script&gt;alert(1)&lt;/script&gt; &amp; ${PALM} ${COFFEE} :not_an_emoji: a:palm_tree:`);
    expect(res.body.message_html).not.toContain('<script>');
  });

  it('defaults a blank emoji to speech_balloon when a message or availability is set', async () => {
    const u = await createUser();
    const res = await putStatus(u.token, { message: 'hello' });
    expect(res.body).toMatchObject({ emoji: 'speech_balloon', message: 'hello', message_html: 'hello', availability: 'not_set' });
    const busy = await putStatus(u.token, { emoji: '', availability: 'busy' });
    expect(busy.status).toBe(200);
    // PUT nullifies what is not passed: the message is gone.
    expect(busy.body).toEqual({ emoji: 'speech_balloon', availability: 'busy', message: null, message_html: '', clear_status_at: null });
    expect(await ownStatus(u.token)).toEqual(busy.body);
  });

  it('keeps the stored availability when a PUT leaves it blank (SetStatusService drops a blank availability)', async () => {
    const u = await createUser();
    await putStatus(u.token, { emoji: 'coffee', availability: 'busy' });
    const res = await putStatus(u.token, { emoji: 'palm_tree' });
    expect(res.body).toMatchObject({ emoji: 'palm_tree', availability: 'busy', message: null });
    expect((await ownStatus(u.token)).availability).toBe('busy');
  });

  it('deletes the status when emoji, message and availability are all blank', async () => {
    const u = await createUser();
    await putStatus(u.token, { emoji: 'coffee', message: 'x', clear_status_after: '1_day' });
    const res = await putStatus(u.token, { emoji: '', message: '  ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(EMPTY);
    expect(await ownStatus(u.token)).toEqual(EMPTY);
    expect((await api(`/users/${u.id}/status`)).body).toEqual(EMPTY);
    // An empty PUT also deletes.
    await putStatus(u.token, { emoji: 'coffee' });
    expect((await api('/user/status', { method: 'PUT', token: u.token })).body).toEqual(EMPTY);
    expect(await ownStatus(u.token)).toEqual(EMPTY);
  });

  it('refuses an unknown emoji with the model error and writes nothing', async () => {
    const u = await createUser();
    await putStatus(u.token, { emoji: 'coffee', message: 'before' });
    const res = await putStatus(u.token, { emoji: 'does not exist', message: 'hello world' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { emoji: ['is not a valid emoji name'] } });
    expect(await ownStatus(u.token)).toMatchObject({ emoji: 'coffee', message: 'before' });
    // The name is taken literally: colons are not stripped.
    expect((await putStatus(u.token, { emoji: ':coffee:' })).status).toBe(400);
  });

  it('limits the message to 100 characters (counted as characters, not UTF-16 units)', async () => {
    const u = await createUser();
    const ok = await putStatus(u.token, { message: '🌴'.repeat(100) });
    expect(ok.status).toBe(200);
    const res = await putStatus(u.token, { message: 'x'.repeat(101) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { message: ['is too long (maximum is 100 characters)'] } });
    expect((await ownStatus(u.token)).message).toBe('🌴'.repeat(100));
    const both = await putStatus(u.token, { emoji: 'nope', message: 'x'.repeat(101) });
    expect(both.body).toEqual({ message: { emoji: ['is not a valid emoji name'], message: ['is too long (maximum is 100 characters)'] } });
  });

  it('validates availability and clear_status_after with Grape errors', async () => {
    const u = await createUser();
    const bad = await putStatus(u.token, { message: 'x', availability: 'away' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'availability does not have a valid value' });
    const badClear = await putStatus(u.token, { message: 'x', clear_status_after: '2_hours' });
    expect(badClear.status).toBe(400);
    expect(badClear.body).toEqual({ error: 'clear_status_after does not have a valid value' });
    expect(await ownStatus(u.token)).toEqual(EMPTY);
  });

  it('sets clear_status_at to now + clear_status_after, and back to null when a PUT omits it', async () => {
    const u = await createUser();
    const cases: [string, number][] = [
      ['30_minutes', 30 * 60_000],
      ['3_hours', 3 * 3_600_000],
      ['8_hours', 8 * 3_600_000],
      ['1_day', 86_400_000],
      ['3_days', 3 * 86_400_000],
      ['7_days', 7 * 86_400_000],
      ['30_days', 30 * 86_400_000],
    ];
    for (const [after, ms] of cases) {
      const before = Date.now();
      const res = await putStatus(u.token, { message: 'away', clear_status_after: after });
      const after_ = Date.now();
      expect(res.status).toBe(200);
      expect(res.body.clear_status_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const at = Date.parse(res.body.clear_status_at);
      expect(at).toBeGreaterThanOrEqual(before + ms - 1000);
      expect(at).toBeLessThanOrEqual(after_ + ms + 1000);
      expect((await ownStatus(u.token)).clear_status_at).toBe(res.body.clear_status_at);
    }
    const cleared = await putStatus(u.token, { message: 'back' });
    expect(cleared.body.clear_status_at).toBeNull();
    expect((await ownStatus(u.token)).clear_status_at).toBeNull();
  });

  it('accepts form-encoded bodies', async () => {
    const u = await createUser();
    const res = await api('/user/status', { method: 'PUT', token: u.token, form: { emoji: 'palm_tree', message: 'beach' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ emoji: 'palm_tree', message: 'beach' });
  });

  it('requires authentication', async () => {
    expect((await api('/user/status', { method: 'PUT', body: { message: 'x' } })).status).toBe(401);
  });

  it('takes read_user tokens for the GETs (users.rb allow_access_with_scope) but not for PUT or PATCH', async () => {
    const u = await createUser();
    await putStatus(u.token, { emoji: 'coffee' });
    const readUser = await createToken(u.id, ['read_user']);
    expect((await api('/user/status', { token: readUser })).body).toMatchObject({ emoji: 'coffee' });
    expect((await api(`/users/${u.id}/status`, { token: readUser })).status).toBe(200);
    for (const method of ['PUT', 'PATCH']) {
      const res = await api('/user/status', { method, token: readUser, body: { emoji: 'palm_tree' } });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('insufficient_scope');
    }
    expect((await ownStatus(u.token)).emoji).toBe('coffee');
  });
});

describe('PATCH /user/status', () => {
  it('changes only the parameters passed', async () => {
    const u = await createUser();
    const set = await putStatus(u.token, { emoji: 'coffee', message: 'working', clear_status_after: '1_day' });
    const res = await patchStatus(u.token, { emoji: 'palm_tree', availability: 'busy' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ emoji: 'palm_tree', availability: 'busy', message: 'working', message_html: 'working', clear_status_at: set.body.clear_status_at });
    expect(await ownStatus(u.token)).toEqual(res.body);
    const msg = await patchStatus(u.token, { emoji: 'palm_tree', message: 'on holiday' });
    expect(msg.body).toMatchObject({ emoji: 'palm_tree', availability: 'busy', message: 'on holiday', clear_status_at: set.body.clear_status_at });
    const clear = await patchStatus(u.token, { emoji: 'palm_tree', clear_status_after: null });
    expect(clear.body.clear_status_at).toBeNull();
    expect((await ownStatus(u.token)).clear_status_at).toBeNull();
  });

  it('answers 200 and changes nothing for an empty PATCH', async () => {
    const u = await createUser();
    const set = await putStatus(u.token, { emoji: 'coffee', message: 'm' });
    const res = await patchStatus(u.token, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(set.body);
    expect(await ownStatus(u.token)).toEqual(set.body);
  });

  it('resets a blank emoji to speech_balloon like SetStatusService does', async () => {
    const u = await createUser();
    await putStatus(u.token, { emoji: 'coffee', message: 'm' });
    const res = await patchStatus(u.token, { message: 'only the message' });
    expect(res.body).toMatchObject({ emoji: 'speech_balloon', message: 'only the message' });
  });

  it('validates like PUT and writes nothing on error', async () => {
    const u = await createUser();
    await putStatus(u.token, { emoji: 'coffee', message: 'm' });
    expect((await patchStatus(u.token, { emoji: 'unknown_emoji_name' })).body).toEqual({ message: { emoji: ['is not a valid emoji name'] } });
    expect((await patchStatus(u.token, { availability: 'idle' })).body).toEqual({ error: 'availability does not have a valid value' });
    expect(await ownStatus(u.token)).toMatchObject({ emoji: 'coffee', message: 'm' });
  });
});

describe('GET /users/:id_or_username/status', () => {
  it('answers 404 User Not Found for an unknown user, signed in or not', async () => {
    const u = await createUser();
    for (const token of [undefined, u.token]) {
      const res = await api('/users/no-such-user-xyz/status', { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 User Not Found' });
    }
    expect((await api('/users/999999999/status')).body).toEqual({ message: '404 User Not Found' });
  });

  it("shows another user's status to a signed-in user", async () => {
    const a = await createUser();
    const b = await createUser();
    await putStatus(a.token, { emoji: 'palm_tree', message: 'beach' });
    const res = await api(`/users/${a.username}/status`, { token: b.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ emoji: 'palm_tree', message: 'beach', message_html: 'beach' });
  });
});

describe('status expiry', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads as cleared once clear_status_at has passed, and the stored row is deleted', async () => {
    const u = await createUser();
    const set = await putStatus(u.token, { emoji: 'coffee', message: 'brb', clear_status_after: '30_minutes' });
    expect(set.status).toBe(200);
    const clearAt = Date.parse(set.body.clear_status_at);
    // Only the clock moves (server and test share it); storage is the real database.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(clearAt - 1);
    expect((await api(`/users/${u.id}/status`)).body).toMatchObject({ emoji: 'coffee', message: 'brb' });
    // UserStatus.scheduled_for_cleanup: clear_status_at <= now, so the very millisecond counts.
    vi.setSystemTime(clearAt);
    expect(await ownStatus(u.token)).toEqual(EMPTY);
    expect((await api(`/users/${u.id}/status`)).body).toEqual(EMPTY);
    vi.useRealTimers();
    // Back at real time (before clear_status_at) the status is still gone: reading it deleted it.
    expect(await ownStatus(u.token)).toEqual(EMPTY);
  });

  it('does not carry an expired status into a PATCH', async () => {
    const u = await createUser();
    const set = await putStatus(u.token, { emoji: 'coffee', message: 'old message', availability: 'busy', clear_status_after: '30_minutes' });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(set.body.clear_status_at) + 60_000);
    const res = await patchStatus(u.token, { emoji: 'palm_tree' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ emoji: 'palm_tree', availability: 'not_set', message: null, message_html: '', clear_status_at: null });
    vi.useRealTimers();
    expect(await ownStatus(u.token)).toEqual(res.body);
  });
});
