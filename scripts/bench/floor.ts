/**
 * The bare route measured in the same run as every scenario: a one-route Hono app answering
 * `GET /__bench/hello` with `{"hello":"world"}` (performance.md 4.1), served by the same process,
 * HTTP server and runtime as the product. It lives only in the benchmark entry points, never in the product.
 */
import { Hono } from 'hono';

export const FLOOR_PATH = '/__bench/hello';

const floor = new Hono();
floor.get(FLOOR_PATH, (c) => c.json({ hello: 'world' }));

/** Sends the floor path to the one-route app and everything else to the product's fetch. */
export function withFloor<A extends unknown[]>(fetch: (req: Request, ...rest: A) => Response | Promise<Response>) {
  return (req: Request, ...rest: A): Response | Promise<Response> => (req.url.endsWith(FLOOR_PATH) ? floor.fetch(req) : fetch(req, ...rest));
}
