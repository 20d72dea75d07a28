import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

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
          bindings: { TEST_MIGRATIONS: migrations, PASSWORD_HASH_ITERATIONS: '1000', TEST_RUNTIME: 'workers' },
        },
      }),
    ],
    resolve: { alias: { '#harness': fileURLToPath(new URL('./test/harness/workers.ts', import.meta.url)) } },
    test: {
      name: 'workers',
      include: ['test/api/**/*.test.ts', 'test/workers/**/*.test.ts'],
      // *.node.test.ts files need Node itself (a browser, a listening server): vitest.node.config.ts runs them.
      exclude: [...configDefaults.exclude, '**/*.node.test.ts'],
      setupFiles: ['./test/harness/workers-setup.ts'],
      testTimeout: 30_000,
    },
  };
});
