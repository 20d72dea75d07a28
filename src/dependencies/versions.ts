/**
 * Version order and OSV affected ranges (https://ossf.github.io/osv-schema/#affectedranges-field).
 * npm versions order as SemVer 2.0 (prereleases before their release, build metadata ignored);
 * other ecosystems by a dotted comparison in the manner of RubyGems' Gem::Version: numeric parts
 * numerically, a letter part (`rc1`, `beta`) marks a prerelease, so `1.0.rc1` < `1.0` < `1.0.1`.
 */

type Semver = { core: number[]; pre: string[] };

function semverOf(v: string): Semver | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v.trim());
  return m ? { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] } : null;
}

const numeric = (s: string) => /^\d+$/.test(s);

/** SemVer 2.0 precedence (section 11); null when either is not a SemVer version. */
export function compareSemver(a: string, b: string): number | null {
  const x = semverOf(a);
  const y = semverOf(b);
  if (!x || !y) return null;
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i] < y.core[i] ? -1 : 1;
  if (!x.pre.length || !y.pre.length) return x.pre.length === y.pre.length ? 0 : x.pre.length ? -1 : 1;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    if (numeric(p) && numeric(q)) return Number(p) < Number(q) ? -1 : 1;
    if (numeric(p) !== numeric(q)) return numeric(p) ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

/** Gem::Version-like segments: runs of digits and runs of letters (`1.0.0rc1` → 1, 0, 0, rc, 1). */
const segments = (v: string) => (v.trim().replace(/^v(?=\d)/i, '').replace(/\+.*$/, '').toLowerCase().match(/\d+|[a-z]+/g) ?? []);

/** The dotted comparison of the other ecosystems. */
export function compareDotted(a: string, b: string): number {
  const x = segments(a);
  const y = segments(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === q) continue;
    // A missing part is 0 against a number, and above a letter part (a prerelease of what is missing).
    if (p === undefined) return numeric(q!) ? (Number(q) === 0 ? 0 : -1) : 1;
    if (q === undefined) return numeric(p) ? (Number(p) === 0 ? 0 : 1) : -1;
    if (numeric(p) && numeric(q)) {
      if (Number(p) !== Number(q)) return Number(p) < Number(q) ? -1 : 1;
      continue;
    }
    if (numeric(p) !== numeric(q)) return numeric(p) ? 1 : -1;
    return p < q ? -1 : 1;
  }
  return 0;
}

export function compareVersions(ecosystem: string, a: string, b: string): number {
  return (ecosystem === 'npm' || ecosystem === 'Go' ? compareSemver(a, b) : null) ?? compareDotted(a, b);
}

interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}
export interface OsvAffected {
  package?: { ecosystem?: string; name?: string };
  ranges?: { type?: string; events?: OsvEvent[] }[];
  versions?: string[];
  ecosystem_specific?: Record<string, unknown>;
  database_specific?: Record<string, unknown>;
}

/**
 * Whether `version` falls in one OSV `affected` entry: listed in `versions`, or inside a SEMVER or
 * ECOSYSTEM range (GIT ranges name commits, not versions). The schema's evaluation: events in
 * version order, `introduced` opens the range, `fixed` closes it at that version, `last_affected`
 * closes it after that version, `limit` bounds it.
 */
export function isAffected(ecosystem: string, affected: OsvAffected, version: string): boolean {
  if (affected.versions?.includes(version)) return true;
  const cmp = (a: string, b: string) => (a === '0' ? (b === '0' ? 0 : -1) : b === '0' ? 1 : compareVersions(ecosystem, a, b));
  for (const range of affected.ranges ?? []) {
    if (range.type !== 'SEMVER' && range.type !== 'ECOSYSTEM') continue;
    const events = (range.events ?? []).map((e) => {
      const [kind, at] = Object.entries(e).find(([, v]) => typeof v === 'string') ?? ['', ''];
      return { kind, at: String(at) };
    });
    const limits = events.filter((e) => e.kind === 'limit');
    if (limits.length && !limits.some((l) => l.at === '*' || cmp(version, l.at) < 0)) continue;
    let inside = false;
    for (const e of events.filter((x) => x.kind !== 'limit').sort((p, q) => cmp(p.at, q.at))) {
      const c = cmp(version, e.at);
      if (e.kind === 'introduced' && (e.at === '0' || c >= 0)) inside = true;
      else if (e.kind === 'fixed' && c >= 0) inside = false;
      else if (e.kind === 'last_affected' && c > 0) inside = false;
    }
    if (inside) return true;
  }
  return false;
}
