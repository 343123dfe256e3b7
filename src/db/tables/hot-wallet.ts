/** Row types of the hot wallet's record on chain (migrations 0056, 0058, 0071), joined into DB in ../schema.ts. */

/**
 * How a transfer out of the hot wallet is accounted for: `payout` (a payout's stored signed txid),
 * `sweep` (a sweep's fee top-up), `restore_match` (a transfer the restored database did not sign,
 * matched after a restore to the one held payout it pays), `acknowledged` (paygate did not sign it
 * and the operator said it was theirs: never matched to a payout), or `unknown` (paygate did not
 * sign it: the alert).
 */
export type HotTransferKind = 'payout' | 'sweep' | 'restore_match' | 'acknowledged' | 'unknown';

/**
 * Every transfer out of the hot wallet the watcher saw (TRX and the catalog's tokens), and every
 * other transaction its account owns (an act: a vote, a freeze, a permission change…).
 */
export interface HotWalletTransfersTable {
  tx_hash: string;
  /** -1 for a native TRX transfer, -2 for an act, else the Transfer log's index in its transaction. */
  log_index: number;
  /** The catalog asset moved; '' for an act (no catalog asset: its contract type says what it did). */
  asset: string;
  to_address: string;
  /** Base units, integer text. */
  amount: string;
  decimals: number;
  block_number: number;
  block_hash: string;
  block_time: string;
  kind: HotTransferKind;
  /** The payout it is (by txid, or matched after a restore); null otherwise. */
  payout_id: string | null;
  /** The sweep whose top-up it is; null otherwise. */
  sweep_id: string | null;
  detected_at: string;
  /** The transaction's contract type (migration 0071); null for a token's Transfer log and rows from before. */
  contract_type: string | null;
}

/**
 * The chain reading after a restore (one row, id 1): from the backup's height until the head seen
 * first after the restore is final, the held payouts are matched to the transfers out that the
 * restored database did not sign. `done_at` null: still reading (`payout approve` of a held
 * payout answers invalid_state).
 */
export interface RestoreReadingTable {
  id: number;
  /** First block to read: the restored cursor's next block; null when the backup had none. */
  from_block: number | null;
  /** When the backup knew the chain last (its newest payout), for a backup without a cursor. */
  from_time: string;
  /** The head the watcher saw first after the restore plus a margin: the reading is done once it is final. */
  until_block: number | null;
  started_at: string;
  started_by: string;
  done_at: string | null;
  /** Payouts marked sent from the chain, and payouts left for the operator, when done. */
  matched: number | null;
  unresolved: number | null;
}

/** The operator's word that a transfer out paygate did not sign was theirs, by txid (survives a fork). */
export interface HotWalletAcknowledgementsTable {
  tx_hash: string;
  reason: string;
  acknowledged_by: string;
  acknowledged_at: string;
}

export interface HotWalletTables {
  hot_wallet_transfers: HotWalletTransfersTable;
  hot_wallet_acknowledgements: HotWalletAcknowledgementsTable;
  restore_reading: RestoreReadingTable;
}
