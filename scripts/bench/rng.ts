/** Deterministic pseudo-random numbers for the benchmark dataset and request mixes (same seed, same data). */

export interface Rng {
  /** [0, 1) */
  next(): number;
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** `n` distinct items (fewer when the list is shorter). */
  sample<T>(items: readonly T[], n: number): T[];
  chance(p: number): boolean;
}

/** mulberry32: small, fast, good enough for synthetic data. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    sample(items, n) {
      if (n >= items.length) return [...items];
      const chosen = new Set<number>();
      while (chosen.size < n) chosen.add(Math.floor(next() * items.length));
      return [...chosen].map((i) => items[i]);
    },
    chance: (p) => next() < p,
  };
}
