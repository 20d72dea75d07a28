/** Wire formats for time, in one place. Storage keeps epoch milliseconds (integers sort and compare cheaply). */

/** ISO 8601 with milliseconds and `Z`, as GitLab's entities render timestamps. */
export const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString());

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
