/** D1 binds at most 100 parameters per statement: id lists go in slices of 90 (leaving room for the others). */
export const chunks = <T>(xs: T[], n = 90): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
};

/** `run` over the distinct ids, a chunk at a time, results concatenated. */
export async function inChunks<T>(ids: number[], run: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (const part of chunks([...new Set(ids)])) out.push(...(await run(part)));
  return out;
}
