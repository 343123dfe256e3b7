/**
 * The exceptions table (docs/exceptions.md): opened, updated and dropped inside the transaction
 * that writes their cause, resolved by a person, a refund or a lifted hold. At most one open row
 * per subject (invoice, else payout, else deposit), kind and asset: the partial unique indexes
 * `exceptions_open_per_*` (migration 0060).
 */
import type { ExpressionBuilder } from 'kysely';
import type { Clock } from '../clock.js';
import type { Executor, Tx } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { uuidv7 } from '../db/ids.js';
import type { ExceptionKind, ExceptionsTable } from '../db/tables/exceptions.js';
import { AppError } from '../errors.js';
import { afterKey, type KeysetKey } from '../db/keyset.js';
import { LIVE } from '../refunds/store.js';

export type ExceptionRow = ExceptionsTable;

/** What an exception is about; the subject's ids (null where they do not apply). */
export interface ExceptionSubject {
  kind: ExceptionKind;
  merchantId: string | null;
  invoiceId?: string | null;
  payoutId?: string | null;
  depositId?: string | null;
  asset: string;
  decimals: number;
}

/** The open exception of a subject, if any. */
export async function findOpen(db: Executor, s: ExceptionSubject): Promise<ExceptionRow | undefined> {
  let q = db
    .selectFrom('exceptions')
    .selectAll()
    .where('kind', '=', s.kind)
    .where('asset', '=', s.asset)
    .where('resolved_at', 'is', null);
  if (s.invoiceId) q = q.where('invoice_id', '=', s.invoiceId);
  else if (s.payoutId) q = q.where('payout_id', '=', s.payoutId).where('invoice_id', 'is', null);
  else
    q = q
      .where('deposit_id', '=', s.depositId ?? '')
      .where('invoice_id', 'is', null)
      .where('payout_id', 'is', null);
  return q.executeTakeFirst();
}

/**
 * Another feature's reaction to a new exception (not to an update of an open one), run in the
 * transaction that opens it. Registered by the composition (src/mail/wiring.ts).
 */
export type ExceptionListener = (trx: Tx, clock: Clock, row: ExceptionRow) => Promise<void>;

const opened: ExceptionListener[] = [];

export function onExceptionOpened(listener: ExceptionListener): void {
  if (!opened.includes(listener)) opened.push(listener);
}

/** Opens the subject's exception with `amount`, or sets the amount of the open one. */
export async function upsertOpen(trx: Tx, clock: Clock, s: ExceptionSubject, amount: bigint): Promise<ExceptionRow> {
  const now = clock.now().toISOString();
  const open = await findOpen(trx, s);
  if (open) {
    if (open.amount !== amount.toString())
      await trx
        .updateTable('exceptions')
        .set({ amount: amount.toString(), updated_at: now })
        .where('id', '=', open.id)
        .execute();
    return { ...open, amount: amount.toString(), updated_at: now };
  }
  const row: ExceptionRow = {
    id: uuidv7(),
    kind: s.kind,
    merchant_id: s.merchantId,
    invoice_id: s.invoiceId ?? null,
    payout_id: s.payoutId ?? null,
    deposit_id: s.depositId ?? null,
    asset: s.asset,
    amount: amount.toString(),
    decimals: s.decimals,
    created_at: now,
    updated_at: now,
    resolved_at: null,
    resolved_by: null,
    resolution_note: null,
    refund_id: null,
  };
  await trx.insertInto('exceptions').values(row).execute();
  for (const listener of opened) await listener(trx, clock, row);
  return row;
}

/** Only exceptions no live refund cites may be dropped: the refund keeps its exception to resolve. */
export function uncited(eb: ExpressionBuilder<DB, 'exceptions'>) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('refunds')
        .select('refunds.id')
        .whereRef('refunds.exception_id', '=', 'exceptions.id')
        .where('refunds.status', 'in', LIVE),
    ),
  );
}

/**
 * Removes an open exception whose cause is gone (a fork orphaned it, or the invoice's status no
 * longer shows it); a resolved one stays, as does one a refund cites.
 */
export async function dropOpen(trx: Tx, id: string): Promise<void> {
  await trx
    .deleteFrom('exceptions')
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .where('refund_id', 'is', null)
    .where(uncited)
    .execute();
}

export async function findException(db: Executor, id: string): Promise<ExceptionRow | undefined> {
  return db.selectFrom('exceptions').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface Resolution {
  note: string;
  /** The account id, operator token id, `cli:<user>` or `system`. */
  by: string;
  refundId?: string | null;
}

/**
 * Resolves an open exception (compare-and-set on `resolved_at`): 404 exception_not_found when
 * there is none with this id, 409 invalid_state when it is resolved already. A refund that is sent
 * calls this with its id in the refund's own transaction.
 */
export async function resolveException(trx: Tx, clock: Clock, id: string, r: Resolution): Promise<ExceptionRow> {
  const row = await findException(trx, id);
  if (!row) throw new AppError('exception_not_found', `No exception ${id}`);
  const now = clock.now().toISOString();
  const patch = {
    resolved_at: now,
    resolved_by: r.by,
    resolution_note: r.note,
    refund_id: r.refundId ?? null,
    updated_at: now,
  };
  const done = await trx
    .updateTable('exceptions')
    .set(patch)
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .executeTakeFirst();
  if (done.numUpdatedRows === 0n) throw new AppError('invalid_state', `Exception ${id} is resolved already`);
  return { ...row, ...patch };
}

export interface ExceptionFilter {
  merchantId?: string;
  kinds?: readonly ExceptionKind[];
  kind?: ExceptionKind;
  open?: boolean;
  invoiceId?: string;
  limit: number;
  after: KeysetKey | null;
}

/** Newest first, keyset pages over (created_at, id). */
export async function listExceptions(db: Executor, f: ExceptionFilter): Promise<ExceptionRow[]> {
  let q = db.selectFrom('exceptions').selectAll();
  if (f.merchantId !== undefined) q = q.where('merchant_id', '=', f.merchantId);
  if (f.invoiceId !== undefined) q = q.where('invoice_id', '=', f.invoiceId);
  if (f.kinds !== undefined) q = q.where('kind', 'in', [...f.kinds]);
  if (f.kind !== undefined) q = q.where('kind', '=', f.kind);
  if (f.open !== undefined) q = q.where('resolved_at', f.open ? 'is' : 'is not', null);
  const after = f.after;
  if (after) q = q.where((eb) => afterKey(eb, 'created_at', 'id', after, 'desc'));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
}

/** How many of the merchant's exceptions of `kinds` are open. */
export async function countOpen(db: Executor, merchantId: string, kinds: readonly ExceptionKind[]): Promise<number> {
  const r = await db
    .selectFrom('exceptions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('merchant_id', '=', merchantId)
    .where('kind', 'in', [...kinds])
    .where('resolved_at', 'is', null)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}
