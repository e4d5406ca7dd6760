import { describe, expect, it } from 'vitest';
import {
  daysOfWeek,
  formatDay,
  formatWeek,
  isoWeek,
  parseDay,
  parseWeek,
  weekStart,
  weeksInYear,
} from '../src/week.js';

// Checked against https://www.epochconverter.com/weeks and Python's date.isocalendar().
const REFERENCE: Array<[string, string]> = [
  ['2024-01-01', '2024-W01'],
  ['2024-02-29', '2024-W09'],
  ['2024-06-15', '2024-W24'],
  ['2024-12-29', '2024-W52'],
  ['2022-01-01', '2021-W52'],
  ['2022-01-02', '2021-W52'],
  ['2023-01-01', '2022-W52'],
  ['2023-01-02', '2023-W01'],
  ['2025-12-28', '2025-W52'],
  ['2025-12-29', '2026-W01'],
  ['2026-01-04', '2026-W01'],
  ['2026-12-31', '2026-W53'],
  ['2027-01-03', '2026-W53'],
  ['2019-12-30', '2020-W01'],
];

describe('parseDay', () => {
  it('parses YYYY-MM-DD as UTC midnight', () => {
    expect(parseDay('2024-03-06').toISOString()).toBe('2024-03-06T00:00:00.000Z');
  });

  it('rejects days that do not exist', () => {
    expect(() => parseDay('2023-02-29')).toThrow(/no such date/);
    expect(() => parseDay('2024-13-01')).toThrow(/no such date/);
  });

  it('rejects other formats', () => {
    for (const text of ['2024-3-6', '06.03.2024', '2024/03/06', '']) {
      expect(() => parseDay(text), text).toThrow(RangeError);
    }
  });
});

describe('isoWeek', () => {
  it('returns week 10 for a Wednesday in March', () => {
    expect(isoWeek(parseDay('2024-03-06'))).toEqual({ year: 2024, week: 10 });
  });

  it('treats Sunday as the last day of the ISO week', () => {
    expect(isoWeek(parseDay('2024-03-10'))).toEqual({ year: 2024, week: 10 });
  });

  it('puts 2024-12-30 in week 1 of 2025', () => {
    expect(isoWeek(parseDay('2024-12-30'))).toEqual({ year: 2025, week: 1 });
  });

  it('puts 2021-01-03 in week 53 of 2020', () => {
    expect(isoWeek(parseDay('2021-01-03'))).toEqual({ year: 2020, week: 53 });
  });

  it('week 1 holds the first Thursday of the year', () => {
    expect(isoWeek(parseDay('2021-01-07'))).toEqual({ year: 2021, week: 1 });
  });

  it('matches the reference table', () => {
    for (const [day, week] of REFERENCE) {
      expect(formatWeek(isoWeek(parseDay(day))), day).toBe(week);
    }
  });
});

describe('weeksInYear', () => {
  it('counts 53 weeks in 2020 and 2026, 52 in 2021 and 2024', () => {
    expect([2020, 2021, 2024, 2026].map(weeksInYear)).toEqual([53, 52, 52, 53]);
  });
});

describe('weekStart and daysOfWeek', () => {
  it('returns the Monday of a week, even across years', () => {
    expect(formatDay(weekStart({ year: 2025, week: 1 }))).toBe('2024-12-30');
    expect(formatDay(weekStart({ year: 2024, week: 10 }))).toBe('2024-03-04');
  });

  it('lists seven days, Monday first', () => {
    const days = daysOfWeek({ year: 2024, week: 10 }).map(formatDay);
    expect(days).toEqual([
      '2024-03-04',
      '2024-03-05',
      '2024-03-06',
      '2024-03-07',
      '2024-03-08',
      '2024-03-09',
      '2024-03-10',
    ]);
  });
});

describe('formatWeek and parseWeek', () => {
  it('pads the week number', () => {
    expect(formatWeek({ year: 2024, week: 9 })).toBe('2024-W09');
  });

  it('round-trips', () => {
    expect(parseWeek('2024-W09')).toEqual({ year: 2024, week: 9 });
  });

  it('rejects weeks the year does not have', () => {
    expect(() => parseWeek('2024-W53')).toThrow(/2024 has 52 weeks/);
    expect(() => parseWeek('2024-W00')).toThrow(RangeError);
  });
});
