/** Row types of the watcher feature's own tables (migration 0031), joined into DB in ../schema.ts. */

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

export interface WatcherTables {
  chain_cursor: ChainCursorTable;
  scanned_blocks: ScannedBlocksTable;
}
