/** Wire formats for time, in one place. Storage keeps epoch milliseconds (integers sort and compare cheaply). */

/** ISO 8601 with milliseconds and `Z`, as GitLab's entities render timestamps. */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}

/** `YYYY-MM-DD` in UTC. */
export const isoDate = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString().slice(0, 10));

export const now = () => Date.now();

/** Today as `YYYY-MM-DD` (UTC); dates such as token `expires_at` compare as strings. */
export const today = () => new Date().toISOString().slice(0, 10);

export const addDays = (date: string, days: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

/** A `due_date` string as the date column casts it: `YYYY-MM-DD`, anything else null. */
export function dueDate(v: string | undefined | null): string | null {
  if (!v) return null;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(v.trim());
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (d.getUTCMonth() !== +m[2] - 1) return null;
  return d.toISOString().slice(0, 10);
}
