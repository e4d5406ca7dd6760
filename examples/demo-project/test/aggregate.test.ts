import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groupEntries, totalsByWeek } from '../src/aggregate.js';
import { loadEntries, type Entry } from '../src/entries.js';
import { formatWeek, parseDay } from '../src/week.js';
import { fixture } from './helpers.js';

function entry(day: string, project: string, minutes: number): Entry {
  return { day: parseDay(day), project, task: 'dev', minutes, notes: '', line: 2 };
}

const SAMPLE = [
  entry('2024-03-04', 'acme-portal', 60),
  entry('2024-03-05', 'globex-billing', 30),
  entry('2024-03-05', 'acme-portal', 90),
  entry('2024-03-12', 'acme-portal', 45),
];

describe('groupEntries', () => {
  it('groups by week and project, sorted', () => {
    const rows = groupEntries(SAMPLE, 'week+project').map((g) => [
      g.week && formatWeek(g.week),
      g.project,
      g.entries,
      g.hours,
    ]);
    expect(rows).toEqual([
      ['2024-W10', 'acme-portal', 2, 2.5],
      ['2024-W10', 'globex-billing', 1, 0.5],
      ['2024-W11', 'acme-portal', 1, 0.8],
    ]);
  });

  it('groups by project only', () => {
    const rows = groupEntries(SAMPLE, 'project').map((g) => [g.week, g.project, g.hours]);
    expect(rows).toEqual([
      [undefined, 'acme-portal', 3.3],
      [undefined, 'globex-billing', 0.5],
    ]);
  });

  it('counts distinct days', () => {
    const [week10] = groupEntries(SAMPLE, 'week');
    expect(week10?.days.size).toBe(2);
  });

  it('keeps weeks of different years apart', () => {
    const groups = groupEntries(
      [entry('2024-01-01', 'a', 30), entry('2024-12-30', 'a', 30)],
      'week',
    );
    expect(groups.map((g) => g.week && formatWeek(g.week))).toEqual(['2024-W01', '2025-W01']);
  });
});

describe('totalsByWeek', () => {
  it('labels weeks as YYYY-Www', () => {
    expect(Object.keys(totalsByWeek(SAMPLE))).toEqual(['2024-W10', '2024-W11']);
  });

  it('totals minutes per ISO week for the fixture export', () => {
    const entries = loadEntries(readFileSync(fixture('entries.csv'), 'utf8'));
    expect(totalsByWeek(entries)).toEqual({
      '2024-W06': 1730,
      '2024-W07': 1900,
      '2024-W08': 1765,
      '2024-W09': 1305,
      '2024-W10': 2120,
      '2024-W11': 1970,
      '2024-W12': 1185,
      '2024-W13': 1620,
      '2024-W14': 1695,
      '2024-W15': 75,
    });
  });
});
