/**
 * Database errors by meaning, for both engines: "the database cannot serve now" (503, retry),
 * "a unique key refused the row" (the stores' idempotency races), "the transaction lost a race
 * with another one" (PostgreSQL's serializable transactions, retried by writeTx).
 */

interface DriverError {
  code?: unknown;
  message?: unknown;
  /** PostgreSQL: the table and the constraint (or unique index) that refused the row. */
  table?: unknown;
  constraint?: unknown;
  /** PostgreSQL: "Key (merchant_id, order_id)=(…) already exists." */
  detail?: unknown;
}

const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|NOTADB|CORRUPT|PROTOCOL)/;

/**
 * PostgreSQL SQLSTATEs that say the server cannot serve now, not that the statement is wrong:
 * connection exceptions (08), insufficient resources (53: disk full, too many connections),
 * operator intervention (57P01-57P05: shutdown, crash recovery, "cannot connect now"; 57014: a
 * statement cancelled, by the role's statement_timeout or by an operator), system errors (58), a read-only server (25006: a standby after a failover) and a serialization failure
 * or deadlock that outlived writeTx's retries.
 */
const PG_UNAVAILABLE = /^(08|53|57P0[1-5]|57014$|58|25006$|40001$|40P01$)/;

/** Socket errors of the client and pg's own wording for a lost or closed connection. */
const NODE_NET = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;
const PG_CLIENT_GONE =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|Cannot use a pool after calling end|driver has already been destroyed|Client was closed/;
/** 55000 is also other things; on connecting it is a database closed to connections (maintenance). */
const PG_NOT_ACCEPTING = /is not currently accepting connections/;

/** True for errors that mean "the database cannot serve now" (503), not a bug (500). */
export function isDatabaseUnavailable(e: unknown): boolean {
  const err = e as DriverError | null | undefined;
  const code = err?.code;
  if (typeof code === 'string' && (SQLITE_UNAVAILABLE.test(code) || NODE_NET.test(code))) return true;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && PG_UNAVAILABLE.test(code)) return true;
  if (code === '55000' && e instanceof Error && PG_NOT_ACCEPTING.test(e.message)) return true;
  if (e instanceof TypeError && /database connection is not open/.test(e.message)) return true;
  return e instanceof Error && typeof code !== 'string' && PG_CLIENT_GONE.test(e.message);
}

/** PostgreSQL: the serializable transaction must start again (40001), or it lost a deadlock (40P01). */
export function isSerializationFailure(e: unknown): boolean {
  const code = (e as DriverError | null | undefined)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * True when `e` is a unique key (a primary key, a UNIQUE constraint or a unique index) of `table`
 * on exactly `columns` refusing a row. SQLite names the columns in its message ("UNIQUE constraint
 * failed: invoices.merchant_id, invoices.order_id"); PostgreSQL in the error's table and detail
 * ("Key (merchant_id, order_id)=(…) already exists").
 */
export function isUniqueViolation(e: unknown, table: string, columns: readonly string[]): boolean {
  const err = e as DriverError | null | undefined;
  if (err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const named = /constraint failed: (.*)$/.exec(String(err.message ?? ''))?.[1];
    return named === columns.map((c) => `${table}.${c}`).join(', ');
  }
  if (err?.code === '23505') {
    const key = /^Key \((.*?)\)=/.exec(String(err.detail ?? ''))?.[1];
    return err.table === table && key === columns.join(', ');
  }
  return false;
}

/**
 * True when the order-id space of a merchant refused the row (migration 0053's triggers): the
 * order id belongs to another invoice of the merchant in the other table (a /v1 invoice and a
 * page invoice share one space).
 */
export function isOrderSpaceConflict(e: unknown): boolean {
  const err = e as DriverError | null | undefined;
  const trigger = err?.code === 'SQLITE_CONSTRAINT_TRIGGER' || err?.code === 'P0001';
  return trigger && /^order_id_space:/.test(String(err?.message ?? ''));
}
