import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, timeStats } from '../../src/platform/duration';

const H = 3600;
const D = 8 * H;
const W = 5 * D;
const MO = 4 * W;

describe('parseDuration (Gitlab::TimeTrackingFormatter.parse)', () => {
  it('reads units with the working-time lengths: 1mo = 4w, 1w = 5d, 1d = 8h', () => {
    expect(parseDuration('1mo')).toBe(MO);
    expect(parseDuration('1w')).toBe(W);
    expect(parseDuration('1d')).toBe(D);
    expect(parseDuration('1h')).toBe(H);
    expect(parseDuration('1m')).toBe(60);
    expect(parseDuration('30s')).toBe(30);
    expect(parseDuration('1y')).toBe(31_557_600);
    expect(parseDuration('40h')).toBe(parseDuration('1w'));
  });
  it('accepts compact and spaced forms, long unit names and joining words', () => {
    expect(parseDuration('3h30m')).toBe(3 * H + 30 * 60);
    expect(parseDuration('3h 30m')).toBe(3 * H + 30 * 60);
    expect(parseDuration('1w 2d')).toBe(W + 2 * D);
    expect(parseDuration('2 hours and 15 minutes')).toBe(2 * H + 15 * 60);
    expect(parseDuration('3 Weeks, plus 2 days')).toBe(3 * W + 2 * D);
    expect(parseDuration('1.5h')).toBe(5400);
    expect(parseDuration('.5h')).toBe(1800);
  });
  it('defaults to hours, and a bare number after a unit takes the next smaller unit', () => {
    expect(parseDuration('3')).toBe(3 * H);
    expect(parseDuration('1h 30')).toBe(H + 30 * 60);
    expect(parseDuration('day')).toBe(D);
  });
  it('reads chrono notation from the right (seconds, minutes, hours)', () => {
    expect(parseDuration('1:20')).toBe(80);
    expect(parseDuration('4:01:01')).toBe(4 * H + 61);
  });
  it('negates a leading minus', () => {
    expect(parseDuration('-1h')).toBe(-H);
    expect(parseDuration('-30m')).toBe(-1800);
  });
  it('rejects garbage, zero and empty values', () => {
    for (const bad of ['', 'abc', '3 gobblygoos', '1h foo', 'h-1', '0', '0h', '-0', '1e5', '.', ' - 1h', '1:2:3:4:5:6:7']) {
      expect(parseDuration(bad), bad).toBeNull();
    }
  });
});

describe('formatDuration (ChronicDuration :short with weeks)', () => {
  it('formats like GitLab', () => {
    expect(formatDuration(3 * H + 30 * 60)).toBe('3h 30m');
    expect(formatDuration(W + 2 * D)).toBe('1w 2d');
    expect(formatDuration(MO + 2 * W)).toBe('1mo 2w');
    expect(formatDuration(H)).toBe('1h');
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(61)).toBe('1m 1s');
    expect(formatDuration(9 * H)).toBe('1d 1h');
  });
  it('answers null for zero and prefixes negatives', () => {
    expect(formatDuration(0)).toBeNull();
    expect(formatDuration(-H - 1800)).toBe('-1h 30m');
  });
  it('renders hours only when time_tracking_limit_to_hours is on', () => {
    expect(formatDuration(75 * H, true)).toBe('75h');
    expect(formatDuration(75 * H)).toBe('1w 4d 3h');
    expect(formatDuration(2 * H + 60, true)).toBe('2h 1m');
  });
  it('uses the gem year branch for long durations', () => {
    // 1y + 1 working day: the remainder modulo a year is smaller than modulo a month.
    expect(formatDuration(31_557_600 + D)).toBe('1y 1d');
  });
  it('round-trips what it parses', () => {
    for (const s of ['3h 30m', '1w 2d', '1mo 2w', '2d 4h 5m', '1mo 3w 4d 7h 59m 59s']) {
      expect(formatDuration(parseDuration(s)!)).toBe(s);
    }
  });
  it('builds the TimeStats entity in GitLab order', () => {
    const stats = timeStats({ timeEstimate: H, totalTimeSpent: 0 });
    expect(Object.keys(stats)).toEqual(['time_estimate', 'total_time_spent', 'human_time_estimate', 'human_total_time_spent']);
    expect(stats).toEqual({ time_estimate: 3600, total_time_spent: 0, human_time_estimate: '1h', human_total_time_spent: null });
  });
});
