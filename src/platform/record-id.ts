/**
 * A decimal id in a path or a parameter (`find_project(id)`, `find_group`, `find_user`, `find_label`):
 * its number, or undefined when the text is not all digits. Digits beyond JS's safe integers name no
 * record (Rails finds nothing for an id out of its column's range) and become 0, which no row has;
 * handing `Number('1'.repeat(400))` (Infinity) to the database fails the query instead.
 */
export function decimalId(s: string): number | undefined {
  if (!/^\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : 0;
}
