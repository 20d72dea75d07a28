/**
 * Middleware: opens the request's round-trip tally (db/round-trips.ts) around everything after it,
 * and, when the config asks (`REPORT_ROUND_TRIPS=true`: the test suites and the benchmark), answers
 * the count in `X-Storage-Round-Trips` so a test can hold a route to its budget; with
 * `REPORT_REPEATED_READS=true` (the test suites) also the reads it sent twice with no write between,
 * in `X-Storage-Repeated-Reads`.
 *
 * @example app.use('*', roundTripMeter({ report: config.reportRoundTrips }))
 */
import type { MiddlewareHandler } from 'hono';
import { meterRequest, REPEATED_READS_HEADER, ROUND_TRIPS_HEADER, type Tally } from '../db/round-trips';

export function roundTripMeter(opts: { report: boolean; repeats?: boolean }): MiddlewareHandler {
  return async function meterRoundTrips(c, next) {
    // Repeated reads are only looked for when asked (the test suites): the bookkeeping is a key per statement.
    const tally: Tally = { roundTrips: 0, statements: 0, ...(opts.repeats ? { seen: new Set<string>(), repeatedReads: 0 } : {}) };
    await meterRequest(tally, next);
    if (!opts.report) return;
    try {
      c.res.headers.set(ROUND_TRIPS_HEADER, String(tally.roundTrips));
    } catch {
      // Responses passed through from a binding (static assets) have immutable headers.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(ROUND_TRIPS_HEADER, String(tally.roundTrips));
    }
    if (opts.repeats) c.res.headers.set(REPEATED_READS_HEADER, String(tally.repeatedReads ?? 0));
  };
}
