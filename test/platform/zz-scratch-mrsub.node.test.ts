import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support';
import { EXPECTATIONS } from './authorization-matrix';
import { buildWorld, callerToken, freshParams, param } from './route-world';
import { setStatementLog } from '../../src/db/round-trips';

beforeAll(buildWorld, 60_000);
const KEYS = (process.env.KEYS ?? 'changes,diffs,raw_diffs,commits,versions,versions/:version_id,participants,reviewers,related_issues,closes_issues').split(',');
const keys = Object.keys(EXPECTATIONS).filter((k) => k.startsWith('GET ') && (KEYS.some((s) => k.endsWith(`/:merge_request_iid/${s}`)) || k.endsWith('related_merge_requests')));
describe('scratch', () => {
  for (const key of keys) {
    it(key, async () => {
      const row = EXPECTATIONS[key];
      const [method, path] = key.split(' ');
      const fresh = await freshParams(row);
      const url = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(String(fresh[name] ?? param(path, method, name, row))));
      const token = await callerToken('owner', path);
      await api('/user', { token });
      const r1 = await api(url, { token });
      const lines: string[] = [];
      setStatementLog((s) => lines.push(JSON.stringify(s).slice(0, 400)));
      const r2 = await api(url, { token });
      setStatementLog(null);
      const one = await api(url + '?per_page=1', { token });
      const h = await api(url + '?per_page=100', { token });
      console.log(`### ${key} status=${r2.status} first=${r1.headers.get('x-storage-round-trips')} second=${r2.headers.get('x-storage-round-trips')} pp1=${one.headers.get('x-storage-round-trips')} pp100=${h.headers.get('x-storage-round-trips')} len=${Array.isArray(h.body) ? h.body.length : '-'}\n` + lines.join('\n'));
      expect(r2.status).toBeLessThan(500);
    });
  }
});
