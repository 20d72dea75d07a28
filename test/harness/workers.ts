/** Harness for workerd: requests go to the Worker's own fetch handler with real bindings. */
import { env, exports } from 'cloudflare:workers';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { failOnSchemaViolation } from './schema-violation';
import { sweep } from './secret-sweep';

export const runtime = 'workers' as const;
export const rootToken = DEV_ROOT_TOKEN;

export async function fetchApi(path: string, init?: RequestInit): Promise<Response> {
  const url = path.startsWith('http') ? path : `http://localhost${path}`;
  sweep.recordRequest(init);
  const res = failOnSchemaViolation(await (exports as unknown as { default: Fetcher }).default.fetch(new Request(url, init)));
  await sweep.recordResponse(init?.method ?? 'GET', url, res, init);
  return res;
}

/** Runs SQL on the D1 binding directly: a write made by "another isolate", bypassing this app's caches. */
export async function storageSql(query: string): Promise<unknown[]> {
  return (await (env as unknown as { DB: D1Database }).DB.prepare(query).all()).results;
}

/** Delivers a job message through the Queue binding (again): for tests of at-least-once delivery. */
export async function sendJob(message: { type: string; id: string; [k: string]: unknown }): Promise<void> {
  await (env as unknown as { JOBS: Queue }).JOBS.send(message);
}
