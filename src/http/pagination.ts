/**
 * Lists on the consoles page the same way everywhere: `?limit=` (default 50, at most 500) and an
 * opaque `cursor`; the answer is `{data: [...], next_cursor}`. Pages are keyset pages over
 * (time, id) in descending order, so a row written while a client pages never shifts another row
 * into or out of the next page. The cursor is the last row's key, base64url-encoded JSON; it is
 * opaque to clients and checked on the way back in.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { base64url } from '@scure/base';
import { validationFailed } from '../errors.js';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 500;

/** Query properties of a paged list (spread into the route's querystring schema). */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, description: `Rows per page (default ${DEFAULT_PAGE_LIMIT})` }),
  ),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 400, description: 'next_cursor of the previous page; opaque' }),
  ),
};

/** The answer of a paged list. */
export const Page = (item: TSchema, title: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` for the next page; null on the last page',
      }),
    },
    { additionalProperties: false, title },
  );

/** Where a page starts: strictly after this (time, id) in descending order. */
export interface PageKey {
  at: string;
  id: string;
}

export function encodeCursor(key: PageKey): string {
  return base64url.encode(new TextEncoder().encode(JSON.stringify([key.at, key.id])));
}

/** The key a cursor carries; a cursor this server did not make is 400 validation_failed. */
export function decodeCursor(cursor: string | undefined): PageKey | null {
  if (cursor === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(cursor)));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((v) => typeof v === 'string')) {
      return { at: parsed[0] as string, id: parsed[1] as string };
    }
  } catch {
    // falls through to the refusal below
  }
  throw validationFailed('query.cursor', 'is not a cursor this server returned');
}

/**
 * Builds the answer from rows read with `limit + 1`: the extra row only says that another page
 * exists.
 */
export function toPage<T>(
  rows: T[],
  limit: number,
  keyOf: (row: T) => PageKey,
): { data: T[]; next_cursor: string | null } {
  if (rows.length <= limit) return { data: rows, next_cursor: null };
  const data = rows.slice(0, limit);
  return { data, next_cursor: encodeCursor(keyOf(data[data.length - 1]!)) };
}

/** What a store reads for a page: at most `limit` rows strictly after `after` in (time, id) descending order. */
export interface PageRequest {
  limit: number;
  after: PageKey | null;
}
