/**
 * Finality is never contradicted silently. When the node shows that a block at or below the height
 * up to which deposits are final is not on its chain, the chain watcher records a stop here and
 * stands still: no rewind, no stored block forgotten, nothing credited undone or credited again.
 * While the stop holds, the payout worker and the sweeper sign nothing and `/readyz` answers 503.
 * Only the operator goes on (`paygate watcher resume`, after checking the node): the watcher then
 * follows the node's chain once, as after a fork (final deposits stay as they are), and the stop
 * goes. `paygate watcher status` shows it.
 */
import { unknownTransferCount } from './hot-wallet.js';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import type { ChainBlockHeader } from '../chain/client.js';
import type { ScannedBlocksTable, WatcherStopTable } from '../db/tables/watcher.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import type { WorkerLease } from '../runtime/lease.js';
import { lowestScanned, readCursor, scannedFrom, type Cursor } from './store.js';

export type WatcherStop = Omit<WatcherStopTable, 'id'>;

export async function readWatcherStop(db: Executor): Promise<WatcherStop | undefined> {
  return db
    .selectFrom('watcher_stop')
    .select(['reason', 'height', 'scanned_hash', 'node_hash', 'final_height', 'stopped_at', 'resumed_at', 'resumed_by'])
    .where('id', '=', 1)
    .executeTakeFirst();
}

/** The stop while it holds (not yet resumed by the operator): what keeps signing and readiness off. */
export async function finalityStop(db: Executor): Promise<WatcherStop | null> {
  const stop = await readWatcherStop(db);
  return stop && stop.resumed_at === null ? stop : null;
}

export interface Contradiction {
  height: number;
  scannedHash: string;
  nodeHash: string;
  /** The height up to which deposits were final. */
  finalHeight: number;
}

/** Records the stop (inside the watcher's write transaction); a stop already recorded stays as it was. */
export async function recordWatcherStop(trx: Tx, clock: Clock, c: Contradiction): Promise<WatcherStop> {
  const stop: WatcherStop = {
    reason: `the node answers block ${c.height} as ${c.nodeHash}, but ${c.scannedHash} was scanned at that height and deposits are final up to block ${c.finalHeight}: the node contradicts finality`,
    height: c.height,
    scanned_hash: c.scannedHash,
    node_hash: c.nodeHash,
    final_height: c.finalHeight,
    stopped_at: clock.now().toISOString(),
    resumed_at: null,
    resumed_by: null,
  };
  await trx
    .insertInto('watcher_stop')
    .values({ id: 1, ...stop })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return (await readWatcherStop(trx)) ?? stop;
}

/**
 * A block scanned at or below the final height that the node now answers with another id (the
 * node's blocks from the lowest stored one up, as a rollback reads them); null when there is none.
 */
export function finalityContradiction(
  stored: ScannedBlocksTable[],
  nodeBlocks: ChainBlockHeader[],
  finalHeight: number,
): Contradiction | null {
  for (const b of stored) {
    const theirs = b.number <= finalHeight ? nodeBlocks.find((n) => n.number === b.number) : undefined;
    if (theirs && theirs.id !== b.hash)
      return { height: b.number, scannedHash: b.hash, nodeHash: theirs.id, finalHeight };
  }
  return null;
}

/**
 * The node's solid block is another than the block scanned at its height: a solidity backend that
 * lags or lies, or a node whose chain replaced blocks down to the final ones. The stored blocks at
 * or below the final height, compared with the node's blocks there, tell which: a solid header
 * alone never stops the watcher.
 */
export async function finalBlocksContradicted(
  s: Pick<Services, 'db' | 'chain'>,
  cursor: Cursor,
): Promise<Contradiction | null> {
  const low = await lowestScanned(s.db);
  if (low === null || low > cursor.solid_number) return null;
  const [nodeBlocks, stored] = await Promise.all([
    s.chain.getScanBlocks(low, cursor.solid_number + 1),
    scannedFrom(s.db, low),
  ]);
  return finalityContradiction(stored, nodeBlocks, cursor.solid_number);
}

/**
 * Stops the watcher: records the stop under the lease's fencing check, unless another scan moved
 * the cursor meanwhile, and says so. Nothing else is written (no rewind, no block forgotten).
 */
export async function stopWatcher(
  s: Pick<Services, 'db' | 'clock' | 'logger'>,
  lease: WorkerLease | null,
  cursor: Cursor,
  c: Contradiction,
): Promise<void> {
  const stop = await writeTx(s.db, async (trx) => {
    if (lease) await lease.assertHeld(trx);
    const cur = await readCursor(trx);
    if (!cur || cur.next_block !== cursor.next_block) return null;
    return recordWatcherStop(trx, s.clock, c);
  });
  if (stop)
    s.logger.error(
      { ...c, reason: stop.reason },
      'chain watcher stopped: the node contradicts finality; payouts and sweeps stop too. Check the node, then run paygate watcher resume',
    );
}

/** After the watcher's first tick that followed the node's chain: the resumed stop goes. */
export async function clearResumedStop(trx: Tx, stoppedAt: string): Promise<void> {
  await trx
    .deleteFrom('watcher_stop')
    .where('id', '=', 1)
    .where('stopped_at', '=', stoppedAt)
    .where('resumed_at', 'is not', null)
    .execute();
}

export interface WatcherStatus {
  /** running; stopped (the node contradicted finality); resuming (resumed, the watcher not yet past it). */
  state: 'running' | 'stopped' | 'resuming';
  next_block: number | null;
  head_block: number | null;
  /** Deposits are final up to this block. */
  final_block: number | null;
  last_block_time: string | null;
  updated_at: string | null;
  /** Transfers out of the hot wallet that paygate did not sign (hot-wallet.ts): the alert's count. */
  unknown_hot_wallet_transfers: number;
  stop: WatcherStop | null;
}

export async function watcherStatus(db: Executor): Promise<WatcherStatus> {
  const [cursor, stop, unknown] = await Promise.all([readCursor(db), readWatcherStop(db), unknownTransferCount(db)]);
  return {
    state: stop === undefined ? 'running' : stop.resumed_at === null ? 'stopped' : 'resuming',
    next_block: cursor?.next_block ?? null,
    head_block: cursor?.head_number ?? null,
    final_block: cursor?.solid_number ?? null,
    last_block_time: cursor?.last_block_time ?? null,
    updated_at: cursor?.updated_at ?? null,
    unknown_hot_wallet_transfers: unknown,
    stop: stop ?? null,
  };
}

/** `paygate watcher resume`: the operator checked the node; the watcher follows its chain. */
export async function resumeWatcher(db: Db, clock: Clock, actor: string): Promise<WatcherStatus> {
  return writeTx(db, async (trx) => {
    const stop = await readWatcherStop(trx);
    if (!stop) throw new AppError('invalid_state', 'The chain watcher is not stopped; nothing to resume');
    if (stop.resumed_at !== null)
      throw new AppError(
        'invalid_state',
        `The chain watcher was already resumed by ${stop.resumed_by} at ${stop.resumed_at}; it goes on at its next tick`,
      );
    const at = clock.now().toISOString();
    await trx.updateTable('watcher_stop').set({ resumed_at: at, resumed_by: actor }).where('id', '=', 1).execute();
    await recordAudit(trx, clock, {
      actor,
      action: 'watcher.resume',
      subjectType: 'watcher',
      subjectId: 'chain-watcher',
      details: {
        height: stop.height,
        scanned_hash: stop.scanned_hash,
        node_hash: stop.node_hash,
        final_height: stop.final_height,
        stopped_at: stop.stopped_at,
      },
    });
    return watcherStatus(trx);
  });
}
