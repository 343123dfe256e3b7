/**
 * Step 1, pick: approved → queued. In the same transaction the whitelist entry must still exist
 * (else rejected) and the merchant be enabled (else it waits): queue.ts. A payout held since a
 * restore is never picked: it may have been sent after the backup, and only the operator decides.
 */
import { writeTx } from '../../db/database.js';
import { WORKER_ACTOR, type PayoutWorkerContext } from './context.js';
import { queueApprovedPayout } from './queue.js';

export async function pickApproved(c: PayoutWorkerContext, signal: AbortSignal): Promise<boolean> {
  let moved = false;
  for (const row of await c.page('approved')) {
    if (signal.aborted) break;
    if (row.hold_reason) {
      await c.wait(row, row.hold_reason);
      continue;
    }
    const done = await writeTx(c.db, (trx) => queueApprovedPayout(trx, c.clock, row, WORKER_ACTOR));
    moved ||= done;
  }
  return moved;
}
