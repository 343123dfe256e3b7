/**
 * The console's side of list pagination (src/http/pagination.ts): what a store is asked for (one
 * row more than shown: that row only says another page exists), and the same keyset page over a
 * short list a service returns whole (a merchant's keys, the asset catalog).
 */
import { DEFAULT_PAGE_LIMIT, decodeCursor, toPage, type PageKey, type PageRequest } from '../http/pagination.js';
import { compareKeys, comesAfter } from '../db/keyset.js';
import { validationFailed } from '../errors.js';

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export interface Paged<T> {
  data: T[];
  next_cursor: string | null;
}

export function pageLimit(q: PageQuery): number {
  return q.limit ?? DEFAULT_PAGE_LIMIT;
}

/** The rows a store reads for the page `q` asks for. */
export function pageRequest(q: PageQuery): PageRequest {
  return { limit: pageLimit(q) + 1, after: decodeCursor(q.cursor) };
}

/** A keyset page over rows already in memory: newest (time, id) first, strictly after the cursor. */
export function pageOfRows<T>(rows: readonly T[], q: PageQuery, keyOf: (row: T) => PageKey): Paged<T> {
  const after = decodeCursor(q.cursor);
  const sorted = [...rows].sort((x, y) => compareKeys(keyOf(y), keyOf(x)));
  const rest = after ? sorted.filter((r) => comesAfter(keyOf(r), after, 'desc')) : sorted;
  return toPage(rest.slice(0, pageLimit(q) + 1), pageLimit(q), keyOf);
}

/** A page of rows in a fixed order (the catalog's) with no time: the cursor names the last row shown. */
export function pageInOrder<T>(rows: readonly T[], q: PageQuery, idOf: (row: T) => string): Paged<T> {
  const after = decodeCursor(q.cursor);
  let start = 0;
  if (after) {
    const i = rows.findIndex((r) => idOf(r) === after.id);
    if (i < 0 || after.at !== '') throw validationFailed('query.cursor', 'is not a cursor this server returned');
    start = i + 1;
  }
  return toPage(rows.slice(start, start + pageLimit(q) + 1), pageLimit(q), (r) => ({ at: '', id: idOf(r) }));
}
