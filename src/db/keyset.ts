/**
 * The keyset condition of every page and batch ordered by (time, id): the rows strictly after the
 * last one read. Lists read newest first (`desc`: older rows come after), reports and the payout
 * worker oldest first (`asc`). Written as a row value, `(time, id) < (?, ?)`: both engines take it
 * as one range of an index on (…, time, id), so a page seeks to the key and reads only its rows;
 * where the index ends at the time, each derives the range on the time from it. PostgreSQL reads
 * the `or` spelling (`time < ? or (time = ? and id < ?)`) as a filter, not a range.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool, type StringReference } from 'kysely';

/** A row's place in the order: its time (ISO text, as stored) and its id. */
export interface KeysetKey {
  at: string;
  id: string;
}

/** `desc`: newest first (the lists); `asc`: oldest first (reports, work queues). */
export type KeysetOrder = 'desc' | 'asc';

/** The rows strictly after `key` in `order`, for `.where((eb) => afterKey(eb, 'created_at', 'id', key, 'desc'))`. */
export function afterKey<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  time: StringReference<DB, TB>,
  id: StringReference<DB, TB>,
  key: KeysetKey,
  order: KeysetOrder,
): Expression<SqlBool> {
  const op = sql.raw(order === 'desc' ? '<' : '>');
  return sql<SqlBool>`(${eb.ref(time)}, ${eb.ref(id)}) ${op} (${key.at}, ${key.id})`;
}

/** The same order in memory: negative when `a` is before `b` in ascending (time, id) order. */
export function compareKeys(a: KeysetKey, b: KeysetKey): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}

/** The condition of afterKey on a row in memory (a list short enough to read whole). */
export function comesAfter(row: KeysetKey, key: KeysetKey, order: KeysetOrder): boolean {
  const c = compareKeys(row, key);
  return order === 'desc' ? c < 0 : c > 0;
}
