import { defineConfig } from 'drizzle-kit';

// Migrations are generated here and applied by `wrangler d1 migrations apply` (dev), the test
// setup (workerd and Node), and the Node server at start.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/index.ts',
  out: './drizzle',
});
