/**
 * The parameter encodings real clients send to POST /features/:name (python-gitlab 3.12's gl.features.set and
 * the raw requests of scripts/clients/gitbeaker-admin-check.mjs): JSON booleans and numbers, float
 * percentages, urlencoded forms, parameters in the query string, and the Grape refusal of an array where GitLab
 * declares a comma-separated String. Every test uses its own flag and deletes it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let plain: TestUser;

beforeAll(async () => {
  plain = await createUser();
});

const del = (name: string) => api(`/features/${name}`, { method: 'DELETE', token: rootToken });

describe('POST /features/:name: client encodings', () => {
  it('JSON true/false and a JSON number; a float percentage; force as a JSON boolean', async () => {
    const name = unique('ff_');
    const post = (body: Record<string, unknown>) => api(`/features/${name}`, { method: 'POST', token: rootToken, body });
    expect((await post({ value: true, force: true })).body.gates).toEqual([{ key: 'boolean', value: true }]);
    expect((await post({ value: false })).body.state).toBe('off');
    expect((await post({ value: 30 })).body.gates).toEqual([{ key: 'boolean', value: false }, { key: 'percentage_of_time', value: 30 }]);
    expect((await post({ value: 0.5, key: 'percentage_of_actors' })).body.gates).toEqual([
      { key: 'boolean', value: false },
      { key: 'percentage_of_actors', value: 0.5 },
      { key: 'percentage_of_time', value: 30 },
    ]);
    await del(name);
  });

  it("an urlencoded form's 0 and 1 are percentages (0 turns the flag off), as in GitLab", async () => {
    const name = unique('ff_');
    const one = await api(`/features/${name}`, { method: 'POST', token: rootToken, form: { value: '1' } });
    expect(one.body.gates).toEqual([{ key: 'boolean', value: false }, { key: 'percentage_of_time', value: 1 }]);
    const zero = await api(`/features/${name}`, { method: 'POST', token: rootToken, form: { value: '0' } });
    expect(zero.body).toMatchObject({ state: 'off', gates: [{ key: 'boolean', value: false }] });
    await del(name);
  });

  it('parameters in the query string of a POST are read like body parameters', async () => {
    const name = unique('ff_');
    const res = await api(`/features/${name}?value=true&user=${plain.username}`, { method: 'POST', token: rootToken });
    expect(res.status).toBe(201);
    expect(res.body.gates).toEqual([{ key: 'boolean', value: false }, { key: 'actors', value: [`User:${plain.id}`] }]);
    await del(name);
  });

  it('a target given as an array (JSON or key[]) is a Grape 400: GitLab declares a comma-separated String', async () => {
    const name = unique('ff_');
    const json = await api(`/features/${name}`, { method: 'POST', token: rootToken, body: { value: true, user: [plain.username] } });
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ error: 'user is invalid' });
    const form = await api(`/features/${name}`, { method: 'POST', token: rootToken, form: { value: 'true', 'feature_group[]': ['beta_testers'] } });
    expect(form.body).toEqual({ error: 'feature_group is invalid' });
    expect((await api('/features', { token: rootToken })).body.find((f: { name: string }) => f.name === name)).toBeUndefined();
  });
});
