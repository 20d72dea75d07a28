/**
 * Node runtime for the benchmark: the product's `createNodeApp` (libSQL file) on the product's
 * server (src/node-server.ts `serveNode` with the app's early answers, as src/node.ts), plus the
 * floor route and `GET /__bench/stats` (node-bench.ts). Prints `READY <port>` once listening.
 * `DATABASE_URL=file:… PORT=0 tsx scripts/bench/node-server.ts`
 */
import type { AddressInfo } from 'node:net';
import { serveNode } from '../../src/node-server';
import { benchNode } from './node-bench';

const { fetch, early } = await benchNode({
  databaseUrl: process.env.DATABASE_URL!,
  blobRoot: process.env.BLOB_ROOT ?? '/tmp/workflow-api-bench/blobs',
  migrationsFolder: 'drizzle',
});
const server = serveNode(fetch, { port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1', early }, (info: AddressInfo) => {
  console.log(`READY ${info.port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
