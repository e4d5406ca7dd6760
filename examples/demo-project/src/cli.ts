#!/usr/bin/env node
/** The `tallyho` command line. */

import { readFileSync } from 'node:fs';
import { groupEntries, type GroupBy } from './aggregate.js';
import { filterProject, loadEntries, type Entry } from './entries.js';
import { render, type ReportFormat } from './report.js';
import { compareWeeks, isoWeek, parseWeek, type IsoWeek } from './week.js';

export const USAGE = `Usage: tallyho [options] <export.csv>...

Turns CSV time-tracking exports (Toggl, Clockify, Harvest) into a report of hours.

Options:
  --by <week|project|week+project>  how to group entries (default: week+project)
  --project <name>                  only entries of this project (case-insensitive)
  --week <YYYY-Www>                 only entries of this ISO week
  --format <table|csv|json>         output format (default: table)
  -h, --help                        show this help
`;

/** Bad command-line arguments: reported with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CliArgs {
  files: string[];
  by: GroupBy;
  format: ReportFormat;
  project?: string;
  week?: IsoWeek;
  help?: boolean;
}

/** Where the CLI reads and writes; tests pass their own. */
export interface Io {
  readFile(path: string): string;
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  readFile: (path) => readFileSync(path, 'utf8'),
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

function requireValue(argv: string[], index: number, option: string): string {
  const value = argv[index];
  if (value === undefined || value.startsWith('--')) {
    throw new UsageError(`${option} needs a value`);
  }
  return value;
}

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { files: [], by: 'week+project', format: 'table' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    switch (arg) {
      case '-h':
      case '--help':
        args.help = true;
        break;
      case '--by': {
        const value = requireValue(argv, ++i, '--by');
        if (value !== 'week' && value !== 'project' && value !== 'week+project') {
          throw new UsageError(`--by must be week, project or week+project (got ${value})`);
        }
        args.by = value;
        break;
      }
      case '--format': {
        const value = requireValue(argv, ++i, '--format');
        if (value !== 'table' && value !== 'csv' && value !== 'json') {
          throw new UsageError(`--format must be table, csv or json (got ${value})`);
        }
        args.format = value;
        break;
      }
      case '--project':
        args.project = requireValue(argv, ++i, '--project');
        break;
      case '--week': {
        const value = requireValue(argv, ++i, '--week');
        try {
          args.week = parseWeek(value);
        } catch (error) {
          throw new UsageError(`--week: ${(error as Error).message}`);
        }
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        args.files.push(arg);
    }
  }
  if (!args.help && args.files.length === 0) throw new UsageError('no input file');
  return args;
}

/** The entries the arguments ask for. */
export function selectEntries(entries: Entry[], args: CliArgs): Entry[] {
  let selected = filterProject(entries, args.project);
  const week = args.week;
  if (week) selected = selected.filter((e) => compareWeeks(isoWeek(e.day), week) === 0);
  return selected;
}

/** Runs the CLI; returns the exit code. */
export function run(argv: string[], io: Io = processIo): number {
  let args: CliArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`tallyho: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (args.help) {
    io.out(USAGE);
    return 0;
  }
  const entries: Entry[] = [];
  for (const file of args.files) {
    try {
      entries.push(...loadEntries(io.readFile(file)));
    } catch (error) {
      io.err(`tallyho: ${file}: ${(error as Error).message}\n`);
      return 1;
    }
  }
  io.out(render(groupEntries(selectEntries(entries, args), args.by), args.format));
  return 0;
}

// Run only when executed, not when imported by the tests.
if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = run(process.argv.slice(2));
}
