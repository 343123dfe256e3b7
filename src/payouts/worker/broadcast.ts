/**
 * Step 3, broadcast: signing → broadcast. The stored bytes are sent after commit, each time after a
 * fresh check of the lease (lease.confirm): a paused holder that resumes after a takeover stops
 * here, the bytes are the new holder's to send. A duplicate answer is fine. An unanswered or
 * refused broadcast looks the transaction up: landed (moved on), dead (signed anew), or tried again
 * next tick with the same bytes. After a crash a `signing` payout is simply broadcast again.
 */
import type { BroadcastResult, ChainBlockHeader, TronTransactionJson } from '../../chain/client.js';
import { isWorkerHalted } from '../halts.js';
import type { PayoutRow } from '../store.js';
import { ids, type PayoutWorkerContext } from './context.js';
import { fateOf, resign } from './fate.js';

async function sent(c: PayoutWorkerContext, row: PayoutRow): Promise<boolean> {
  const done = await c.move(row, { to: 'broadcast', patch: { wait_reason: null } });
  if (done) c.log.info({ ...ids(row), txid: row.tx_hash }, 'payout broadcast');
  return done;
}

export async function broadcastSigned(c: PayoutWorkerContext, signal: AbortSignal): Promise<boolean> {
  let moved = false;
  let solid: ChainBlockHeader | null = null;
  for (const row of await c.page('signing')) {
    if (signal.aborted) break;
    if (await isWorkerHalted(c.db, row.asset)) {
      await c.wait(row, 'payout worker halted before the broadcast (paygate payout resume --worker)');
      continue;
    }
    let result: BroadcastResult | null = null;
    // Stored under the fence when signed; sent only while the lease is still ours.
    await c.lease.confirm();
    try {
      result = await c.chain.broadcast(JSON.parse(row.signed_tx as string) as TronTransactionJson);
    } catch (err) {
      c.log.warn({ err, payout: row.id, txid: row.tx_hash }, 'broadcast unanswered; retried with the same bytes');
    }
    if (result?.ok) {
      moved = (await sent(c, row)) || moved;
      continue;
    }
    if (result && !result.ok) {
      await c.wait(row, `broadcast refused by the node: ${result.code} ${result.message}`.trim());
      if (result.retryable) continue;
    }
    try {
      solid ??= await c.chain.getSolidBlock();
      const fate = await fateOf(c, row, solid);
      if (fate.kind === 'landed') moved = (await sent(c, row)) || moved;
      else if (fate.kind === 'dead') moved = (await resign(c, row)) || moved;
    } catch (err) {
      c.log.warn({ err, payout: row.id }, 'could not look the transaction up');
    }
  }
  return moved;
}
