/** Rendering report rows as an aligned text table, CSV or JSON. */

import { formatHours } from './duration.js';
import { formatWeek } from './week.js';
import type { Group } from './aggregate.js';

export type ReportFormat = 'table' | 'csv' | 'json';

interface Total {
  entries: number;
  days: number;
  hours: number;
}

interface Column {
  title: string;
  align: 'left' | 'right';
  value: (group: Group) => string;
  total?: (total: Total) => string;
}

const WEEK: Column = {
  title: 'Week',
  align: 'left',
  value: (g) => (g.week ? formatWeek(g.week) : ''),
};
const PROJECT: Column = { title: 'Project', align: 'left', value: (g) => g.project ?? '' };
const NUMBERS: Column[] = [
  { title: 'Entries', align: 'right', value: (g) => String(g.entries), total: (t) => String(t.entries) },
  { title: 'Days', align: 'right', value: (g) => String(g.days.size), total: (t) => String(t.days) },
  {
    title: 'Hours',
    align: 'right',
    value: (g) => formatHours(g.hours),
    total: (t) => formatHours(t.hours),
  },
];

/** The week and project columns appear only when the rows are grouped by them. */
function columnsFor(groups: Group[]): Column[] {
  const columns: Column[] = [];
  if (groups.some((g) => g.week)) columns.push(WEEK);
  if (groups.some((g) => g.project !== undefined)) columns.push(PROJECT);
  return [...columns, ...NUMBERS];
}

function totalOf(groups: Group[]): Total {
  const days = new Set<string>();
  let entries = 0;
  let hours = 0;
  for (const group of groups) {
    entries += group.entries;
    hours += group.hours;
    group.days.forEach((day) => days.add(day));
  }
  return { entries, days: days.size, hours };
}

/** An aligned table with a header, the rows and a total line. */
export function renderTable(groups: Group[]): string {
  if (groups.length === 0) return 'No entries.\n';
  const columns = columnsFor(groups);
  const total = totalOf(groups);
  const header = columns.map((c) => c.title);
  const body = groups.map((g) => columns.map((c) => c.value(g)));
  const footer = columns.map((c, i) => (i === 0 ? 'Total' : c.total?.(total) ?? ''));
  const widths = columns.map((_, i) =>
    Math.max(...[header, ...body, footer].map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        return columns[i]?.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...body.map(line), rule, line(footer)].join('\n') + '\n';
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV with the same columns as the table, without the total line. */
export function renderCsv(groups: Group[]): string {
  const columns = columnsFor(groups);
  const rows = [columns.map((c) => c.title.toLowerCase())];
  for (const group of groups) rows.push(columns.map((c) => c.value(group)));
  return rows.map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

/** One JSON object per row; hours as numbers, days as a count. */
export function renderJson(groups: Group[]): string {
  const rows = groups.map((g) => ({
    ...(g.week ? { week: formatWeek(g.week) } : {}),
    ...(g.project !== undefined ? { project: g.project } : {}),
    entries: g.entries,
    days: g.days.size,
    hours: g.hours,
  }));
  return JSON.stringify(rows, null, 2) + '\n';
}

export function render(groups: Group[], format: ReportFormat): string {
  switch (format) {
    case 'table':
      return renderTable(groups);
    case 'csv':
      return renderCsv(groups);
    case 'json':
      return renderJson(groups);
  }
}
