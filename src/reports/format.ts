/**
 * The two formats of a report, written as chunks while the batches come (docs/reports.md):
 *
 * - CSV: RFC 4180 through csv-stringify (a header row, CRLF line ends, a field quoted when it
 *   holds a comma, a quote or a line break), written for spreadsheets: a time is
 *   `2026-11-29 07:42:54` (UTC, which the column's name says: `created_at_utc`), a form every
 *   spreadsheet reads as a time, and formula injection is neutralised: a cell starting with `=`,
 *   `+`, `-`, `@`, a tab or a CR (or their full-width forms) gets a leading `'`, so a spreadsheet
 *   shows it as text instead of running it, unless the cell is a plain decimal number (a signed
 *   amount "-21" is a number to a spreadsheet, never a formula).
 * - JSON: one object, one row per line, keys in column order, times in ISO 8601, so the bytes are
 *   the same for the same rows and a reader can stream it line by line.
 */
import { stringify, type Options } from 'csv-stringify/sync';

export type ReportFormat = 'csv' | 'json';

export const CONTENT_TYPES: Record<ReportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** Columns holding a time (ISO 8601 in the rows): written for spreadsheets in CSV. */
const TIME_COLUMNS: ReadonlySet<string> = new Set([
  'created_at',
  'expires_at',
  'block_time',
  'credited_at',
  'at',
  // The cabinet's list exports (src/cabinet/exports.ts) add these.
  'updated_at',
  'resolved_at',
  'next_attempt_at',
  'last_attempt_at',
  'revoked_at',
  'last_used_at',
]);

/** The CSV header of a column: a time column's name says its zone. */
const csvName = (column: string) => (TIME_COLUMNS.has(column) ? `${column}_utc` : column);

/** `2026-11-29T07:42:54.123Z` as `2026-11-29 07:42:54`: the form spreadsheets read as a time. */
export function spreadsheetTime(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19).replace('T', ' ');
}

const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** A text cell a spreadsheet would run as a formula gets a leading `'`; a plain number never does. */
export function neutraliseFormula(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** csv-stringify's options for every report: RFC 4180 line ends and quoting, formulas neutralised. */
export const CSV_OPTIONS: Options = {
  record_delimiter: 'windows',
  cast: {
    string: neutraliseFormula,
    boolean: (v) => (v ? 'true' : 'false'),
    // A list (an invoice's transaction hashes) is one cell, space-separated.
    object: (v) => (Array.isArray(v) ? v.join(' ') : JSON.stringify(v)),
  },
};

export function csvHeader(columns: readonly string[]): string {
  return stringify([columns.map(csvName)], CSV_OPTIONS);
}

/**
 * Rows as CSV records in column order. They are handed to csv-stringify as arrays: with objects
 * and its `columns` option it resolves each column's key path per cell, a third of a report's time.
 */
export function csvRows(columns: readonly string[], rows: readonly object[]): string {
  if (rows.length === 0) return '';
  return stringify(
    rows.map((row) =>
      columns.map((c) => {
        const v = (row as Record<string, unknown>)[c];
        return typeof v === 'string' && TIME_COLUMNS.has(c) ? spreadsheetTime(v) : v;
      }),
    ),
    CSV_OPTIONS,
  );
}

/**
 * Chunks of a table report (`name` is the JSON key of its list): the opening, one chunk per
 * non-empty batch, the end. `batches` yields the rows of each batch in report order.
 */
export async function* tableChunks(
  format: ReportFormat,
  head: { from: string; to: string; name: string; columns: readonly string[] },
  batches: AsyncIterable<readonly object[]>,
): AsyncIterable<string> {
  if (format === 'csv') {
    yield csvHeader(head.columns);
    for await (const rows of batches) {
      const text = csvRows(head.columns, rows);
      if (text) yield text;
    }
    return;
  }
  yield `{"from":${JSON.stringify(head.from)},"to":${JSON.stringify(head.to)},${JSON.stringify(head.name)}:[`;
  let first = true;
  for await (const rows of batches) {
    if (rows.length === 0) continue;
    let text = '';
    for (const row of rows) {
      text += `${first ? '\n' : ',\n'}${JSON.stringify(row)}`;
      first = false;
    }
    yield text;
  }
  yield first ? ']}\n' : '\n]}\n';
}
