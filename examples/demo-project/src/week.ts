/**
 * ISO 8601 week dates, without a date library (we dropped date-fns in 0.4.0 to keep
 * the CLI install small).
 *
 * Weeks start on Monday. Week 1 of a year is the week holding the year's first
 * Thursday, so the first days of January may belong to the previous year's last week
 * and the last days of December to week 1 of the next year. All arithmetic is in UTC
 * so that results do not depend on the machine's time zone.
 */

export interface IsoWeek {
  /** ISO week-numbering year (differs from the calendar year around January 1st). */
  year: number;
  /** 1 to 52 or 53. */
  week: number;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const WEEK_PATTERN = /^(\d{4})-W(\d{2})$/;

/** Parses `YYYY-MM-DD` into a UTC date; throws a RangeError for anything else. */
export function parseDay(text: string): Date {
  const match = DAY_PATTERN.exec(text.trim());
  if (!match) throw new RangeError(`invalid day '${text}': expected YYYY-MM-DD`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls over (February 30th becomes March 1st): reject instead of guessing.
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    throw new RangeError(`invalid day '${text}': no such date`);
  }
  return date;
}

/** Formats a UTC date as `YYYY-MM-DD`. */
export function formatDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/** The ISO week a day belongs to. */
export function isoWeek(date: Date): IsoWeek {
  // The ISO year of a week is the calendar year of its Thursday.
  const weekday = date.getUTCDay();
  const thursday = addDays(date, 4 - weekday);
  const year = thursday.getUTCFullYear();
  const firstOfYear = Date.UTC(year, 0, 1);
  const week = Math.round((thursday.getTime() - firstOfYear) / DAY_MS / 7) + 1;
  return { year, week };
}

/** Monday of an ISO week. */
export function weekStart({ year, week }: IsoWeek): Date {
  // January 4th is always in week 1.
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const weekday = jan4.getUTCDay() || 7;
  return addDays(jan4, (week - 1) * 7 - (weekday - 1));
}

/** The seven days of an ISO week, Monday first. */
export function daysOfWeek(week: IsoWeek): Date[] {
  const monday = weekStart(week);
  return Array.from({ length: 7 }, (_, i) => addDays(monday, i));
}

/** Number of ISO weeks in a year: December 28th is always in the last one. */
export function weeksInYear(year: number): number {
  return isoWeek(new Date(Date.UTC(year, 11, 28))).week;
}

/** `2024-W09` */
export function formatWeek({ year, week }: IsoWeek): string {
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** Parses `YYYY-Www`; the week must exist in that year. */
export function parseWeek(text: string): IsoWeek {
  const match = WEEK_PATTERN.exec(text.trim());
  if (!match) throw new RangeError(`invalid week '${text}': expected YYYY-Www`);
  const year = Number(match[1]);
  const week = Number(match[2]);
  if (week < 1 || week > weeksInYear(year)) {
    throw new RangeError(`invalid week '${text}': ${year} has ${weeksInYear(year)} weeks`);
  }
  return { year, week };
}

/** Orders weeks chronologically. */
export function compareWeeks(a: IsoWeek, b: IsoWeek): number {
  return a.year - b.year || a.week - b.week;
}
