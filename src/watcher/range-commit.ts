/**
 * The chain watcher's write of a scanned range: one short transaction records the range's
 * deposits, the transfers out of the hot wallet (hot-wallet.ts), the scanned block ids and the
 * cursor, moves confirmations and finality on (deposit-progress.ts) and, after a restore, the
 * chain reading (restore/chain-reading.ts). It is written only while the cursor is where the scan
 * started.
 */
import type { ScanBlock } from '../chain/client.js';
import { writeTx } from '../db/database.js';
import { recordTransfer } from '../deposits/service.js';
import { recordUnattributedDeposit } from '../restore/unattributed-deposits.js';
import type { WorkerLease } from '../runtime/lease.js';
import type { Services } from '../services.js';
import type { MatchedTransfer } from './chain-match.js';
import { advanceDeposits } from './deposit-progress.js';
import { logUnknown, recordOutgoing, type OutgoingTransfer } from './hot-wallet.js';
import { advanceReading, readingPending } from '../restore/chain-reading.js';
import type { HotWalletTransfersTable } from '../db/tables/hot-wallet.js';
import { pruneScanned, readCursor, storeScanned, writeCursor, type Cursor } from './store.js';

/** What a write that moves the cursor takes: the services, the lease it holds, and its share of finality. */
export interface CursorWriter {
  s: Services;
  lease: WorkerLease | null;
  /** Deposits made final (credited) per write transaction at most. */
  finalPerCommit: number;
}

/**
 * One short write transaction: deposits, scanned hashes, cursor, progress, settlement. Deposits
 * count confirmations up to `chain.number` and are final up to `chain.solid` once it is
 * `checked` (else what was final stays); the blocks above it are kept to find a fork by. The
 * cursor records both, so that the next look at the head moves them on as soon as the node's
 * head and solid heights differ from them. True when deposits up to the final height are left
 * that this transaction's share did not make final.
 */
export async function commitRange(
  w: CursorWriter,
  cursor: Cursor,
  chain: { number: number; solid: number; checked: boolean },
  blocks: ScanBlock[],
  found: MatchedTransfer[],
  outgoing: OutgoingTransfer[] = [],
): Promise<boolean> {
  const { s, lease } = w;
  const last = blocks.at(-1);
  const scannedTo = last ? last.number : cursor.next_block - 1;
  const final = chain.checked ? chain.solid : Math.min(cursor.solid_number, chain.solid);
  const ctx = {
    clock: s.clock,
    defaultConfirmations: s.config.confirmations,
    head: chain.number,
    finalLimit: w.finalPerCommit,
  };
  let unknown: HotWalletTransfersTable[] = [];
  let reading = false;
  const more = await writeTx(s.db, async (trx) => {
    if (lease) await lease.assertHeld(trx);
    const cur = await readCursor(trx);
    // Another scan moved the cursor meanwhile (a stale process): its result stands, ours is dropped.
    if (cur && cur.next_block !== cursor.next_block) return false;
    // What left the hot wallet, matched to what paygate signed (hot-wallet.ts).
    reading = await readingPending(trx);
    unknown = await recordOutgoing(trx, s.clock.now().toISOString(), outgoing);
    const touched = new Set<string>();
    for (const f of found) {
      const { watched, block, ...transfer } = f;
      const blockTime = new Date(block.timestamp).toISOString();
      if (watched.merchantId === null) {
        const { txHash, logIndex, asset, amount, decimals, from } = transfer;
        const seen = {
          tx_hash: txHash,
          log_index: logIndex,
          asset,
          amount: amount.toString(),
          decimals,
          from_address: from,
        };
        await recordUnattributedDeposit(trx, s.clock, {
          ...seen,
          address: watched.address,
          block_number: block.number,
          block_hash: block.id,
          block_time: blockTime,
          detected_at: s.clock.now().toISOString(),
        });
        continue;
      }
      const t = await recordTransfer(trx, ctx, {
        ...transfer,
        address: watched.address,
        derivationIndex: watched.derivationIndex,
        merchantId: watched.merchantId,
        externalUserId: watched.externalUserId,
        minimumDeposit: s.catalog.get(transfer.asset)?.minimumDeposit ?? 0n,
        block: { number: block.number, hash: block.id, time: blockTime },
      });
      for (const id of t?.invoices ?? []) touched.add(id);
    }
    const lastTime = last ? new Date(last.timestamp).toISOString() : cursor.last_block_time;
    const horizon =
      lastTime && cursor.last_block_time && cursor.last_block_time > lastTime ? cursor.last_block_time : lastTime;
    if (last) {
      // Kept for finding forks: the blocks from the node's solid height up (no fork goes below it).
      await storeScanned(
        trx,
        blocks
          .filter((b) => b.number >= chain.solid || b === last)
          .map((b) => ({ number: b.number, hash: b.id, parent_hash: b.parentHash, timestamp: b.timestamp })),
      );
      await pruneScanned(trx, chain.solid, last.number);
    }
    // At most finalPerCommit deposits become final here: the cursor records the height reached.
    const reached = await advanceDeposits(trx, { ...ctx, horizon, solid: final, scannedTo }, touched);
    await writeCursor(trx, {
      next_block: last ? last.number + 1 : cursor.next_block,
      last_block_time: horizon,
      head_number: chain.number,
      solid_number: reached,
      updated_at: s.clock.now().toISOString(),
    });
    // After a restore: the held payouts matched to what left, once the chain is read far enough.
    if (reading && (await advanceReading(trx, s.clock, chain.number, reached)))
      s.logger.info({ final: reached }, 'chain watcher: the chain since the restore is read; held payouts matched');
    return reached < final;
  });
  logUnknown(s.logger, unknown, reading);
  return more;
}
