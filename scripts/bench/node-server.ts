/**
 * Node runtime for the benchmark: the product's `createNodeApp` (libSQL file, as src/node.ts) on
 * @hono/node-server, plus the floor route and `GET /__bench/stats` (node-bench.ts). Prints
 * `READY <port>` once listening.
 * `DATABASE_URL=file:… PORT=0 tsx scripts/bench/node-server.ts`
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { benchNodeFetch } from './node-bench';

const fetch = await benchNodeFetch({
  databaseUrl: process.env.DATABASE_URL!,
  blobRoot: process.env.BLOB_ROOT ?? '/tmp/workflow-api-bench/blobs',
  migrationsFolder: 'drizzle',
});
const server = serve({ fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info: AddressInfo) => {
  console.log(`READY ${info.port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
