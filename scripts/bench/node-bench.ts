/**
 * The Node benchmark entry's fetch (node-server.ts serves it): the product's `createNodeApp`, the
 * floor route, and `GET /__bench/stats` (requests served, the product meter's round trips and
 * statements since start, and this process's CPU; server-stats.ts). The product wraps its libSQL
 * client itself (src/db/round-trips.ts), so the totals are exactly what the app sent.
 */
import { createNodeApp, type NodeAppOptions } from '../../src/node-app';
import { totals } from '../../src/db/round-trips';
import { withFloor } from './floor';
import { statsBody } from './server-stats';

export const STATS_PATH = '/__bench/stats';

export async function benchNodeFetch(opts: NodeAppOptions): Promise<(req: Request) => Response | Promise<Response>> {
  const { app } = await createNodeApp(opts);
  const product = withFloor(app.fetch);
  let requests = 0;
  return (req: Request) => {
    if (req.url.endsWith(STATS_PATH)) {
      const cpu = process.cpuUsage();
      return Response.json(statsBody(requests, totals, cpu.user + cpu.system));
    }
    requests++;
    return product(req);
  };
}
