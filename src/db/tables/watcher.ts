/** Row types of the watcher feature's own tables (migrations 0031, 0044, 0046), joined into DB in ../schema.ts. */

export interface ChainCursorTable {
  id: number;
  /** The next block number to scan. */
  next_block: number;
  /** ISO time of the last block scanned: the expiry horizon. */
  last_block_time: string | null;
  head_number: number;
  solid_number: number;
  updated_at: string;
}

/** Scanned blocks above the solid height, to detect forks. */
export interface ScannedBlocksTable {
  number: number;
  hash: string;
  parent_hash: string;
  timestamp: number;
}

/** The chain this database belongs to (migration 0044). */
export interface ChainIdentityTable {
  id: number;
  network: string;
  /** blockID of block 0, hex. */
  genesis_block_id: string;
  recorded_at: string;
}

/** Present while the watcher stands still because the node contradicted finality (migration 0046). */
export interface WatcherStopTable {
  id: number;
  reason: string;
  /** The height at which the node answered another block than the one scanned there. */
  height: number;
  scanned_hash: string;
  node_hash: string;
  /** The height up to which deposits were final when it stopped. */
  final_height: number;
  stopped_at: string;
  /** Set by `paygate watcher resume`: the watcher follows the node's chain once, then the row goes. */
  resumed_at: string | null;
  resumed_by: string | null;
}

export interface WatcherTables {
  chain_cursor: ChainCursorTable;
  scanned_blocks: ScannedBlocksTable;
  chain_identity: ChainIdentityTable;
  watcher_stop: WatcherStopTable;
}
