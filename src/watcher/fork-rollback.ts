/**
 * The chain watcher's answer to a fork: the node's chain no longer holds the last block scanned,
 * so the scan goes back to the common ancestor, the deposits of the replaced blocks are
 * orphaned (deposit-progress.ts) and their transfers out of the hot wallet go with them. A block replaced at or below the final height stops the
 * watcher instead (stop.ts).
 */
import type { ChainBlockHeader } from '../chain/client.js';
import { writeTx } from '../db/database.js';
import { dropUnattributedAbove } from '../restore/unattributed-deposits.js';
import { advanceDeposits, orphanDropped } from './deposit-progress.js';
import { dropOutgoingAbove } from './hot-wallet.js';
import type { CursorWriter } from './range-commit.js';
import { finalityContradiction, stopWatcher } from './stop.js';
import { dropScannedAbove, lowestScanned, readCursor, scannedFrom, writeCursor, type Cursor } from './store.js';

/**
 * The node's chain no longer holds our last block: back to the common ancestor. A block the node
 * replaced at or below the final height stops the watcher instead (stop.ts), unless the operator
 * resumed after such a stop (`followNode`).
 */
export async function rollbackFork(
  w: CursorWriter,
  cursor: Cursor,
  head: ChainBlockHeader,
  solid: ChainBlockHeader,
  followNode: boolean,
): Promise<void> {
  const { s, lease } = w;
  const next = cursor.next_block;
  const low = (await lowestScanned(s.db)) ?? next - 1;
  const nodeBlocks = await s.chain.getScanBlocks(low, next);
  const stored = await scannedFrom(s.db, low);
  const contradiction = followNode ? null : finalityContradiction(stored, nodeBlocks, cursor.solid_number);
  if (contradiction) return stopWatcher(s, lease, cursor, contradiction);
  // No stored block still on the node's chain: the fork goes below everything kept (a first
  // scan that started at the head keeps nothing older), so the safe ancestor is the solid block,
  // which no fork can replace. Scanning again from there records nothing twice.
  // A node that answers no solid block (0) does not send the scan back to genesis.
  let ancestor = solid.number > 0 ? Math.min(low - 1, solid.number) : low - 1;
  let ancestorTime: number | null = ancestor === solid.number ? solid.timestamp : null;
  for (const b of stored) {
    if (nodeBlocks.find((n) => n.number === b.number)?.id === b.hash) {
      ancestor = b.number;
      ancestorTime = b.timestamp;
      break;
    }
  }
  // The scan horizon goes back to the ancestor's time: the replaced blocks' time is no longer
  // the chain's, and an invoice paid in time in one of them must not expire before the rescan
  // finds the payment again in the new blocks. Unknown (no stored ancestor): nothing expires
  // until the next range is scanned.
  const horizon = ancestorTime !== null && ancestorTime > 0 ? new Date(ancestorTime).toISOString() : null;
  s.logger.warn({ from: next - 1, ancestor }, 'chain watcher: fork detected; rolling back to the common ancestor');
  const ctx = { clock: s.clock, defaultConfirmations: s.config.confirmations };
  await writeTx(s.db, async (trx) => {
    if (lease) await lease.assertHeld(trx);
    const cur = await readCursor(trx);
    if (!cur || cur.next_block !== next) return;
    const touched = await orphanDropped(trx, ctx, ancestor);
    await dropUnattributedAbove(trx, ancestor);
    await dropOutgoingAbove(trx, ancestor);
    await dropScannedAbove(trx, ancestor);
    // As in commitRange(): a solid block above the ancestor (the rescan has not reached it) makes
    // nothing more final; what was final stays.
    const final = solid.number <= ancestor ? solid.number : Math.min(cur.solid_number, solid.number);
    const reached = await advanceDeposits(
      trx,
      { ...ctx, horizon, head: head.number, solid: final, scannedTo: ancestor, finalLimit: w.finalPerCommit },
      touched,
    );
    await writeCursor(trx, {
      ...cur,
      next_block: ancestor + 1,
      last_block_time: horizon,
      head_number: head.number,
      solid_number: reached,
      updated_at: s.clock.now().toISOString(),
    });
  });
}
