import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll } from 'vitest';
import { checkSweep, sweepStorage } from './secret-sweep';

const e = env as unknown as { DB: D1Database; TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] };
await applyD1Migrations(e.DB, e.TEST_MIGRATIONS);

// After every file, no response may have leaked a secret (secret-sweep.ts); storage is the Worker's D1.
sweepStorage(async (q) => (await e.DB.prepare(q).all<Record<string, unknown>>()).results);
afterAll(checkSweep);
