/** Row types of the accounting tables (migration 0050), joined into DB in ../schema.ts. */

/** One asset of one reserves check (src/reserves); the latest run feeds metrics and /readyz. */
export interface ReserveChecksTable {
  /** When the check began (ISO); every asset of one run shares it. */
  checked_at: string;
  asset: string;
  /** 1 when the holdings cover the liabilities (in-flight payouts allowed for), else 0. */
  covered: number;
  /** JSON of the asset's figures as decimal texts (src/reserves/service.ts AssetReserves). */
  figures: string;
}

export interface AccountingTables {
  reserve_checks: ReserveChecksTable;
}
