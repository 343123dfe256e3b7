/**
 * What the page needs to tell the truth about a payment (docs/page-invoices.md): what is still due
 * and what was paid beyond the amount, in bigint base units; the deposits of another catalog asset
 * to the invoice's address (standalone deposits credited to the merchant, never this invoice's
 * payment); and until when a token can still be chosen.
 */
import type { Executor } from '../db/database.js';
import type { InvoiceRow } from '../invoices/store.js';
import { formatAmount, formatUnits } from '../money.js';
import type { PageInvoiceRow } from './store.js';

export interface Balance {
  amount_due: string | null;
  amount_overpaid: string | null;
}

/** amount_expected − amount_received (never below 0) and the excess (0 when none); null before the choice. */
export function balanceOf(invoice: InvoiceRow | undefined): Balance {
  if (!invoice) return { amount_due: null, amount_overpaid: null };
  const gap = BigInt(invoice.amount_expected) - BigInt(invoice.amount_received);
  return {
    amount_due: formatAmount(gap > 0n ? gap : 0n, invoice.decimals),
    amount_overpaid: formatAmount(gap < 0n ? -gap : 0n, invoice.decimals),
  };
}

export interface ForeignDeposit {
  asset: string;
  amount: string;
  tx_hash: string;
}

/** Whether the invoice's address is its user's permanent one (a per_user merchant's). */
export async function isPermanentAddress(db: Executor, invoice: InvoiceRow): Promise<boolean> {
  const row = await db
    .selectFrom('deposit_addresses')
    .select('external_user_id')
    .where('address', '=', invoice.address)
    .executeTakeFirst();
  return row?.external_user_id != null;
}

/**
 * Live transfers of another asset to the invoice's address since the invoice was opened; on a
 * permanent address (shared by the user's invoices) only those until its term, so another
 * invoice's mistake is not shown on this one.
 */
export async function foreignDepositsOf(
  db: Executor,
  invoice: InvoiceRow,
  permanent: boolean,
): Promise<ForeignDeposit[]> {
  let q = db
    .selectFrom('deposits')
    .select(['asset', 'amount', 'decimals', 'tx_hash'])
    .where('address', '=', invoice.address)
    .where('asset', '!=', invoice.asset)
    .where('status', '!=', 'orphaned')
    .where('block_time', '>=', invoice.created_at);
  if (permanent) q = q.where('block_time', '<=', invoice.expires_at);
  const rows = await q.orderBy('block_number').orderBy('tx_hash').orderBy('log_index').execute();
  return rows.map((r) => ({ asset: r.asset, amount: formatUnits(r.amount, r.decimals), tx_hash: r.tx_hash }));
}

/**
 * The last moment a token can be chosen: the term less min(PAY_MIN_TIME_TO_PAY, half the
 * invoice's term), so a payment started on the page has time to arrive.
 */
export function chooseBy(page: PageInvoiceRow, minTimeToPayMs: number): Date {
  const end = Date.parse(page.expires_at);
  const term = end - Date.parse(page.created_at);
  return new Date(end - Math.min(minTimeToPayMs, Math.floor(term / 2)));
}
