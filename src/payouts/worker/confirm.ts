/**
 * Step 4, confirm or re-sign: broadcast → confirmed | failed from the receipt in a solid block, or
 * back to queued (signed anew) once the transaction provably can never land (fate.ts). Only a
 * receipt that is not SUCCESS fails a payout, and a failed payout is never sent again. Each
 * payout is looked up once per solid height; now and then the same bytes are sent again in case
 * the node lost them from its pool.
 */
import type { TronTransactionJson } from '../../chain/client.js';
import type { TxOutcome } from '../../chain/outcome.js';
import type { PayoutRow } from '../store.js';
import { ids, type PayoutWorkerContext } from './context.js';
import { fateOf, resign, type Fate } from './fate.js';

/** Every REPOOL_EVERY-th look-up of a payout not yet solid also asks the node's pool. */
const REPOOL_EVERY = 10;

async function settle(
  c: PayoutWorkerContext,
  row: PayoutRow,
  outcome: Extract<TxOutcome, { state: 'success' | 'failed' }>,
): Promise<boolean> {
  c.checkedAt.delete(row.id);
  c.polls.delete(row.id);
  c.proofs.forget(row.id);
  const fee = outcome.info.fee.toString();
  const line = { ...ids(row), txid: row.tx_hash, network_fee_sun: fee };
  if (outcome.state === 'success') {
    const done = await c.move(row, {
      to: 'confirmed',
      patch: { network_fee: fee, wait_reason: null, hold_reason: null },
    });
    if (done) c.log.info(line, 'payout confirmed');
    return done;
  }
  const done = await c.move(row, {
    to: 'failed',
    patch: { network_fee: fee, fail_reason: outcome.reason, wait_reason: null, hold_reason: null },
  });
  // An error, not info: the operator looks at every failed payout.
  if (done)
    c.log.error({ ...line, receipt: outcome.reason }, 'payout failed on chain; reservation released, not re-sent');
  return done;
}

export async function confirmOrResign(c: PayoutWorkerContext, signal: AbortSignal): Promise<boolean> {
  const rows = await c.page('broadcast', c.batch * 4);
  if (rows.length === 0) return false;
  const solid = await c.chain.getSolidBlock();
  let moved = false;
  for (const row of rows) {
    if (signal.aborted) break;
    if ((c.checkedAt.get(row.id) ?? -1) >= solid.number) continue;
    let fate: Fate;
    try {
      fate = await fateOf(c, row, solid);
    } catch (err) {
      c.log.warn({ err, payout: row.id }, 'could not look the transaction up; next tick');
      break;
    }
    c.checkedAt.set(row.id, solid.number);
    if (fate.kind === 'landed') moved = (await settle(c, row, fate.outcome)) || moved;
    else if (fate.kind === 'dead') moved = (await resign(c, row)) || moved;
    else {
      const n = (c.polls.get(row.id) ?? 0) + 1;
      c.polls.set(row.id, n);
      // Now and then: did the node lose it from its pool (restart, fork)? Then the same bytes
      // again, harmless if it knows them.
      if (n % REPOOL_EVERY === 0 && !(await c.chain.getTransaction(row.tx_hash as string).catch(() => true))) {
        await c.lease.confirm();
        await c.chain.broadcast(JSON.parse(row.signed_tx as string) as TronTransactionJson).catch(() => undefined);
      }
    }
  }
  return moved;
}
