import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The same HTTP suite on Node against libSQL (a fresh database file per test file).
export default defineConfig({
  resolve: { alias: { '#harness': fileURLToPath(new URL('./test/harness/node.ts', import.meta.url)) } },
  test: {
    name: 'node',
    environment: 'node',
    // HTTP tests (`*.test.ts`) and Node-only ones (`*.node.test.ts`: units, query plans, libSQL); not `*.workers.test.ts`.
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.workers.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
    // Every response of every test is checked against its route's declared schemas (platform/response-check.ts).
    env: { VALIDATE_RESPONSES: 'true', REPORT_ROUND_TRIPS: 'true', REPORT_REPEATED_READS: 'true' },
    setupFiles: ['./test/harness/node-setup.ts'],
  },
});
