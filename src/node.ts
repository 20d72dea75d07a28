/**
 * Node entry point: `npm run start:node`. Reads PORT, DATABASE_URL, BLOB_ROOT from the environment,
 * and the server timeouts HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS (src/node-server.ts).
 */
import { createNodeApp } from './node-app';
import { serveNode } from './node-server';

const port = Number(process.env.PORT ?? 8787);
const { app, config, early } = await createNodeApp({
  databaseUrl: process.env.DATABASE_URL ?? 'file:.data/workflow-api.db',
  blobRoot: process.env.BLOB_ROOT ?? '.data/blobs',
  migrationsFolder: process.env.MIGRATIONS_FOLDER ?? 'drizzle',
});
serveNode(app.fetch, { port, hostname: process.env.HOST ?? '127.0.0.1', early }, (info) => {
  console.log(`workflow-api (node) listening on http://${info.address}:${info.port}`);
  if (!process.env.ROOT_TOKEN) console.log(`root token (local default): ${config.rootToken}`);
});
