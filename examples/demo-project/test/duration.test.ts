import { describe, expect, it } from 'vitest';
import { DurationError, formatClock, formatHours, parseDuration, toHours } from '../src/duration.js';

describe('parseDuration', () => {
  const cases: Array<[string, number]> = [
    ['1:30', 90],
    ['0:45', 45],
    ['01:30:00', 90],
    ['00:10:31', 11],
    ['1h30m', 90],
    ['1h 30m', 90],
    ['2h', 120],
    ['45m', 45],
    ['90 min', 90],
    ['1.5h', 90],
    ['1.25', 75],
    ['0.1', 6],
    ['  2H ', 120],
  ];

  it('reads every supported form', () => {
    for (const [text, minutes] of cases) {
      expect(parseDuration(text), text).toBe(minutes);
    }
  });

  it('allows zero', () => {
    expect(parseDuration('0:00')).toBe(0);
  });

  it('rejects empty and negative durations', () => {
    expect(() => parseDuration('')).toThrow(DurationError);
    expect(() => parseDuration('-1:00')).toThrow(/negative|expected/);
  });

  it('rejects 60 minutes or more next to hours', () => {
    expect(() => parseDuration('1h75m')).toThrow(/below 60/);
  });

  it('names the input in the error', () => {
    expect(() => parseDuration('soon')).toThrow("invalid duration 'soon'");
  });
});

describe('toHours', () => {
  it('rounds to one decimal', () => {
    expect(toHours(90)).toBe(1.5);
    expect(toHours(20)).toBe(0.3);
    expect(toHours(45)).toBe(0.8);
    expect(toHours(0)).toBe(0);
  });
});

describe('formatting', () => {
  it('always shows one decimal', () => {
    expect(formatHours(2)).toBe('2.0');
    expect(formatHours(1.25)).toBe('1.3');
  });

  it('formats h:mm', () => {
    expect(formatClock(5)).toBe('0:05');
    expect(formatClock(135)).toBe('2:15');
  });
});
