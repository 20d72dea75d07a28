/** Node entry point: `npm run start:node`. Reads PORT, DATABASE_URL, BLOB_ROOT from the environment. */
import { serve } from '@hono/node-server';
import { createNodeApp } from './node-app';

const port = Number(process.env.PORT ?? 8787);
const { app, config } = await createNodeApp({
  databaseUrl: process.env.DATABASE_URL ?? 'file:.data/workflow-api.db',
  blobRoot: process.env.BLOB_ROOT ?? '.data/blobs',
  migrationsFolder: process.env.MIGRATIONS_FOLDER ?? 'drizzle',
});
serve({ fetch: app.fetch, port, hostname: process.env.HOST ?? '127.0.0.1' }, (info) => {
  console.log(`workflow-api (node) listening on http://${info.address}:${info.port}`);
  if (!process.env.ROOT_TOKEN) console.log(`root token (local default): ${config.rootToken}`);
});
