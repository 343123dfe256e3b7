/**
 * The rows of each report, in their fixed column order (docs/reports.md). A row is a plain object
 * whose keys are the columns in order: the JSON format prints it as it is, the CSV format prints
 * its values under a header of its keys (a time column's named `<column>_utc`, format.ts). Amounts
 * are decimal text of the row's asset (`formatUnits`, never a float); a value that does not apply
 * is null (an empty CSV cell). The merchant's name stands beside its id, for a reader who does not
 * know the ids.
 */
import type { LedgerKind } from '../db/schema.js';
import type { DepositReportRow, InvoiceReportRow, PayoutReportRow } from './store.js';
import { formatAmount, formatUnits } from '../money.js';

export const INVOICE_COLUMNS = [
  'invoice_id',
  'created_at',
  'merchant_id',
  'merchant_name',
  'order_id',
  'status',
  'asset',
  'amount_requested',
  'amount_expected',
  'amount_received',
  'amount_credited',
  'service_fee_payer',
  'service_fee_percent',
  'service_fee_charged',
  'address',
  'external_user_id',
  'expires_at',
  'tx_hashes',
] as const;

export type InvoiceRecord = Record<(typeof INVOICE_COLUMNS)[number], string | string[] | null>;

/**
 * What an invoice's deposits show: their transaction hashes in chain order, and the service fee
 * charged (Σ amount − credited over its credited deposits, in base units).
 */
export interface InvoicePaid {
  txHashes: string[];
  feeCharged: bigint;
}

export function invoiceRecord(r: InvoiceReportRow, paid: InvoicePaid | undefined, merchantName: string): InvoiceRecord {
  const amount = (units: string) => formatUnits(units, r.decimals);
  return {
    invoice_id: r.id,
    created_at: r.created_at,
    merchant_id: r.merchant_id,
    merchant_name: merchantName,
    order_id: r.order_id,
    status: r.status,
    asset: r.asset,
    amount_requested: amount(r.amount_requested),
    amount_expected: amount(r.amount_expected),
    amount_received: amount(r.amount_received),
    amount_credited: amount(r.amount_credited),
    service_fee_payer: r.service_fee_payer,
    service_fee_percent: r.service_fee_percent,
    // The fee as charged, not the quote: an unpaid invoice charged nothing.
    service_fee_charged: formatAmount(paid?.feeCharged ?? 0n, r.decimals),
    address: r.address,
    external_user_id: r.external_user_id,
    expires_at: r.expires_at,
    tx_hashes: paid?.txHashes ?? [],
  };
}

export const PAYOUT_COLUMNS = [
  'payout_id',
  'created_at',
  'merchant_id',
  'merchant_name',
  'reference',
  'status',
  'asset',
  'amount',
  'fee_amount',
  'fee_charged',
  'to_address',
  'tx_hash',
] as const;

export type PayoutRecord = Record<(typeof PAYOUT_COLUMNS)[number], string | null>;

export function payoutRecord(r: PayoutReportRow, merchantName: string): PayoutRecord {
  const amount = (units: string) => formatUnits(units, r.decimals);
  return {
    payout_id: r.id,
    created_at: r.created_at,
    merchant_id: r.merchant_id,
    merchant_name: merchantName,
    reference: r.reference,
    status: r.status,
    asset: r.asset,
    amount: amount(r.amount),
    fee_amount: amount(r.fee_amount),
    fee_charged: amount(r.fee_charged),
    to_address: r.to_address,
    // A payout signed again after its first transaction provably expired keeps only the last hash.
    tx_hash: r.tx_hash,
  };
}

export const DEPOSIT_COLUMNS = [
  'deposit_id',
  'block_time',
  'merchant_id',
  'merchant_name',
  'asset',
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
  'fee',
  'credited_at',
] as const;

export type DepositRecord = Record<(typeof DEPOSIT_COLUMNS)[number], string | number | boolean | null>;

export function depositRecord(r: DepositReportRow, merchantName: string): DepositRecord {
  const amount = (units: string) => formatUnits(units, r.decimals);
  const credited = r.credited_amount;
  return {
    deposit_id: r.id,
    block_time: r.block_time,
    merchant_id: r.merchant_id,
    merchant_name: merchantName,
    asset: r.asset,
    amount: amount(r.amount),
    tx_hash: r.tx_hash,
    log_index: r.log_index,
    block_number: r.block_number,
    from_address: r.from_address,
    address: r.address,
    invoice_id: r.invoice_id,
    external_user_id: r.external_user_id,
    status: r.status,
    late: r.late === 1,
    credited_amount: credited === null ? null : amount(credited),
    // The service fee this deposit paid: what it brought less what was credited for it.
    fee: credited === null ? null : formatAmount(BigInt(r.amount) - BigInt(credited), r.decimals),
    credited_at: r.credited_at,
  };
}

/** What booked a ledger entry: a deposit's credit, a payout's money, or an operator's correction. */
export type LedgerSource = 'deposit' | 'payout' | 'refund' | 'correction';

export function sourceOf(e: { payout_id: string | null; source_ref: string | null }): {
  source: LedgerSource;
  reference: string | null;
} {
  if (e.payout_id !== null) return { source: 'payout', reference: e.payout_id };
  if (e.source_ref?.startsWith('deposit:')) return { source: 'deposit', reference: e.source_ref.slice(8) };
  // A refund's reservation and its release (cancel, expiry, or moved to its payout).
  const refund = /^refund(?:-release)?:(.+)$/.exec(e.source_ref ?? '');
  if (refund) return { source: 'refund', reference: refund[1]! };
  if (e.source_ref?.startsWith('correction:')) return { source: 'correction', reference: e.source_ref.slice(11) };
  return { source: 'correction', reference: e.source_ref };
}

/** The signed change an entry makes to the balance (available + reserved), in base units. */
export function balanceChange(kind: LedgerKind, amount: bigint): bigint {
  if (kind === 'credit') return amount;
  if (kind === 'debit') return -amount;
  // A reservation or its release only moves money between available and reserved.
  return 0n;
}

export interface LedgerEntryRecord {
  entry_id: number;
  at: string;
  kind: LedgerKind;
  /** Signed decimal text: "+" never written, "-5" for a debit of 5, "0" for reserve/release. */
  amount: string;
  source: LedgerSource;
  reference: string | null;
}

export const LEDGER_CSV_COLUMNS = [
  'merchant_id',
  'merchant_name',
  'asset',
  'line',
  'entry_id',
  'at',
  'kind',
  'direction',
  'amount',
  'balance',
  'source',
  'reference',
] as const;

export type LedgerCsvRecord = Record<(typeof LEDGER_CSV_COLUMNS)[number], string | number | null>;

/** Which way an entry moves the balance: a filter for a spreadsheet beside the signed amount. */
export function directionOf(change: bigint): 'in' | 'out' | 'none' {
  return change > 0n ? 'in' : change < 0n ? 'out' : 'none';
}
