/**
 * GitLab's human time-tracking durations (lib/gitlab/time_tracking_formatter.rb over the
 * ChronicDuration gem, reference 1 §5.3): a working day of 8 hours, a month of 20 days, a week of
 * a quarter month (5 days); the default unit is hours; a leading `-` negates.
 *
 * Parsing is ChronicDuration's word walk with one difference, taken from the newer formatter's
 * complete matcher: a word that is neither a number, a unit nor a joining word rejects the whole
 * value (`3 gobblygoos` is invalid here, where the lenient gem would read 3 hours).
 */
import { z } from 'zod';
import { int, obj } from './response-schemas';

const MINUTE = 60;
const HOUR = 3600;
const HOURS_PER_DAY = 8;
const DAYS_PER_MONTH = 20;
const FULL_WEEKS_PER_MONTH = 4;
const DAYS_PER_WEEK = DAYS_PER_MONTH / FULL_WEEKS_PER_MONTH;
const DAY = HOURS_PER_DAY * HOUR;
const WEEK = DAYS_PER_WEEK * DAY;
const MONTH = DAYS_PER_MONTH * DAY;
/** ChronicDuration::SECONDS_PER_YEAR (365.25 days of 24 hours, not working days). */
const YEAR = 31_557_600;

type Unit = 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks' | 'months' | 'years';
/** Smallest first: a bare number after an explicit unit takes the next smaller one (`1h 30` = 1h 30m). */
const UNITS: Unit[] = ['seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years'];
const MULTIPLIER: Record<Unit, number> = { seconds: 1, minutes: MINUTE, hours: HOUR, days: DAY, weeks: WEEK, months: MONTH, years: YEAR };

const MAPPINGS: Record<string, Unit> = {
  seconds: 'seconds', second: 'seconds', secs: 'seconds', sec: 'seconds', s: 'seconds',
  minutes: 'minutes', minute: 'minutes', mins: 'minutes', min: 'minutes', m: 'minutes',
  hours: 'hours', hour: 'hours', hrs: 'hours', hr: 'hours', h: 'hours',
  days: 'days', day: 'days', dy: 'days', d: 'days',
  weeks: 'weeks', week: 'weeks', wks: 'weeks', wk: 'weeks', w: 'weeks',
  months: 'months', mo: 'months', mos: 'months', month: 'months',
  years: 'years', year: 'years', yrs: 'years', yr: 'years', y: 'years',
};
const JOIN_WORDS = new Set(['and', 'with', 'plus']);

const NUMBER = /[0-9]*\.?[0-9]+/g;
const IS_NUMBER = /^[0-9]*\.?[0-9]+$/;
const CHRONO = /^[0-9]+:[0-9]+(:[0-9]+){0,4}(\.[0-9]*)?$/;
/** `3:41:59` counts seconds, minutes, hours, days, months, years from the right (no weeks). */
const CHRONO_UNITS: Unit[] = ['seconds', 'minutes', 'hours', 'days', 'months', 'years'];

/** Ruby's `to_f % 1 > 0 ? to_f : to_i`, as a JS number either way. */
const toNumber = (word: string) => Number.parseFloat(word.startsWith('.') ? `0${word}` : word);

/**
 * Seconds for a human duration, or null when it cannot be read (GitLab then fails validation).
 * Zero is unreadable too (ChronicDuration.parse returns nil for 0). Fractions of a second are
 * truncated, as the integer columns that store the value do.
 */
export function parseDuration(input: string): number | null {
  if (typeof input !== 'string') return null;
  const negative = input.startsWith('-');
  let s = (negative ? input.slice(1) : input).toLowerCase();

  const compact = s.replace(/ /g, '');
  if (CHRONO.test(compact)) {
    const parts = compact.split(':').reverse();
    if (parts.length > CHRONO_UNITS.length) return null;
    s = parts.map((v, k) => `${v} ${CHRONO_UNITS[k]}`).reverse().join(' ');
  }

  s = s.replace(NUMBER, (n) => ` ${n} `).replace(/\s+/g, ' ').trim();
  const words: string[] = [];
  for (const word of s.split(' ')) {
    if (!word) continue;
    if (IS_NUMBER.test(word)) {
      words.push(word);
      continue;
    }
    const stripped = word.replace(/^,/, '').replace(/,$/, '');
    if (stripped === '' || JOIN_WORDS.has(stripped)) continue;
    const unit = MAPPINGS[stripped];
    if (!unit) return null;
    words.push(unit);
  }
  // `day`, `minute 30s`: a leading unit means one of it.
  if (words.length && (UNITS as string[]).includes(words[0])) words.unshift('1');

  let total = 0;
  let lastExplicit: Unit | null = null;
  for (let k = 0; k < words.length; k++) {
    const word = words[k];
    if (!IS_NUMBER.test(word)) continue;
    const next = words[k + 1];
    let unit: Unit;
    if (next && (UNITS as string[]).includes(next)) {
      unit = next as Unit;
      lastExplicit = unit;
    } else if (lastExplicit) {
      const i = UNITS.indexOf(lastExplicit);
      unit = i > 0 ? UNITS[i - 1] : lastExplicit;
      lastExplicit = unit;
    } else {
      unit = 'hours';
    }
    total += toNumber(word) * MULTIPLIER[unit];
  }
  if (!Number.isFinite(total) || total === 0) return null;
  const seconds = Math.trunc(total);
  return negative ? -seconds : seconds;
}

