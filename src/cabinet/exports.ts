/**
 * Every cabinet list as a spreadsheet: `?format=csv` answers the whole filtered list (every page,
 * no cursor) as CSV, streamed a page at a time, with the reports' conventions (src/reports/format.ts:
 * a header row, RFC 4180 quoting, CRLF, times as `YYYY-MM-DD HH:MM:SS` in UTC under a `_utc`
 * column name, amounts as the list's decimal text, formula injection neutralised). The rows are
 * read through the very function that answers the JSON list, so the filters mean the same.
 */
import { Readable } from 'node:stream';
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { MAX_PAGE_LIMIT } from '../http/pagination.js';
import { StringEnum } from '../http/schemas.js';
import { CONTENT_TYPES, csvHeader, csvRows } from '../reports/format.js';

/** Rows read per page of an export: the lists' largest page. Tests lower it to see many pages. */
export const EXPORT_PAGE_SIZE = MAX_PAGE_LIMIT;

export interface ListPage<T> {
  data: T[];
  next_cursor: string | null;
}

/** One list's CSV: its file name, its columns in order, and an item of the JSON list as a row. */
export interface ListCsv<T> {
  name: string;
  columns: readonly string[];
  row: (item: T) => Record<string, unknown>;
}

/** Reads one page of the list with these filters (the JSON list's own function). */
export type PageReader<T> = (page: { limit: number; cursor?: string }) => Promise<ListPage<T>>;

/** A list's query with `format` added: json (default, one page) or csv (every row). */
export function withFormat<P extends TProperties>(query: TObject<P>) {
  return Type.Object(
    {
      ...query.properties,
      format: Type.Optional(
        StringEnum(
          ['json', 'csv'],
          'json (default): one page. csv: every row matching the filters as a spreadsheet (RFC 4180, times in UTC, amounts as decimal text); `limit` and `cursor` are ignored',
        ),
      ),
    },
    { additionalProperties: false },
  );
}

/** The 200 answer of a list: its JSON page, or the CSV. */
export function listResponse(page: TSchema, csvColumns: readonly string[]) {
  return {
    description: `A page of the list (JSON), or with format=csv every matching row as CSV with the columns: ${csvColumns
      .map((c) => `\`${c}\``)
      .join(', ')} (time columns carry \`_utc\` in their header)`,
    content: {
      'application/json': { schema: page },
      'text/csv': { schema: { type: 'string' } },
    },
  };
}

async function* chunks<T>(
  csv: ListCsv<T>,
  first: ListPage<T>,
  read: PageReader<T>,
  pageSize: number,
): AsyncIterable<string> {
  yield csvHeader(csv.columns);
  let page = first;
  for (;;) {
    const text = csvRows(csv.columns, page.data.map(csv.row));
    if (text) yield text;
    if (page.next_cursor === null) return;
    page = await read({ limit: pageSize, cursor: page.next_cursor });
  }
}

/**
 * Sends the whole list as CSV. The first page is read before any byte goes out, so a refused
 * filter is still its documented error; the rest is read as the client takes the bytes.
 */
export async function sendListCsv<T>(
  reply: FastifyReply,
  merchantId: string,
  csv: ListCsv<T>,
  read: PageReader<T>,
  pageSize: number = EXPORT_PAGE_SIZE,
): Promise<FastifyReply> {
  const first = await read({ limit: pageSize });
  return reply
    .headers({
      'content-type': CONTENT_TYPES.csv,
      'content-disposition': `attachment; filename="paygate-${csv.name}-${merchantId}.csv"`,
    })
    .send(Readable.from(chunks(csv, first, read, pageSize)));
}
