import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The HTTP suite inside workerd: real D1, R2, Queue and Durable Object bindings from wrangler.toml.
export default defineConfig(async () => {
  // wrangler's [build] step, which the plugin does not run: the [assets] directory must be filled.
  execFileSync(process.execPath, [fileURLToPath(new URL('./scripts/api-docs-assets.mjs', import.meta.url))], { stdio: 'inherit' });
  const migrations = await readD1Migrations(fileURLToPath(new URL('./drizzle', import.meta.url)));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          // VALIDATE_RESPONSES: every response is checked against its route's declared schemas (platform/response-check.ts).
          bindings: { TEST_MIGRATIONS: migrations, PASSWORD_HASH_ITERATIONS: '1000', TEST_RUNTIME: 'workers', VALIDATE_RESPONSES: 'true', REPORT_ROUND_TRIPS: 'true', REPORT_REPEATED_READS: 'true' },
        },
      }),
    ],
    resolve: { alias: { '#harness': fileURLToPath(new URL('./test/harness/workers.ts', import.meta.url)) } },
    test: {
      name: 'workers',
      // HTTP tests (`*.test.ts`) and workerd-only ones (`*.workers.test.ts`); `*.node.test.ts` are Node-only.
      include: ['test/**/*.test.ts'],
      exclude: ['test/**/*.node.test.ts'],
      setupFiles: ['./test/harness/workers-setup.ts'],
      testTimeout: 30_000,
    },
  };
});
