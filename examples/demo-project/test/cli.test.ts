import { describe, expect, it } from 'vitest';
import { parseArgs, run, USAGE, UsageError, type Io } from '../src/cli.js';

const CSV = [
  'date,project,task,duration',
  '2024-03-04,acme-portal,standup,20m',
  '2024-03-05,acme-portal,frontend,2h',
  '2024-03-12,globex-billing,migration,1:30',
  '',
].join('\n');

function fakeIo(files: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
      return text;
    },
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
  };
  return { io, out, err };
}

describe('parseArgs', () => {
  it('defaults to a week+project table', () => {
    expect(parseArgs(['a.csv'])).toEqual({ files: ['a.csv'], by: 'week+project', format: 'table' });
  });

  it('reads --by, --format and --project', () => {
    const args = parseArgs(['--by', 'project', '--format', 'json', '--project', 'acme', 'a.csv', 'b.csv']);
    expect(args).toMatchObject({ by: 'project', format: 'json', project: 'acme', files: ['a.csv', 'b.csv'] });
  });

  it('parses --week', () => {
    expect(parseArgs(['--week', '2024-W10', 'a.csv']).week).toEqual({ year: 2024, week: 10 });
  });

  it('rejects an unknown option', () => {
    expect(() => parseArgs(['--verbose', 'a.csv'])).toThrow(new UsageError('unknown option --verbose'));
  });

  it('rejects a missing value', () => {
    expect(() => parseArgs(['a.csv', '--project'])).toThrow(/--project needs a value/);
  });

  it('needs at least one file unless --help', () => {
    expect(() => parseArgs([])).toThrow(/no input file/);
    expect(parseArgs(['--help']).help).toBe(true);
  });
});

describe('run', () => {
  it('prints the usage for --help', () => {
    const { io, out } = fakeIo({});
    expect(run(['--help'], io)).toBe(0);
    expect(out.join('')).toBe(USAGE);
  });

  it('exits with 2 and the usage on bad arguments', () => {
    const { io, err } = fakeIo({});
    expect(run(['--by', 'day', 'a.csv'], io)).toBe(2);
    expect(err.join('')).toContain('--by must be week, project or week+project (got day)');
    expect(err.join('')).toContain('Usage: tallyho');
  });

  it('reports file errors with the file name', () => {
    const { io, err } = fakeIo({ 'bad.csv': 'date,duration\n2024-03-04,soon\n' });
    expect(run(['bad.csv'], io)).toBe(1);
    expect(err.join('')).toBe("tallyho: bad.csv: line 2: invalid duration 'soon': expected 1:30, 1h30m, 1.5h or 90m\n");
  });

  it('keeps only the entries of --week', () => {
    const { io, out } = fakeIo({ 'a.csv': CSV });
    expect(run(['--week', '2024-W11', '--format', 'csv', 'a.csv'], io)).toBe(0);
    expect(out.join('')).toBe('week,project,entries,days,hours\n2024-W11,globex-billing,1,1,1.5\n');
  });
});
