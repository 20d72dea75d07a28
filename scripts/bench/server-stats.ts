/**
 * What a server did during one measured run, from its own counters (issue 13 item 7): requests it
 * served, storage round trips and SQL statements it sent (the product's meter, src/db/round-trips.ts)
 * and the CPU time its process used. CPU time, unlike latency, hardly moves when other work shares
 * the machine, so it is what to compare between runs of a busy 2-core box.
 *
 * - Node: `GET /__bench/stats` answers all four, CPU from `process.cpuUsage()` inside the server.
 * - workerd: the same endpoint answers requests, round trips and statements (the bundle's meter
 *   totals); a Worker cannot read its process's CPU, so the harness reads the workerd process's
 *   utime + stime from /proc/<pid>/stat (proc-cpu.ts). This file stays free of Node modules: the Worker bundle imports it.
 */
import type { Mode, ResultLine } from './report';

export interface ServerStats {
  requests: number;
  roundTrips: number;
  statements: number;
  /** User + system CPU of the server process since it started, µs; null when unknown. */
  cpuMicros: number | null;
}

/** Per-request figures between two readings; nulls when the server served nothing in between. */
export interface PerRequest {
  requests: number;
  roundTrips: number;
  statements: number;
  cpuMs: number | null;
}

export function diffStats(before: ServerStats | null, after: ServerStats | null): PerRequest | null {
  if (!before || !after || after.requests <= before.requests) return null;
  return {
    requests: after.requests - before.requests,
    roundTrips: after.roundTrips - before.roundTrips,
    statements: after.statements - before.statements,
    cpuMs: before.cpuMicros != null && after.cpuMicros != null ? (after.cpuMicros - before.cpuMicros) / 1000 : null,
  };
}

/** The body `GET /__bench/stats` answers: the meter's totals, the requests counted by the entry point, and CPU when the runtime can tell. */
export const statsBody = (requests: number, totals: { roundTrips: number; statements: number }, cpuMicros: number | null): ServerStats => ({
  requests,
  roundTrips: totals.roundTrips,
  statements: totals.statements,
  cpuMicros,
});

/**
 * The line whose server counters stand for a scenario: the capacity run (the most requests, and a
 * closed loop ends only once every request it sent was answered), else the 1-connection run. Not the
 * fixed-rate run: when it overloads the server it stops waiting with requests still in progress,
 * which the server counted on arrival but whose round trips and CPU fall after the reading.
 */
export function serverLine(rows: ResultLine[], id: string): ResultLine | undefined {
  const ok = (mode: Mode) => rows.find((l) => l.scenario === id && l.mode === mode && l.status === 'ok' && l.server);
  return ok('capacity') ?? ok('serial');
}
