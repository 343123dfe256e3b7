/**
 * One shape for every CLI list, the console's: `--limit` (default 50, at most 500) and `--cursor`
 * (the `next_cursor` of the previous page), and `{data, next_cursor}` with `--json`. The human
 * output is a table of chosen columns, followed by the command for the next page when there is one.
 */
import { Flags } from '@oclif/core';
import { AppError } from '../errors.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, decodeCursor } from '../http/pagination.js';
import type { PageQuery, Paged } from '../operators/paging.js';
import { table } from './format.js';

export type { Paged } from '../operators/paging.js';

export const pageFlags = {
  limit: Flags.integer({
    default: DEFAULT_PAGE_LIMIT,
    min: 1,
    max: MAX_PAGE_LIMIT,
    description: `rows per page (at most ${MAX_PAGE_LIMIT})`,
  }),
  cursor: Flags.string({ description: 'the next page: the next_cursor the previous page printed' }),
};

/** The page the flags ask for; a cursor no list printed is refused before anything is read. */
export function pageQuery(flags: { limit: number; cursor?: string | undefined }): PageQuery {
  if (flags.cursor !== undefined) {
    try {
      decodeCursor(flags.cursor);
    } catch {
      throw new AppError('invalid_argument', '--cursor is not a next_cursor printed by a list command');
    }
  }
  return { limit: flags.limit, ...(flags.cursor !== undefined ? { cursor: flags.cursor } : {}) };
}

/** The table of `columns`, and how to ask for the next page. */
export function pageTable(
  page: Paged<Record<string, unknown>>,
  columns: string[],
  command: { id: string | undefined; argv: readonly string[] },
): string {
  const text = table(page.data, columns);
  if (page.next_cursor === null) return text;
  const { argv } = command;
  const rest = argv.filter((a, i) => a !== '--cursor' && argv[i - 1] !== '--cursor' && !a.startsWith('--cursor='));
  const id = (command.id ?? '').replaceAll(':', ' ');
  return `${text}\n\nmore: paygate ${[id, ...rest, '--cursor', page.next_cursor].join(' ')}`;
}
