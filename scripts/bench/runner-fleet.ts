/**
 * The runner scenario's fleet between runs (kept out of seed.ts so the seeded dataset, cached by the
 * hash of seed.ts, is not rebuilt for it).
 */
import Database from 'libsql';

/** What a runner reports about itself (`info`), as the runner scenario sends it. */
export interface ReportedInfo {
  name: string;
  version: string;
  revision: string;
  platform: string;
  architecture: string;
  executor: string;
}

/**
 * Before each run: the seeded runners last contacted the server a minute ago, from this machine,
 * reporting what the runner scenario reports, as a fleet that was polling until the server (or a
 * new isolate) started. Their first polls then read the runner and write nothing (a contact is
 * persisted every 40-55 minutes, reported info when it changes), which is the steady state the
 * runner scenario measures; the seed itself stays deterministic (its clock is fixed in the past).
 */
export function freshenRunnerContacts(file: string, info: ReportedInfo, now = Date.now()): number {
  const sq = new Database(file);
  try {
    return sq
      .prepare('UPDATE ci_runners SET contacted_at = ?, name = ?, version = ?, revision = ?, platform = ?, architecture = ?, executor_type = ?, ip_address = ?')
      .run(now - 60_000, info.name, info.version, info.revision, info.platform, info.architecture, info.executor, '127.0.0.1').changes;
  } finally {
    sq.close();
  }
}
