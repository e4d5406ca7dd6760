/** Grouping entries into the rows of a report. */

import { formatWeek, isoWeek, compareWeeks, type IsoWeek } from './week.js';
import { toHours } from './duration.js';
import type { Entry } from './entries.js';

export type GroupBy = 'week' | 'project' | 'week+project';

/** One row of a report. */
export interface Group {
  /** The ISO week, when grouping by week. */
  week?: IsoWeek;
  /** The project, when grouping by project. */
  project?: string;
  /** Number of entries in the group. */
  entries: number;
  /** Decimal hours, rounded to one decimal. */
  hours: number;
  /** Days with at least one entry. */
  days: Set<string>;
}

function keyOf(entry: Entry, by: GroupBy): string {
  const week = isoWeek(entry.day);
  switch (by) {
    case 'week':
      return `${week.year}-${week.week}`;
    case 'project':
      return entry.project;
    case 'week+project':
      return `${week.year}-${week.week}/${entry.project}`;
  }
}

function newGroup(entry: Entry, by: GroupBy): Group {
  return {
    week: by === 'project' ? undefined : isoWeek(entry.day),
    project: by === 'week' ? undefined : entry.project,
    entries: 0,
    hours: 0,
    days: new Set(),
  };
}

function add(group: Group, entry: Entry): void {
  group.entries += 1;
  group.hours += toHours(entry.minutes);
  group.days.add(entry.day.toISOString().slice(0, 10));
}

/** Groups entries; rows come sorted by week, then project name. */
export function groupEntries(entries: Entry[], by: GroupBy): Group[] {
  const groups = new Map<string, Group>();
  for (const entry of entries) {
    const key = keyOf(entry, by);
    let group = groups.get(key);
    if (!group) {
      group = newGroup(entry, by);
      groups.set(key, group);
    }
    add(group, entry);
  }
  return [...groups.values()].sort(
    (a, b) =>
      (a.week && b.week ? compareWeeks(a.week, b.week) : 0) ||
      (a.project ?? '').localeCompare(b.project ?? ''),
  );
}

/** Total minutes per ISO week (`2024-W09`), in chronological order. */
export function totalsByWeek(entries: Entry[]): Record<string, number> {
  const totals = new Map<string, { week: IsoWeek; minutes: number }>();
  for (const entry of entries) {
    const week = isoWeek(entry.day);
    const key = `${week.year}-${week.week}`;
    const total = totals.get(key) ?? { week, minutes: 0 };
    total.minutes += entry.minutes;
    totals.set(key, total);
  }
  const ordered = [...totals.values()].sort((a, b) => compareWeeks(a.week, b.week));
  return Object.fromEntries(ordered.map((t) => [label(t.week), t.minutes]));
}

function label(week: IsoWeek): string {
  return `${week.year}-W${String(week.week).padStart(2, '0')}`;
}
