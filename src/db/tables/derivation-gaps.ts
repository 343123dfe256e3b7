import type { Generated } from 'kysely';

/** Row types of the tables a restore's derivation gap fills (migration 0047), joined into DB in ../schema.ts. */

/** Deposit indexes `paygate restore` skipped, both ends included. */
export interface DerivationGapsTable {
  from_index: number;
  to_index: number;
  /** The last index whose address is watched (0057): from `from_index` to it. */
  watched_to_index: number;
  recorded_at: string;
  reason: string;
}

/** The addresses of the skipped indexes: watched, handed to no one. */
export interface UnattributedAddressesTable {
  derivation_index: number;
  address: string;
}

/** A payment to an address of a gap: seen by the operator, credited to no merchant. */
export interface UnattributedDepositsTable {
  id: Generated<number>;
  tx_hash: string;
  /** -1 for a native TRX transfer. */
  log_index: number;
  address: string;
  asset: string;
  /** Base units, integer text. */
  amount: string;
  /** The asset's decimals when it was seen, to show the amount. */
  decimals: number;
  from_address: string | null;
  block_number: number;
  block_hash: string;
  block_time: string;
  detected_at: string;
}

export interface DerivationGapTables {
  derivation_gaps: DerivationGapsTable;
  unattributed_addresses: UnattributedAddressesTable;
  unattributed_deposits: UnattributedDepositsTable;
}
