/**
 * The flags this server defines are real switches: each test flips one through POST /features and
 * sees the behaviour change through the API, then deletes it (back to the definition's default).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';

const flip = async (name: string, body: Record<string, unknown>) => {
  const res = await api(`/features/${name}`, { method: 'POST', token: rootToken, body });
  expect(res.status).toBe(201);
  return res.body;
};
const drop = (name: string) => api(`/features/${name}`, { method: 'DELETE', token: rootToken });

describe('only_positive_pagination_values (lib/api/pagination_params.rb)', () => {
  afterEach(async () => {
    expect((await drop('only_positive_pagination_values')).status).toBe(204);
  });

  const list = (query: string) => api(`/namespaces?${query}`, { token: rootToken });

  it('off (the default): page below 1 is page 1, a negative per_page the default, per_page=0 refused', async () => {
    for (const q of ['page=0', 'page=-10']) {
      const res = await list(q);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-page')).toBe('1');
    }
    const negative = await list('per_page=-1');
    expect(negative.status).toBe(200);
    expect(negative.headers.get('x-per-page')).toBe('20');
    expect((await list('per_page=0')).body).toEqual({ error: 'per_page has a value not allowed' });
    expect((await list('page=a')).body).toEqual({ error: 'page is invalid' });
  });

  it('on: page and per_page below 1 are 400s, the rest pages as before', async () => {
    await flip('only_positive_pagination_values', { value: 'true' });
    for (const [q, error] of [
      ['page=0', 'page does not have a valid value'],
      ['page=-10', 'page does not have a valid value'],
      ['per_page=0', 'per_page does not have a valid value'],
      ['per_page=-1', 'per_page does not have a valid value'],
      ['page=0&per_page=-1', 'page does not have a valid value, per_page does not have a valid value'],
    ]) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body, q).toEqual({ error });
    }
    expect((await list('page=a')).body).toEqual({ error: 'page is invalid' });
    const fine = await list('page=1&per_page=5');
    expect(fine.status).toBe(200);
    expect(fine.headers.get('x-per-page')).toBe('5');

    // Off again: the next request pages leniently.
    await flip('only_positive_pagination_values', { value: 'false' });
    expect((await list('page=0')).status).toBe(200);
  });

  it('a percentage of time switches some requests and not others (Flipper: rand < percentage)', async () => {
    await flip('only_positive_pagination_values', { value: '50' });
    const statuses = new Set<number>();
    for (let i = 0; i < 40 && statuses.size < 2; i++) statuses.add((await list('page=0')).status);
    // 40 requests all on one side at 50%: one chance in 2^39.
    expect([...statuses].sort()).toEqual([200, 400]);
  });
});

describe('import_project_from_remote_file and import_project_from_remote_file_s3', () => {
  it('GET /features lists neither until an administrator sets one; setting flips its state', async () => {
    const names = async () => (await api('/features', { token: rootToken })).body.map((f: { name: string }) => f.name);
    expect(await names()).not.toContain('import_project_from_remote_file');
    const off = await flip('import_project_from_remote_file', { value: 'false' });
    expect(off.state).toBe('off');
    const on = await flip('import_project_from_remote_file_s3', { value: 'true' });
    expect(on.state).toBe('on');
    expect(await names()).toEqual(expect.arrayContaining(['import_project_from_remote_file', 'import_project_from_remote_file_s3']));
    await drop('import_project_from_remote_file');
    await drop('import_project_from_remote_file_s3');
    expect(await names()).not.toContain('import_project_from_remote_file_s3');
  });
});
