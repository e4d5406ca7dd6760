import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv, toRecords } from '../src/csv.js';
import { fixture } from './helpers.js';

describe('parseCsv', () => {
  it('splits simple rows', () => {
    expect(parseCsv('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
  });

  it('handles CRLF line endings', () => {
    expect(parseCsv('a,b\r\n1,2\r\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('strips a UTF-8 byte-order mark', () => {
    expect(parseCsv('\uFEFFdate,hours\n2024-03-04,1.5')[0]).toEqual(['date', 'hours']);
  });

  it('keeps commas inside quoted fields', () => {
    expect(parseCsv('"Smith, Jane",3')).toEqual([['Smith, Jane', '3']]);
  });

  it('keeps line breaks inside quoted fields', () => {
    expect(parseCsv('"line one\nline two",x')).toEqual([['line one\nline two', 'x']]);
  });

  it('unescapes doubled quotes inside quoted fields', () => {
    expect(parseCsv('"say ""hi""",x')).toEqual([['say "hi"', 'x']]);
  });

  it('trims unquoted fields but not quoted ones', () => {
    expect(parseCsv('  a  ," b ",c')).toEqual([['a', ' b ', 'c']]);
  });

  it('skips empty lines unless asked not to', () => {
    expect(parseCsv('a\n\nb\n')).toEqual([['a'], ['b']]);
    expect(parseCsv('a\n\nb', { skipEmptyLines: false })).toEqual([['a'], [''], ['b']]);
  });

  it('reports an unterminated quote with its position', () => {
    expect(() => parseCsv('a,"b\nc')).toThrow(CsvError);
    expect(() => parseCsv('a,"b\nc')).toThrow(/unterminated quoted field \(line 2/);
  });

  it('rejects a quote in the middle of an unquoted field', () => {
    expect(() => parseCsv('ab"c,d')).toThrow(/unexpected quote/);
  });

  it('rejects text after a closing quote', () => {
    expect(() => parseCsv('"ab"c,d')).toThrow(/text after a closing quote/);
  });
});

describe('toRecords', () => {
  it('keys records by the lower-cased header', () => {
    expect(toRecords([['Date', ' Hours '], ['2024-03-04', '2']])).toEqual([
      { date: '2024-03-04', hours: '2' },
    ]);
  });

  it('fills missing trailing fields with empty strings', () => {
    expect(toRecords([['a', 'b', 'c'], ['1']])).toEqual([{ a: '1', b: '', c: '' }]);
  });

  it('rejects rows with more fields than the header', () => {
    expect(() => toRecords([['a'], ['1', '2']])).toThrow(/2 fields but the header has 1/);
  });

  it('rejects duplicate columns', () => {
    expect(() => toRecords([['Date', 'date']])).toThrow(/duplicate column "date"/);
  });

  it('reads a Harvest export', () => {
    const records = toRecords(parseCsv(readFileSync(fixture('harvest-export.csv'), 'utf8')));
    expect(records).toHaveLength(6);
    expect(records[2]?.notes).toBe('Pairing on "retry" backoff, see PR #412');
    expect(records[5]?.['hours rounded']).toBe('0.75');
  });
});
