/**
 * What the watcher's write transaction does after recording new deposits: confirmations from the
 * head (`head − block + 1`), finality from the solid height, the merchant's confirmations policy,
 * credits of final deposits (never of a block that can still be forked away), orphaning on a fork,
 * expiry against the scan horizon, and the invoice statuses and events that follow.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import { creditStandalone, standaloneEvent } from '../deposits/service.js';
import { orphanForeignDeposits } from '../exceptions/deposits.js';
import { orphanAbove, unsettledDeposits, updateProgress } from '../deposits/store.js';
import { settleInvoice } from '../invoices/settlement.js';
import { overdueOpen } from '../invoices/store.js';

export interface ProgressContext {
  clock: Clock;
  defaultConfirmations: number;
  /** Time of the last block scanned (ISO). */
  horizon: string | null;
  head: number;
  solid: number;
  /** The highest block scanned on the current chain. */
  scannedTo: number;
  /** Deposits made final (and credited) in one transaction at most (default FINAL_PER_COMMIT). */
  finalLimit?: number;
}

/** Invoices past their expiry that may change status, settled per transaction at most. */
const OVERDUE_BATCH = 200;

/**
 * Deposits made final in one write transaction at most: about a second of settlement here
 * (`bench/flow.ts` stage 2 books ~1,700 a second). A catch-up's whole stretch becomes final when
 * the scan reaches the solid block (watcher.ts): its credits are booked in steps of this many,
 * each its own short transaction, rather than holding the writer for one long one.
 */
export const FINAL_PER_COMMIT = 2_000;

/**
 * The height up to which deposits become final in this transaction: `solid`, or lower, cut
 * between two blocks, so that at most `limit` deposits become final (a first block holding more
 * becomes final whole: the cut never stops progress). `rows` are in block order.
 */
export function finalHeight(rows: { final: number; block_number: number }[], solid: number, limit: number): number {
  let n = 0;
  let first: number | null = null;
  for (const d of rows) {
    if (d.final === 1 || d.block_number > solid) continue;
    first ??= d.block_number;
    if (++n > limit && d.block_number > first) return d.block_number - 1;
  }
  return solid;
}

/** Advances the deposits and settles what they touch; returns the height now final (≤ ctx.solid). */
export async function advanceDeposits(trx: Tx, ctx: ProgressContext, touched: Set<string>): Promise<number> {
  const now = ctx.clock.now().toISOString();
  const rows = await unsettledDeposits(trx, ctx);
  const solid = finalHeight(rows, ctx.solid, ctx.finalLimit ?? FINAL_PER_COMMIT);
  for (const d of rows) {
    // Progress never goes back while the deposit stays in its block (a fork orphans or moves it,
    // which resets it): a node behind a load balancer may answer a lower head or solid height than
    // the last one, and `confirmed → seen → confirmed` would send `confirmed` twice. A policy
    // raised later applies to deposits not yet confirmed.
    const confirmations = Math.max(d.confirmations, ctx.head - d.block_number + 1, 0);
    const final = d.final === 1 || d.block_number <= solid ? 1 : 0;
    const status =
      d.status === 'confirmed' || confirmations >= (d.policy ?? ctx.defaultConfirmations) ? 'confirmed' : 'seen';
    const changed = confirmations !== d.confirmations || final !== d.final || status !== d.status;
    if (changed) await updateProgress(trx, d.id, { confirmations, final, status }, now);
    const row = { ...d, confirmations, final, status } as const;
    if (d.invoice_id !== null) {
      if (changed || (final === 1 && status === 'confirmed' && d.credited_at === null)) touched.add(d.invoice_id);
      continue;
    }
    if (status === 'confirmed' && d.status !== 'confirmed')
      await standaloneEvent(trx, ctx.clock, row, 'deposit.confirmed');
    await creditStandalone(trx, ctx, row);
  }
  if (ctx.horizon) {
    for (const r of await overdueOpen(trx, ctx.horizon, OVERDUE_BATCH)) touched.add(r.id);
  }
  for (const id of touched) await settleInvoice(trx, { clock: ctx.clock, horizon: ctx.horizon }, id);
  return solid;
}

/** Orphans the deposits of blocks above the common ancestor; returns the invoices they belonged to. */
export async function orphanDropped(trx: Tx, ctx: { clock: Clock }, ancestor: number): Promise<Set<string>> {
  const rows = await orphanAbove(trx, ancestor, ctx.clock.now().toISOString());
  await orphanForeignDeposits(trx, ctx.clock, rows);
  return new Set(rows.flatMap((r) => (r.invoice_id ? [r.invoice_id] : [])));
}
