import { describe, expect, it } from 'vitest';
import { EntryError, filterProject, loadEntries, readEntries } from '../src/entries.js';

const TOGGL = [
  'Project,Description,Start date,Duration,Tags',
  'acme-portal,Fix login redirect,2024-03-04,01:30:00,bug',
  'Internal,1:1 with Sam,2024-03-05,00:30:00,',
].join('\n');

describe('loadEntries', () => {
  it('reads Toggl column names', () => {
    const [first, second] = loadEntries(TOGGL);
    expect(first).toMatchObject({ project: 'acme-portal', task: 'Fix login redirect', minutes: 90, notes: 'bug', line: 2 });
    expect(second?.day.toISOString()).toBe('2024-03-05T00:00:00.000Z');
  });

  it('reads Harvest decimal hours', () => {
    const [entry] = loadEntries('Date,Project,Task,Hours\n2024-03-04,globex-billing,Support,0.75\n');
    expect(entry?.minutes).toBe(45);
  });

  it('uses a placeholder for a missing project', () => {
    const [entry] = loadEntries('date,duration\n2024-03-04,1h\n');
    expect(entry?.project).toBe('(no project)');
  });
});

describe('readEntries errors', () => {
  it('reports a missing date with its line', () => {
    expect(() => readEntries([{ duration: '1h' }])).toThrow(new EntryError('missing date', 2));
  });

  it('reports a bad duration with its line', () => {
    expect(() => readEntries([{ date: '2024-03-04', duration: 'soon' }])).toThrow(
      /line 2: invalid duration 'soon'/,
    );
  });

  it('reports a bad date with its line', () => {
    expect(() => readEntries([{ date: '2024-02-30', duration: '1h' }])).toThrow(/line 2: invalid day/);
  });
});

describe('filterProject', () => {
  it('matches project names case-insensitively', () => {
    const entries = loadEntries(TOGGL);
    expect(filterProject(entries, 'INTERNAL').map((e) => e.task)).toEqual(['1:1 with Sam']);
    expect(filterProject(entries, undefined)).toHaveLength(2);
  });
});
