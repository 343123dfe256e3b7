/**
 * SQL of the reports: keyset batches over a period, ordered by time then id, each one index range
 * (migration 0050's `invoices_period`, `deposits_period`, `ledger_entries_period`; payouts'
 * `payouts_created`). A batch starts strictly after the last row of the previous one, so a report
 * never holds more than one batch and never reads a row twice.
 */
import type { Executor } from '../db/database.js';
import { afterKey, type KeysetKey } from '../db/keyset.js';
import { byValue } from '../db/portable.js';
import type { DepositsTable, InvoicesTable, LedgerEntriesTable, PayoutsTable } from '../db/schema.js';
import type { Period } from './period.js';

/** Where the next batch starts: after this (time, id). */
export type After = KeysetKey;

/**
 * `merchant_id` and `status` are compared by value (portable.ts): without ANALYZE statistics (serve
 * runs none) SQLite would read a merchant's rows through an index on merchant_id and sort all of
 * them, instead of walking the period's index in order and filtering there (the period indexes
 * carry merchant_id for it).
 */

export interface BatchQuery {
  period: Period;
  merchantId: string | null;
  after: After | null;
  limit: number;
}

/** The columns a report row shows (and its asset's decimals): no more is read. */
const INVOICE_READ = [
  'id',
  'created_at',
  'merchant_id',
  'order_id',
  'status',
  'asset',
  'decimals',
  'amount_requested',
  'amount_expected',
  'amount_received',
  'amount_credited',
  'service_fee_payer',
  'service_fee_percent',
  'service_fee_amount',
  'address',
  'external_user_id',
  'expires_at',
] as const satisfies readonly (keyof InvoicesTable)[];
export type InvoiceReportRow = Pick<InvoicesTable, (typeof INVOICE_READ)[number]>;

const PAYOUT_READ = [
  'id',
  'created_at',
  'merchant_id',
  'reference',
  'status',
  'asset',
  'decimals',
  'amount',
  'fee_amount',
  'fee_charged',
  'to_address',
  'tx_hash',
] as const satisfies readonly (keyof PayoutsTable)[];
export type PayoutReportRow = Pick<PayoutsTable, (typeof PAYOUT_READ)[number]>;

const DEPOSIT_READ = [
  'id',
  'block_time',
  'merchant_id',
  'asset',
  'decimals',
  'amount',
  'tx_hash',
  'log_index',
  'block_number',
  'from_address',
  'address',
  'invoice_id',
  'external_user_id',
  'status',
  'late',
  'credited_amount',
  'credited_at',
] as const satisfies readonly (keyof DepositsTable)[];
export type DepositReportRow = Pick<DepositsTable, (typeof DEPOSIT_READ)[number]>;

export async function invoiceBatch(db: Executor, q: BatchQuery): Promise<InvoiceReportRow[]> {
  let query = db.selectFrom('invoices').select(INVOICE_READ).where('created_at', '<', q.period.to);
  const after = q.after;
  query = after
    ? query.where((eb) => afterKey(eb, 'created_at', 'id', after, 'asc'))
    : query.where('created_at', '>=', q.period.from);
  if (q.merchantId !== null) query = query.where(byValue(db, 'merchant_id'), '=', q.merchantId);
  return query.orderBy('created_at').orderBy('id').limit(q.limit).execute();
}

/** Transaction hashes of the live deposits of these invoices, in chain order, by invoice id. */
export async function invoiceTxHashes(db: Executor, invoiceIds: string[]): Promise<Map<string, string[]>> {
  const byInvoice = new Map<string, string[]>();
  if (invoiceIds.length === 0) return byInvoice;
  const rows = await db
    .selectFrom('deposits')
    .select(['invoice_id', 'tx_hash'])
    .where('invoice_id', 'in', invoiceIds)
    .where('status', '!=', 'orphaned')
    .orderBy('invoice_id')
    .orderBy('block_number')
    .orderBy('tx_hash')
    .orderBy('log_index')
    .execute();
  for (const r of rows) {
    const list = byInvoice.get(r.invoice_id as string) ?? [];
    list.push(r.tx_hash);
    byInvoice.set(r.invoice_id as string, list);
  }
  return byInvoice;
}

