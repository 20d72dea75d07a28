/**
 * The advisory store: OSV records (https://ossf.github.io/osv-schema/) an administrator loads
 * (scripts/advisories-load.ts runs `advisoryStatements` on a libSQL database or writes them as a SQL
 * file for `wrangler d1 execute`), and the vulnerabilities they give a dependency of the list.
 */
import { cvss3BaseScore } from './cvss';
import { baseEcosystem, packageKey } from './ecosystems';
import { isAffected, type OsvAffected } from './versions';

export interface OsvRecord {
  id: string;
  summary?: string;
  details?: string;
  aliases?: string[];
  withdrawn?: string;
  affected?: OsvAffected[];
  severity?: { type?: string; score?: string }[];
  references?: { type?: string; url?: string }[];
  database_specific?: Record<string, unknown>;
}

/** D1 refuses a statement over 100 KB; a record above this keeps what matching and the entity need. */
const MAX_RECORD_CHARS = 90_000;

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

function stored(r: OsvRecord): string {
  const full = JSON.stringify(r);
  if (full.length <= MAX_RECORD_CHARS) return full;
  const { id, summary, aliases, affected, severity, database_specific } = r;
  const advisory = r.references?.find((x) => x.type === 'ADVISORY');
  return JSON.stringify({ id, summary, aliases, affected, severity, database_specific, references: advisory ? [advisory] : [] });
}

/**
 * SQL statements that load (or replace) OSV records, one statement per string: the record, then the
 * packages it affects. A withdrawn record is removed. Throws on a record without an `id`.
 */
export function advisoryStatements(records: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const raw of records) {
    const r = raw as OsvRecord;
    if (!r || typeof r !== 'object' || typeof r.id !== 'string' || !r.id) throw new Error('an OSV record needs an "id"');
    const self = `(SELECT id FROM advisories WHERE osv_id = ${quote(r.id)})`;
    out.push(`DELETE FROM advisory_packages WHERE advisory_id = ${self}`);
    if (r.withdrawn) {
      out.push(`DELETE FROM advisories WHERE osv_id = ${quote(r.id)}`);
      continue;
    }
    out.push(`INSERT INTO advisories (osv_id, record) VALUES (${quote(r.id)}, ${quote(stored(r))}) ON CONFLICT (osv_id) DO UPDATE SET record = excluded.record`);
    const packages = new Set<string>();
    for (const a of r.affected ?? []) {
      const ecosystem = a.package?.ecosystem ? baseEcosystem(a.package.ecosystem) : '';
      if (ecosystem && a.package?.name) packages.add(JSON.stringify([ecosystem, packageKey(ecosystem, a.package.name)]));
    }
    for (const p of packages) {
      const [ecosystem, name] = JSON.parse(p) as [string, string];
      out.push(`INSERT OR IGNORE INTO advisory_packages (advisory_id, ecosystem, name) SELECT id, ${quote(ecosystem)}, ${quote(name)} FROM advisories WHERE osv_id = ${quote(r.id)}`);
    }
  }
  return out;
}

/** GitLab's severity levels (Enums::Vulnerability), worst first. */
const LEVELS = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;

/**
 * An advisory's severity: the GitHub/OSV database's own level (`MODERATE` is GitLab's `medium`),
 * else the band of the record's CVSS v3 base score (cvss.ts), else `unknown`.
 */
export function severityOf(r: OsvRecord, affected: OsvAffected[]): string {
  const named = [r.database_specific?.severity, ...affected.flatMap((a) => [a.ecosystem_specific?.severity, a.database_specific?.severity])].find((s) => typeof s === 'string') as string | undefined;
  if (named) {
    const s = named.toLowerCase() === 'moderate' ? 'medium' : named.toLowerCase();
    if ((LEVELS as readonly string[]).includes(s)) return s;
  }
  const score = r.severity?.map((s) => (s.score && /^CVSS:3/.test(s.score) ? cvss3BaseScore(s.score) : Number(s.score))).find((n): n is number => n !== null && Number.isFinite(n));
  if (score === undefined) return 'unknown';
  return score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : score > 0 ? 'low' : 'info';
}

export interface Vulnerability {
  name: string;
  severity: string;
  id: number;
  url: string;
}

export interface AdvisoryRow {
  id: number;
  osvId: string;
  record: string;
}

/** The vulnerabilities the advisories found for a package give one version of it, worst first. */
export function vulnerabilitiesOf(dep: { ecosystem: string; packageKey: string; version: string }, rows: readonly AdvisoryRow[]): Vulnerability[] {
  const out: (Vulnerability & { rank: number })[] = [];
  for (const row of rows) {
    let r: OsvRecord;
    try {
      r = JSON.parse(row.record) as OsvRecord;
    } catch {
      continue;
    }
    const mine = (r.affected ?? []).filter((a) => a.package?.ecosystem && baseEcosystem(a.package.ecosystem) === dep.ecosystem && packageKey(dep.ecosystem, a.package.name ?? '') === dep.packageKey);
    if (!mine.some((a) => isAffected(dep.ecosystem, a, dep.version))) continue;
    const severity = severityOf(r, mine);
    const url = r.references?.find((x) => x.type === 'ADVISORY' && x.url)?.url ?? `https://osv.dev/vulnerability/${encodeURIComponent(row.osvId)}`;
    const name = r.summary?.trim() || r.details?.trim().split('\n')[0] || row.osvId;
    out.push({ name, severity, id: row.id, url, rank: LEVELS.indexOf(severity as (typeof LEVELS)[number]) });
  }
  return out.sort((a, b) => a.rank - b.rank || a.id - b.id).map(({ rank: _, ...v }) => v);
}
