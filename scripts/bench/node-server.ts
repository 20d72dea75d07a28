/**
 * Node runtime for the benchmark: the product's `createNodeApp` (libSQL file, as src/node.ts) on
 * @hono/node-server, plus the floor route. Prints `READY <port>` once listening.
 * `GET /__bench/stats` answers how many requests and SQL statements the process has served, so the
 * harness can report statements per request (a batch counts each of its statements).
 * `DATABASE_URL=file:… PORT=0 tsx scripts/bench/node-server.ts`
 */
import { serve } from '@hono/node-server';
import type { Client } from '@libsql/client';
import type { AddressInfo } from 'node:net';
import { createNodeApp } from '../../src/node-app';
import { withFloor } from './floor';

const { app, db } = await createNodeApp({
  databaseUrl: process.env.DATABASE_URL!,
  blobRoot: process.env.BLOB_ROOT ?? '/tmp/workflow-api-bench/blobs',
  migrationsFolder: 'drizzle',
});

const stats = { requests: 0, statements: 0 };
const client = (db as unknown as { session: { client: Client } }).session.client;
const execute = client.execute.bind(client);
const batch = client.batch.bind(client);
client.execute = ((...args: Parameters<Client['execute']>) => (stats.statements++, execute(...args))) as Client['execute'];
client.batch = ((stmts: Parameters<Client['batch']>[0], mode?: Parameters<Client['batch']>[1]) => ((stats.statements += stmts.length), batch(stmts, mode))) as Client['batch'];

const product = withFloor(app.fetch);
const fetch = (req: Request) => {
  if (req.url.endsWith('/__bench/stats')) return Response.json(stats);
  stats.requests++;
  return product(req);
};
const server = serve({ fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info: AddressInfo) => {
  console.log(`READY ${info.port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
