import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The same HTTP suite on Node against libSQL (a fresh database file per test file).
export default defineConfig({
  resolve: { alias: { '#harness': fileURLToPath(new URL('./test/harness/node.ts', import.meta.url)) } },
  test: {
    name: 'node',
    environment: 'node',
    include: ['test/api/**/*.test.ts', 'test/unit/**/*.test.ts', 'test/node/**/*.test.ts', 'test/**/*.node.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
