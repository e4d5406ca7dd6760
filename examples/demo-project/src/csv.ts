/**
 * A small RFC 4180 CSV reader, enough for the exports of Toggl, Clockify and Harvest.
 *
 * Supports quoted fields with embedded commas, line breaks and doubled quotes (`""`),
 * CRLF and LF line endings and a UTF-8 byte-order mark. It does not support other
 * delimiters: every exporter we care about writes commas.
 */

export interface CsvOptions {
  /** Trim whitespace around unquoted fields (default: true). */
  trim?: boolean;
  /** Skip lines that are empty or hold only empty fields (default: true). */
  skipEmptyLines?: boolean;
}

/** A syntax error, with the 1-based line and column where it was found. */
export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} (line ${line}, column ${column})`);
    this.name = 'CsvError';
  }
}

const BOM = '\uFEFF';

/** Parses CSV text into rows of string fields. */
export function parseCsv(text: string, options: CsvOptions = {}): string[][] {
  const trim = options.trim ?? true;
  const skipEmpty = options.skipEmptyLines ?? true;
  const input = text.startsWith(BOM) ? text.slice(1) : text;

  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false; // inside a quoted field
  let wasQuoted = false; // the current field started with a quote
  let line = 1;
  let column = 0;

  const endField = () => {
    row.push(trim && !wasQuoted ? field.trim() : field);
    field = '';
    wasQuoted = false;
  };
  const endRow = () => {
    endField();
    if (!(skipEmpty && row.every((f) => f === ''))) rows.push(row);
    row = [];
  };

  for (let i = 0; i < input.length; i++) {
    const ch = input.charAt(i);
    column++;
    if (quoted) {
      if (ch === '"') {
        if (input[i + 1] === '"') {
          // "" inside a quoted field is an escaped quote
          field += '""';
          i++;
          column++;
        } else {
          quoted = false;
        }
      } else {
        if (ch === '\n') {
          line++;
          column = 0;
        }
        field += ch;
      }
      continue;
    }
    switch (ch) {
      case '"':
        if (field.trim() !== '') {
          throw new CsvError('unexpected quote in an unquoted field', line, column);
        }
        field = '';
        quoted = true;
        wasQuoted = true;
        break;
      case ',':
        endField();
        break;
      case '\r':
        if (input[i + 1] === '\n') i++;
        endRow();
        line++;
        column = 0;
        break;
      case '\n':
        endRow();
        line++;
        column = 0;
        break;
      default:
        if (wasQuoted && ch.trim() !== '') {
          throw new CsvError('text after a closing quote', line, column);
        }
        field += ch;
    }
  }
  if (quoted) throw new CsvError('unterminated quoted field', line, column);
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

/**
 * Maps rows to records keyed by the header row. Header names are trimmed and
 * lower-cased; missing trailing fields become empty strings, extra fields are an
 * error (they usually mean an unquoted comma in a note).
 */
export function toRecords(rows: string[][]): Record<string, string>[] {
  const [header, ...body] = rows;
  if (!header) return [];
  const names = header.map((name) => name.trim().toLowerCase());
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new CsvError(`duplicate column "${name}"`, 1, 1);
    seen.add(name);
  }
  return body.map((fields, index) => {
    if (fields.length > names.length) {
      throw new CsvError(
        `${fields.length} fields but the header has ${names.length}`,
        index + 2,
        1,
      );
    }
    const record: Record<string, string> = {};
    names.forEach((name, i) => {
      record[name] = fields[i] ?? '';
    });
    return record;
  });
}
