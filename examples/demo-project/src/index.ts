export { CsvError, parseCsv, toRecords, type CsvOptions } from './csv.js';
export { DurationError, formatClock, formatHours, parseDuration, toHours } from './duration.js';
export { EntryError, filterProject, loadEntries, readEntries, type Entry } from './entries.js';
export { groupEntries, totalsByWeek, type Group, type GroupBy } from './aggregate.js';
export { render, renderCsv, renderJson, renderTable, type ReportFormat } from './report.js';
export {
  addDays,
  compareWeeks,
  daysOfWeek,
  formatDay,
  formatWeek,
  isoWeek,
  parseDay,
  parseWeek,
  weekStart,
  weeksInYear,
  type IsoWeek,
} from './week.js';
