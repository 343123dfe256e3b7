/** Row types of the payout-worker feature's own tables (its migration), joined into DB in ../schema.ts. */

/** The operator's limits on what the payout worker sends from the hot wallet, per asset. */
export interface HotWalletLimitsTable {
  asset: string;
  /** Base units of the asset; null = no limit. */
  per_payout: string | null;
  /** Base units per UTC day (payouts first signed that day); null = no limit. */
  per_day: string | null;
  /** Highest fee_limit (sun) of a TRC20 transfer; null = the default cap. */
  fee_limit: string | null;
  updated_at: string;
  updated_by: string;
}

export interface PayoutWorkerTables {
  hot_wallet_limits: HotWalletLimitsTable;
}
