/**
 * The Node benchmark entry's fetch (node-server.ts serves it): the product's `createNodeApp`, the
 * floor route, and `GET /__bench/stats` (requests served, the product meter's round trips and
 * statements since start, and this process's CPU; server-stats.ts). The product wraps its libSQL
 * client itself (src/db/round-trips.ts), so the totals are exactly what the app sent.
 */
import { createNodeApp, type NodeAppOptions } from '../../src/node-app';
import { totals } from '../../src/db/round-trips';
import type { EarlyAnswers } from '../../src/platform/early-answers';
import { withFloor } from './floor';
import { statsBody } from './server-stats';

export const STATS_PATH = '/__bench/stats';

export async function benchNodeFetch(opts: NodeAppOptions): Promise<(req: Request) => Response | Promise<Response>> {
  return (await benchNode(opts)).fetch;
}

/**
 * The fetch and the app's early answers (src/node-server.ts asks them before building the web
 * Request, as src/node.ts serves the product): a request answered early is counted there.
 */
export async function benchNode(opts: NodeAppOptions): Promise<{ fetch: (req: Request) => Response | Promise<Response>; early: EarlyAnswers }> {
  const { app, early } = await createNodeApp(opts);
  const product = withFloor(app.fetch);
  let requests = 0;
  const fetch = (req: Request) => {
    if (req.url.endsWith(STATS_PATH)) {
      const cpu = process.cpuUsage();
      // maxRSS (KB): the process's peak resident memory since it started; rssBytes: now (the
      // import/export scenario samples it while its jobs run, for its memory target).
      return Response.json({ ...statsBody(requests, totals, cpu.user + cpu.system), maxRssBytes: process.resourceUsage().maxRSS * 1024, rssBytes: process.memoryUsage.rss() });
    }
    requests++;
    return product(req);
  };
  const counted: EarlyAnswers = {
    wants: early.wants,
    answer: (...args) => {
      const a = early.answer(...args);
      if (a) requests++;
      return a;
    },
  };
  return { fetch, early: counted };
}
