/**
 * Time entries normalised from the exports we support. Column names differ between
 * exporters; the aliases below cover Toggl Track, Clockify and Harvest as of 2024.
 */

import { parseCsv, toRecords } from './csv.js';
import { DurationError, parseDuration } from './duration.js';
import { parseDay } from './week.js';

/** One time entry. */
export interface Entry {
  /** The day the work happened (UTC midnight). */
  day: Date;
  project: string;
  task: string;
  /** Duration in whole minutes. */
  minutes: number;
  notes: string;
  /** 1-based line of the entry in its file, for error messages. */
  line: number;
}

/** An entry that cannot be read, with its line. */
export class EntryError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'EntryError';
  }
}

const COLUMNS = {
  day: ['date', 'start date', 'spent date', 'day'],
  project: ['project', 'project name', 'client project'],
  task: ['task', 'task name', 'description'],
  duration: ['duration', 'hours', 'time (h)', 'time'],
  notes: ['notes', 'note', 'comment', 'tags'],
} as const;

/** The first non-empty value among the aliases of a column. */
function pick(record: Record<string, string>, aliases: readonly string[]): string | undefined {
  for (const alias of aliases) {
    const value = record[alias];
    if (value !== undefined && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** Normalises records (as returned by `toRecords`) into entries. */
export function readEntries(records: Record<string, string>[]): Entry[] {
  return records.map((record, index) => {
    const line = index + 2; // line 1 is the header
    const dayText = pick(record, COLUMNS.day);
    if (dayText === undefined) throw new EntryError('missing date', line);
    const durationText = pick(record, COLUMNS.duration);
    if (durationText === undefined) throw new EntryError('missing duration', line);

    let day: Date;
    try {
      day = parseDay(dayText);
    } catch (error) {
      throw new EntryError((error as Error).message, line);
    }
    let minutes: number;
    try {
      minutes = parseDuration(durationText);
    } catch (error) {
      if (error instanceof DurationError) throw new EntryError(error.message, line);
      throw error;
    }

    return {
      day,
      project: pick(record, COLUMNS.project) ?? '(no project)',
      task: pick(record, COLUMNS.task) ?? '',
      minutes,
      notes: pick(record, COLUMNS.notes) ?? '',
      line,
    };
  });
}

/** Reads entries from the text of a CSV export. */
export function loadEntries(text: string): Entry[] {
  return readEntries(toRecords(parseCsv(text)));
}

/** Entries of one project (case-insensitive), or all of them. */
export function filterProject(entries: Entry[], project: string | undefined): Entry[] {
  if (project === undefined) return entries;
  const wanted = project.toLowerCase();
  return entries.filter((e) => e.project.toLowerCase() === wanted);
}
