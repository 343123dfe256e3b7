/**
 * Settlement of one invoice inside the watcher's write transaction: books the credit of its
 * newly final deposits (one ledger entry per deposit, `deposit:<tx>:<log>`, only the part above
 * the invoice's service fee), recomputes amount_received and amount_credited, derives the status
 * and records `invoice.<status>` when it changed. The status compare-and-set comes first.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import { depositRef, liveDepositsOfInvoice, markCredited, type DepositRow } from '../deposits/store.js';
import { liveDepositViews } from '../deposits/view.js';
import { post } from '../ledger/service.js';
import { syncInvoiceExceptions } from '../exceptions/invoices.js';
import { recordEvent, subjectEventCount } from '../webhooks/outbox.js';
import { deriveStatus, invoiceCredit, statusPath } from './lifecycle.js';
import { invoiceView } from './view.js';

export interface SettleContext {
  clock: Clock;
  /** Time of the last block scanned; null before the first scan. */
  horizon: string | null;
}

/** Books the not yet credited final, confirmed deposits; returns them updated. */
async function creditDeposits(
  trx: Tx,
  ctx: SettleContext,
  merchantId: string,
  asset: string,
  fee: bigint,
  deposits: DepositRow[],
): Promise<bigint> {
  const now = ctx.clock.now().toISOString();
  let credited = deposits.filter((d) => d.credited_at !== null).reduce((t, d) => t + BigInt(d.amount), 0n);
  for (const d of deposits) {
    if (d.credited_at !== null || d.final !== 1 || d.status !== 'confirmed') continue;
    const share = invoiceCredit(credited + BigInt(d.amount), fee) - invoiceCredit(credited, fee);
    credited += BigInt(d.amount);
    if (share > 0n) {
      await post(trx, ctx.clock, {
        merchantId,
        asset,
        kind: 'credit',
        amount: share,
        sourceRef: depositRef(d),
        memo: `invoice ${d.invoice_id}`,
        actor: 'system',
      });
    }
    await markCredited(trx, d.id, share, null, now);
    d.credited_at = now;
    d.credited_amount = share.toString();
  }
  return invoiceCredit(credited, fee);
}

/** Brings one invoice up to date with its deposits; true when its status changed. */
export async function settleInvoice(trx: Tx, ctx: SettleContext, invoiceId: string): Promise<boolean> {
  const inv = await trx.selectFrom('invoices').selectAll().where('id', '=', invoiceId).executeTakeFirst();
  if (!inv) return false;
  const deposits = await liveDepositsOfInvoice(trx, invoiceId);
  const credited = await creditDeposits(trx, ctx, inv.merchant_id, inv.asset, BigInt(inv.service_fee_amount), deposits);
  const received = deposits.reduce((t, d) => t + BigInt(d.amount), 0n);
  const status = deriveStatus({
    expected: BigInt(inv.amount_expected),
    expiresAt: inv.expires_at,
    deposits,
    horizon: ctx.horizon,
  });
  const now = ctx.clock.now().toISOString();
  const changed = status !== inv.status;
  const amounts = { amount_received: received.toString(), amount_credited: credited.toString() };
  if (!changed && amounts.amount_received === inv.amount_received && amounts.amount_credited === inv.amount_credited)
    return false;
  const r = await trx
    .updateTable('invoices')
    .set({ status, ...amounts, updated_at: now })
    .where('id', '=', invoiceId)
    .where('status', '=', inv.status)
    .executeTakeFirst();
  if (r.numUpdatedRows === 0n) return false;
  await syncInvoiceExceptions(trx, ctx.clock, inv, status, deposits);
  if (!changed) return false;
  // A status can be entered again after a fork: the key counts this invoice's events so far.
  const n = await subjectEventCount(trx, invoiceId);
  const views = liveDepositViews(deposits);
  const inTime = deposits.some((d) => d.late === 0);
  for (const [i, step] of statusPath(inv.status, status, inTime).entries()) {
    const view = invoiceView({ ...inv, status: step, ...amounts, updated_at: now }, views);
    await recordEvent(trx, ctx.clock, {
      merchantId: inv.merchant_id,
      type: `invoice.${step}`,
      subjectId: invoiceId,
      data: view,
      key: `invoice:${invoiceId}:${step}:${n + i}`,
    });
  }
  return true;
}
