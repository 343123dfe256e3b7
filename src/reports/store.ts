/**
 * SQL of the reports: keyset batches over a period, ordered by time then id, each one index range
 * (migration 0050's `invoices_period`, `deposits_period`, `ledger_entries_period`; payouts'
 * `payouts_created`). A batch starts strictly after the last row of the previous one, so a report
 * never holds more than one batch and never reads a row twice.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool, type StringReference } from 'kysely';
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

/**
 * The rows of a batch, for `.where((eb) => inBatch(eb, db, time, id, q))`: before the period's end,
 * from its start or strictly after the previous batch's last row, of the merchant when one is named.
 */
function inBatch<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  db: Executor,
  time: StringReference<DB, TB>,
  id: StringReference<DB, TB>,
  q: BatchQuery,
): Expression<SqlBool> {
  const t = eb.ref(time);
  return eb.and([
    sql<SqlBool>`${t} < ${q.period.to}`,
    q.after ? afterKey(eb, time, id, q.after, 'asc') : sql<SqlBool>`${t} >= ${q.period.from}`,
    ...(q.merchantId === null ? [] : [sql<SqlBool>`${byValue(db, 'merchant_id')} = ${q.merchantId}`]),
  ]);
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
  return db
    .selectFrom('invoices')
    .select(INVOICE_READ)
    .where((eb) => inBatch(eb, db, 'created_at', 'id', q))
    .orderBy('created_at')
    .orderBy('id')
    .limit(q.limit)
    .execute();
}

/**
 * What the live deposits of these invoices show, by invoice id: their transaction hashes in chain
 * order and the service fee charged (what the credited ones brought less what they credited).
 */
export async function invoicesPaid(
  db: Executor,
  invoiceIds: string[],
): Promise<Map<string, { txHashes: string[]; feeCharged: bigint }>> {
  const byInvoice = new Map<string, { txHashes: string[]; feeCharged: bigint }>();
  if (invoiceIds.length === 0) return byInvoice;
  const rows = await db
    .selectFrom('deposits')
    .select(['invoice_id', 'tx_hash', 'amount', 'credited_amount'])
    .where('invoice_id', 'in', invoiceIds)
    .where('status', '!=', 'orphaned')
    .orderBy('invoice_id')
    .orderBy('block_number')
    .orderBy('tx_hash')
    .orderBy('log_index')
    .execute();
  for (const r of rows) {
    const paid = byInvoice.get(r.invoice_id as string) ?? { txHashes: [], feeCharged: 0n };
    paid.txHashes.push(r.tx_hash);
    if (r.credited_amount !== null) paid.feeCharged += BigInt(r.amount) - BigInt(r.credited_amount);
    byInvoice.set(r.invoice_id as string, paid);
  }
  return byInvoice;
}

/** Merchants' names by id, read once per id: `names` is filled with those it lacks. */
export async function fillMerchantNames(
  db: Executor,
  ids: Iterable<string>,
  names: Map<string, string>,
): Promise<void> {
  const missing = [...new Set(ids)].filter((id) => !names.has(id));
  for (let i = 0; i < missing.length; i += 500) {
    const rows = await db
      .selectFrom('merchants')
      .select(['id', 'name'])
      .where('id', 'in', missing.slice(i, i + 500))
      .execute();
    for (const r of rows) names.set(r.id, r.name);
  }
}

export async function payoutBatch(db: Executor, q: BatchQuery): Promise<PayoutReportRow[]> {
  return db
    .selectFrom('payouts')
    .select(PAYOUT_READ)
    .where((eb) => inBatch(eb, db, 'created_at', 'id', q))
    .orderBy('created_at')
    .orderBy('id')
    .limit(q.limit)
    .execute();
}

/** Deposits by block time; orphaned ones (their block left the chain) are not money received. */
export async function depositBatch(db: Executor, q: BatchQuery): Promise<DepositReportRow[]> {
  return db
    .selectFrom('deposits')
    .select(DEPOSIT_READ)
    .where((eb) => inBatch(eb, db, 'block_time', 'id', q))
    .where(byValue(db, 'status'), '!=', 'orphaned')
    .orderBy('block_time')
    .orderBy('id')
    .limit(q.limit)
    .execute();
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
