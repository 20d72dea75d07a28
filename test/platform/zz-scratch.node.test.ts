import { beforeAll, it } from 'vitest';
import { api } from '../support';
import { EXPECTATIONS, type Role, type Row } from './authorization-matrix';
import { buildWorld, callerToken, freshParams, param } from './route-world';
import { setStatementLog } from '../../src/db/round-trips';
beforeAll(buildWorld, 60_000);
const KEYS = (process.env.KEYS ?? '').split('|');
function callerOf(row: Row): Role {
  const order: Role[] = ['owner', 'admin', 'maintainer', 'developer', 'reporter', 'guest', 'nonMember', 'anonymous'];
  return order.find((r) => row.rule[r] === 'ok') ?? 'owner';
}
it('logs', async () => {
  for (const key of KEYS) {
    const row = EXPECTATIONS[key];
    const [method, path] = key.split(' ');
    const fresh = await freshParams(row);
    const url = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(String(fresh[name] ?? param(path, method, name, row))));
    const token = await callerToken(callerOf(row), path);
    const body = method === 'GET' ? undefined : typeof row.body === 'function' ? row.body() : (row.body ?? {});
    if (token) await api('/user', { token });
    if (method === 'GET') await api(row.query ? `${url}?${row.query}` : url, { method, token, body });
    const out: string[] = [];
    setStatementLog((s) => out.push((Array.isArray(s) ? s : [s]).map((x: any) => `args=${(x.args ?? []).length} len=${String(x.sql ?? x).length}`).join(" | ")));
    const res = await api(row.query ? `${url}?${row.query}` : url, { method, token, body });
    setStatementLog(null);
    console.log(`\n=== ${key} ${res.status} rt=${res.headers.get('x-storage-round-trips')}\n` + out.map((s, i) => `${i + 1}. ${s}`).join('\n'));
  }
}, 120_000);
