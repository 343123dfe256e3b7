/**
 * Exceptions of deposits, inside the watcher's write transaction: `foreign_asset` (another asset
 * than an open invoice's, sent to its address, from the asset's minimum deposit up: below it is
 * dust, possibly address poisoning), `unattributed` (a payment to an address of a restore's gap).
 * A fork that orphans the deposit takes its amount back out, and drops the exception at zero.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import type { DepositRow } from '../deposits/store.js';
import { dropOpen, uncited, upsertOpen, type ExceptionRow } from './store.js';

/** Statuses of an invoice still waiting for its payment. */
const OPEN_STATUSES = ['created', 'seen'] as const;

/** The open invoice whose address a standalone deposit of another asset reached, if any. */
async function openInvoiceAt(trx: Tx, d: DepositRow) {
  return trx
    .selectFrom('invoices')
    .select(['id', 'merchant_id', 'asset', 'expires_at'])
    .where('address', '=', d.address)
    .where('merchant_id', '=', d.merchant_id)
    .where('asset', '!=', d.asset)
    .where('status', 'in', [...OPEN_STATUSES])
    .where('expires_at', '>=', d.block_time)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** The open foreign_asset exception a standalone deposit counts in, if any. */
async function openForeignOf(trx: Tx, d: DepositRow): Promise<ExceptionRow | undefined> {
  return trx
    .selectFrom('exceptions as e')
    .innerJoin('invoices as i', 'i.id', 'e.invoice_id')
    .selectAll('e')
    .where('e.kind', '=', 'foreign_asset')
    .where('e.asset', '=', d.asset)
    .where('e.resolved_at', 'is', null)
    .where('i.address', '=', d.address)
    .executeTakeFirst();
}

/** A standalone deposit just recorded (or found again after a fork): counted in its invoice's exception. */
export async function foreignDeposit(trx: Tx, clock: Clock, d: DepositRow, minimum: bigint): Promise<void> {
  if (d.invoice_id !== null || BigInt(d.amount) < minimum) return;
  const inv = await openInvoiceAt(trx, d);
  if (!inv) return;
  const subject = {
    kind: 'foreign_asset' as const,
    merchantId: d.merchant_id,
    invoiceId: inv.id,
    depositId: d.id,
    asset: d.asset,
    decimals: d.decimals,
  };
  const open = await openForeignOf(trx, d);
  await upsertOpen(trx, clock, subject, BigInt(open?.amount ?? '0') + BigInt(d.amount));
}

/** A fork orphaned standalone deposits: their amounts leave the exceptions they counted in. */
export async function orphanForeignDeposits(trx: Tx, clock: Clock, orphaned: DepositRow[]): Promise<void> {
  for (const d of orphaned) {
    if (d.invoice_id !== null) continue;
    const open = await openForeignOf(trx, d);
    if (!open) continue;
    const left = BigInt(open.amount) - BigInt(d.amount);
    if (left > 0n) {
      await trx
        .updateTable('exceptions')
        .set({ amount: left.toString(), updated_at: clock.now().toISOString() })
        .where('id', '=', open.id)
        .execute();
    } else await dropOpen(trx, open.id);
  }
}

/** A payment to an address of a restore's gap: the operator's exception, one per deposit. */
export async function unattributedDeposit(
  trx: Tx,
  clock: Clock,
  d: { id: number; asset: string; decimals: number; amount: string },
): Promise<void> {
  const subject = {
    kind: 'unattributed' as const,
    merchantId: null,
    depositId: String(d.id),
    asset: d.asset,
    decimals: d.decimals,
  };
  await upsertOpen(trx, clock, subject, BigInt(d.amount));
}

/** A fork removed gap payments: their open exceptions go with them. */
export async function dropUnattributedExceptions(trx: Tx, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .deleteFrom('exceptions')
    .where('kind', '=', 'unattributed')
    .where('deposit_id', 'in', ids.map(String))
    .where('resolved_at', 'is', null)
    .where('refund_id', 'is', null)
    .where(uncited)
    .execute();
}
