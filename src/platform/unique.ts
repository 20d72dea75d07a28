/** Recognises unique-index violations from D1 and libSQL, so a lost race answers 409, not 500. */
export function isUniqueViolation(err: unknown, indexOrColumn?: string): boolean {
  const text = collectMessages(err);
  if (!/UNIQUE constraint failed|SQLITE_CONSTRAINT_UNIQUE|SQLITE_CONSTRAINT_PRIMARYKEY/i.test(text)) return false;
  return indexOrColumn ? text.includes(indexOrColumn) : true;
}

function collectMessages(err: unknown, depth = 0): string {
  if (!err || depth > 5) return '';
  const e = err as { message?: string; cause?: unknown };
  return `${e.message ?? String(err)} ${collectMessages(e.cause, depth + 1)}`;
}
