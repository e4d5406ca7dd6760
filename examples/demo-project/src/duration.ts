/**
 * Durations as the exporters write them, in whole minutes.
 *
 * Accepted forms (case-insensitive, surrounding whitespace ignored):
 * - `1:30` and `01:30:00` (Toggl, Clockify): hours, minutes and optional seconds;
 * - `1h30m`, `1h 30m`, `2h`, `45m`: unit suffixes;
 * - `1.5h`, `1.5` (Harvest): decimal hours;
 * - `90m` or `90 min`: minutes.
 *
 * Seconds are rounded to the nearest minute; a result of 0 minutes is allowed (some
 * exporters write running timers as `0:00`), negative durations are not.
 */

export class DurationError extends Error {
  constructor(readonly input: string, reason: string) {
    super(`invalid duration '${input}': ${reason}`);
    this.name = 'DurationError';
  }
}

const CLOCK = /^(\d{1,3}):([0-5]\d)(?::([0-5]\d))?$/;
const UNITS = /^(?:(\d+(?:\.\d+)?)\s*h(?:ours?|rs?)?)?\s*(?:(\d+)\s*m(?:in(?:utes?)?)?)?$/;
const DECIMAL = /^\d+(?:\.\d+)?$/;

/** Parses a duration into whole minutes. */
export function parseDuration(input: string): number {
  const text = input.trim().toLowerCase();
  if (text === '') throw new DurationError(input, 'empty');

  const clock = CLOCK.exec(text);
  if (clock) {
    const [, h = '0', m = '0', s = '0'] = clock;
    return Number(h) * 60 + Number(m) + Math.round(Number(s) / 60);
  }

  if (DECIMAL.test(text)) {
    return Math.round(Number(text) * 60);
  }

  const units = UNITS.exec(text);
  if (units && (units[1] !== undefined || units[2] !== undefined)) {
    const hours = units[1] === undefined ? 0 : Number(units[1]);
    const minutes = units[2] === undefined ? 0 : Number(units[2]);
    if (minutes >= 60 && hours > 0) {
      throw new DurationError(input, 'minutes must be below 60 when hours are given');
    }
    return Math.round(hours * 60) + minutes;
  }

  if (text.startsWith('-')) throw new DurationError(input, 'negative');
  throw new DurationError(input, 'expected 1:30, 1h30m, 1.5h or 90m');
}

/** Minutes as decimal hours rounded to one decimal, the unit reports show. */
export function toHours(minutes: number): number {
  return Math.round((minutes / 60) * 10) / 10;
}

/** `1.5` -> `"1.5"`, `2` -> `"2.0"`: always one decimal so columns line up. */
export function formatHours(hours: number): string {
  return hours.toFixed(1);
}

/** Minutes as `h:mm`, the form timesheets are usually submitted in. */
export function formatClock(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${h}:${String(m).padStart(2, '0')}`;
}
