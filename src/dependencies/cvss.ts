/**
 * The CVSS v3.x base score of a vector (`CVSS:3.1/AV:N/AC:L/...`), by the specification's formulas
 * (https://www.first.org/cvss/v3.1/specification-document, section 7.1), for OSV records that give
 * a vector and no severity name. Null for anything else (CVSS v2 and v4 vectors included).
 */
const W: Record<string, Record<string, number>> = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  C: { H: 0.56, L: 0.22, N: 0 },
  I: { H: 0.56, L: 0.22, N: 0 },
  A: { H: 0.56, L: 0.22, N: 0 },
};
const PR = { U: { N: 0.85, L: 0.62, H: 0.27 }, C: { N: 0.85, L: 0.68, H: 0.5 } } as Record<string, Record<string, number>>;

/** Round up to one decimal, as the specification's Roundup (Appendix A) does to avoid float noise. */
function roundUp(x: number): number {
  const i = Math.round(x * 100000);
  return i % 10000 === 0 ? i / 100000 : (Math.floor(i / 10000) + 1) / 10;
}

export function cvss3BaseScore(vector: string): number | null {
  if (!/^CVSS:3\.[01]\//.test(vector)) return null;
  const m = Object.fromEntries(
    vector
      .split('/')
      .slice(1)
      .map((part) => part.split(':') as [string, string]),
  );
  const scope = m.S;
  const nums = [W.AV[m.AV], W.AC[m.AC], PR[scope]?.[m.PR], W.UI[m.UI], W.C[m.C], W.I[m.I], W.A[m.A]];
  if (nums.some((n) => n === undefined)) return null;
  const [av, ac, pr, ui, c, i, a] = nums as number[];
  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = scope === 'U' ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  return scope === 'U' ? roundUp(Math.min(impact + exploitability, 10)) : roundUp(Math.min(1.08 * (impact + exploitability), 10));
}
