import { describe, expect, it } from 'vitest';
import { groupEntries } from '../src/aggregate.js';
import type { Entry } from '../src/entries.js';
import { render, renderCsv, renderJson, renderTable } from '../src/report.js';
import { parseDay } from '../src/week.js';

function entry(day: string, project: string, minutes: number): Entry {
  return { day: parseDay(day), project, task: 'dev', minutes, notes: '', line: 2 };
}

const ENTRIES = [
  entry('2024-03-04', 'acme-portal', 90),
  entry('2024-03-05', 'globex-billing', 30),
  entry('2024-03-12', 'acme-portal', 120),
];

describe('renderTable', () => {
  it('aligns text left and numbers right', () => {
    expect(renderTable(groupEntries(ENTRIES, 'week+project'))).toBe(
      [
        'Week      Project         Entries  Days  Hours',
        '--------  --------------  -------  ----  -----',
        '2024-W10  acme-portal           1     1    1.5',
        '2024-W10  globex-billing        1     1    0.5',
        '2024-W11  acme-portal           1     1    2.0',
        '--------  --------------  -------  ----  -----',
        'Total                           3     3    4.0',
        '',
      ].join('\n'),
    );
  });

  it('leaves out the week column when grouping by project', () => {
    const [header] = renderTable(groupEntries(ENTRIES, 'project')).split('\n');
    expect(header).toBe('Project         Entries  Days  Hours');
  });

  it('says so when there is nothing to show', () => {
    expect(renderTable([])).toBe('No entries.\n');
  });
});

describe('renderCsv and renderJson', () => {
  it('writes lower-case headers and no total', () => {
    expect(renderCsv(groupEntries(ENTRIES, 'week'))).toBe(
      'week,entries,days,hours\n2024-W10,2,2,2.0\n2024-W11,1,1,2.0\n',
    );
  });

  it('writes numbers as numbers', () => {
    const rows = JSON.parse(renderJson(groupEntries(ENTRIES, 'project')));
    expect(rows).toEqual([
      { project: 'acme-portal', entries: 2, days: 2, hours: 3.5 },
      { project: 'globex-billing', entries: 1, days: 1, hours: 0.5 },
    ]);
  });

  it('dispatches on the format', () => {
    const groups = groupEntries(ENTRIES, 'week');
    expect(render(groups, 'csv')).toBe(renderCsv(groups));
    expect(render(groups, 'json')).toBe(renderJson(groups));
  });
});