/**
 * ChronicDuration.output(seconds, format: :short, weeks: true, limit_to_hours:) with GitLab's
 * day and month lengths: `3h 30m`, `1w 2d`, `1mo 2w`; zero is null; negatives get a `-` prefix
 * (TimeTrackingFormatter#negative_output). `limitToHours` is the `time_tracking_limit_to_hours`
 * application setting (`75h` rather than `1w 4d 3h`).
 */
export function formatDuration(value: number, limitToHours = false): string | null {
  if (!Number.isFinite(value)) return null;
  const whole = Math.trunc(value);
  if (whole < 0) {
    const positive = formatDuration(-whole, limitToHours);
    return positive == null ? null : `-${positive}`;
  }
  let seconds = whole;
  let years = 0;
  let months = 0;
  let weeks = 0;
  let days = 0;
  let hours = 0;
  let minutes = 0;
  // The gem's year branch comes first and ignores weeks and limit_to_hours alike.
  if (seconds >= YEAR && seconds % YEAR < seconds % MONTH) {
    years = Math.floor(seconds / YEAR);
    const rest = seconds % YEAR;
    months = Math.floor(rest / MONTH);
    days = Math.floor((rest % MONTH) / DAY);
    hours = Math.floor((rest % MONTH % DAY) / HOUR);
    minutes = Math.floor((rest % MONTH % DAY % HOUR) / MINUTE);
    seconds = rest % MONTH % DAY % HOUR % MINUTE;
  } else if (seconds >= 60) {
    minutes = Math.floor(seconds / 60);
    seconds %= 60;
    if (minutes >= 60) {
      hours = Math.floor(minutes / 60);
      minutes %= 60;
      if (!limitToHours && hours >= HOURS_PER_DAY) {
        days = Math.floor(hours / HOURS_PER_DAY);
        hours %= HOURS_PER_DAY;
        if (days >= DAYS_PER_WEEK) {
          weeks = Math.floor(days / DAYS_PER_WEEK);
          days %= DAYS_PER_WEEK;
          if (weeks >= FULL_WEEKS_PER_MONTH) {
            months = Math.floor(weeks / FULL_WEEKS_PER_MONTH);
            weeks %= FULL_WEEKS_PER_MONTH;
          }
        }
      }
    }
  }
  const parts: [number, string][] = [
    [years, 'y'], [months, 'mo'], [weeks, 'w'], [days, 'd'], [hours, 'h'], [minutes, 'm'], [seconds, 's'],
  ];
  const out = parts.filter(([n]) => n !== 0).map(([n, u]) => `${n}${u}`).join(' ');
  return out === '' ? null : out;
}

export const TimeStatsSchema = obj({
  time_estimate: int,
  total_time_spent: int,
  human_time_estimate: z.string().nullable(),
  human_total_time_spent: z.string().nullable(),
}).meta({ id: 'TimeStats' });
export type TimeStats = z.infer<typeof TimeStatsSchema>;

/** GitLab's TimeStats entity (lib/api/entities/issuable_time_stats.rb), in its field order. */
export function timeStats(issue: { timeEstimate: number; totalTimeSpent: number }, limitToHours = false): TimeStats {
  return {
    time_estimate: issue.timeEstimate,
    total_time_spent: issue.totalTimeSpent,
    human_time_estimate: formatDuration(issue.timeEstimate, limitToHours),
    human_total_time_spent: formatDuration(issue.totalTimeSpent, limitToHours),
  };
}