export async function payoutBatch(db: Executor, q: BatchQuery): Promise<PayoutReportRow[]> {
  let query = db.selectFrom('payouts').select(PAYOUT_READ).where('created_at', '<', q.period.to);
  const after = q.after;
  query = after
    ? query.where((eb) => afterKey(eb, 'created_at', 'id', after, 'asc'))
    : query.where('created_at', '>=', q.period.from);
  if (q.merchantId !== null) query = query.where(byValue(db, 'merchant_id'), '=', q.merchantId);
  return query.orderBy('created_at').orderBy('id').limit(q.limit).execute();
}

/** Deposits by block time; orphaned ones (their block left the chain) are not money received. */
export async function depositBatch(db: Executor, q: BatchQuery): Promise<DepositReportRow[]> {
  let query = db
    .selectFrom('deposits')
    .select(DEPOSIT_READ)
    .where('block_time', '<', q.period.to)
    .where(byValue(db, 'status'), '!=', 'orphaned');
  const after = q.after;
  query = after
    ? query.where((eb) => afterKey(eb, 'block_time', 'id', after, 'asc'))
    : query.where('block_time', '>=', q.period.from);
  if (q.merchantId !== null) query = query.where(byValue(db, 'merchant_id'), '=', q.merchantId);
  return query.orderBy('block_time').orderBy('id').limit(q.limit).execute();
}

export interface Account {
  merchant_id: string;
  asset: string;
}

/** The first ledger account (merchant, asset) after `after`, in that order; one index search. */
export async function nextAccount(
  db: Executor,
  merchantId: string | null,
  after: Account | null,
): Promise<Account | undefined> {
  let query = db.selectFrom('ledger_entries').select(['merchant_id', 'asset']);
  if (merchantId !== null) {
    // The merchant's accounts: its next asset, a seek in the index (a row value would walk every
    // entry of the merchant's earlier assets).
    query = query.where('merchant_id', '=', merchantId);
    if (after) query = query.where('asset', '>', after.asset);
  } else if (after)
    query = query.where((eb) => eb(eb.refTuple('merchant_id', 'asset'), '>', eb.tuple(after.merchant_id, after.asset)));
  return query.orderBy('merchant_id').orderBy('asset').limit(1).executeTakeFirst();
}

/** The account's last entry dated before `before`: its balance is the account's at that moment. */
export async function lastEntryBefore(
  db: Executor,
  account: Account,
  before: string,
): Promise<Pick<LedgerEntriesTable, 'seq' | 'balance_after'> | undefined> {
  return db
    .selectFrom('ledger_entries')
    .select(['seq', 'balance_after'])
    .where('merchant_id', '=', account.merchant_id)
    .where('asset', '=', account.asset)
    .where('created_at', '<', before)
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export type LedgerEntryRow = Pick<
  LedgerEntriesTable,
  'seq' | 'kind' | 'amount' | 'balance_after' | 'payout_id' | 'source_ref' | 'created_at'
> & { id: number };

/** Entries of an account with seq in (afterSeq, throughSeq], oldest first, at most `limit`. */
export async function entryBatch(
  db: Executor,
  account: Account,
  afterSeq: number,
  throughSeq: number,
  limit: number,
): Promise<LedgerEntryRow[]> {
  return db
    .selectFrom('ledger_entries')
    .select(['id', 'seq', 'kind', 'amount', 'balance_after', 'payout_id', 'source_ref', 'created_at'])
    .where('merchant_id', '=', account.merchant_id)
    .where('asset', '=', account.asset)
    .where('seq', '>', afterSeq)
    .where('seq', '<=', throughSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}
