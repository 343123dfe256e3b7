/**
 * The exceptions an invoice's status shows, kept in step with it inside the settlement's
 * transaction (invoices/settlement.ts): `underpaid` (the shortfall), `overpaid` (confirmed or
 * settled above the price: the excess), `paid_late` (the late deposits). The status is derived
 * from the live deposits, so a fork that orphans the cause drops the open exception the same way.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import type { InvoiceStatus } from '../db/schema.js';
import type { ExceptionKind } from '../db/tables/exceptions.js';
import { dropOpen, findOpen, upsertOpen } from './store.js';

const INVOICE_KINDS = ['underpaid', 'overpaid', 'paid_late'] as const;

export interface InvoiceFacts {
  id: string;
  merchant_id: string;
  asset: string;
  decimals: number;
  amount_expected: string;
}

/** What each invoice kind's amount is under `status`; absent: the kind does not apply. */
export function invoiceExceptionAmounts(
  status: InvoiceStatus,
  expected: bigint,
  deposits: { amount: string; late: number }[],
): Map<ExceptionKind, bigint> {
  const received = deposits.reduce((t, d) => t + BigInt(d.amount), 0n);
  const out = new Map<ExceptionKind, bigint>();
  if (status === 'underpaid' && received < expected) out.set('underpaid', expected - received);
  if ((status === 'confirmed' || status === 'settled') && received > expected) out.set('overpaid', received - expected);
  if (status === 'paid_late') {
    const late = deposits.filter((d) => d.late === 1).reduce((t, d) => t + BigInt(d.amount), 0n);
    if (late > 0n) out.set('paid_late', late);
  }
  return out;
}

/** Opens, updates or drops the invoice's exceptions to match its status and live deposits. */
export async function syncInvoiceExceptions(
  trx: Tx,
  clock: Clock,
  inv: InvoiceFacts,
  status: InvoiceStatus,
  deposits: { amount: string; late: number }[],
): Promise<void> {
  const amounts = invoiceExceptionAmounts(status, BigInt(inv.amount_expected), deposits);
  for (const kind of INVOICE_KINDS) {
    const subject = { kind, merchantId: inv.merchant_id, invoiceId: inv.id, asset: inv.asset, decimals: inv.decimals };
    const amount = amounts.get(kind);
    if (amount === undefined) {
      const open = await findOpen(trx, subject);
      if (open) await dropOpen(trx, open.id);
      continue;
    }
    // Resolved already for this very amount (the owner dealt with it): not opened again.
    const same = await trx
      .selectFrom('exceptions')
      .select('id')
      .where('invoice_id', '=', inv.id)
      .where('kind', '=', kind)
      .where('amount', '=', amount.toString())
      .where('resolved_at', 'is not', null)
      .executeTakeFirst();
    if (!same) await upsertOpen(trx, clock, subject, amount);
  }
}
