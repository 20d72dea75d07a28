import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const LIMIT = 300;
const MESSAGE = "You can't follow more than 300 users. To follow more users, unfollow some others.";

/** Plain users to be followed: POST /users only, no tokens needed. */
async function makeUsers(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, async () => {
        const username = unique('followee');
        const res = await api('/users', { token: rootToken, body: { email: `${username}@example.com`, name: username, username, password: `Pw-${unique('p')}-long`, skip_confirmation: true } });
        if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
        return res.body.id as number;
      }),
    );
    out.push(...batch);
  }
  return out;
}

async function followAll(token: string, ids: number[]) {
  for (let i = 0; i < ids.length; i += 25) {
    const statuses = await Promise.all(ids.slice(i, i + 25).map(async (id) => (await api(`/users/${id}/follow`, { method: 'POST', token })).status));
    expect(statuses.every((s) => s === 201)).toBe(true);
  }
}

describe('POST /users/:id/follow followee cap (Users::UserFollowUser::MAX_FOLLOWEE_LIMIT)', () => {
  it(`refuses the ${LIMIT + 1}st followee with 400, also under concurrent follows, and frees a slot on unfollow`, { timeout: 240_000 }, async () => {
    const fan = await createUser();
    const targets = await makeUsers(LIMIT + 2);
    await followAll(fan.token, targets.slice(0, LIMIT - 1));

    // One slot left, three concurrent follows: exactly one gets it.
    const race = await Promise.all(targets.slice(LIMIT - 1).map((id) => api(`/users/${id}/follow`, { method: 'POST', token: fan.token })));
    expect(race.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of race.filter((x) => x.status === 400)) expect(r.body).toEqual({ message: MESSAGE });

    const list = await api(`/users/${fan.id}/following?per_page=1`, { token: fan.token });
    expect(list.headers.get('x-total')).toBe(String(LIMIT));

    const loser = race.findIndex((r) => r.status === 400);
    const loserId = targets[LIMIT - 1 + loser];
    const again = await api(`/users/${loserId}/follow`, { method: 'POST', token: fan.token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: MESSAGE });
    // The limit is checked before the duplicate: re-following someone already followed is a 400 too.
    expect((await api(`/users/${targets[0]}/follow`, { method: 'POST', token: fan.token })).status).toBe(400);

    expect((await api(`/users/${targets[0]}/unfollow`, { method: 'POST', token: fan.token })).status).toBe(201);
    expect((await api(`/users/${loserId}/follow`, { method: 'POST', token: fan.token })).status).toBe(201);
    const after = await api(`/users/${fan.id}/following?per_page=1`, { token: fan.token });
    expect(after.headers.get('x-total')).toBe(String(LIMIT));
  });
});
