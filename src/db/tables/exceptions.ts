/** Row types of the exceptions (migration 0060), joined into DB in ../schema.ts. */

/** What went wrong (docs/exceptions.md). */
export type ExceptionKind = 'underpaid' | 'overpaid' | 'paid_late' | 'foreign_asset' | 'unattributed' | 'payout_held';

export const EXCEPTION_KINDS: readonly ExceptionKind[] = [
  'underpaid',
  'overpaid',
  'paid_late',
  'foreign_asset',
  'unattributed',
  'payout_held',
];

/** A payment or payout that needs a person: open until resolved (by a note, a refund or the hold lifting). */
export interface ExceptionsTable {
  id: string;
  kind: ExceptionKind;
  /** Null for `unattributed` (no merchant issued the address). */
  merchant_id: string | null;
  invoice_id: string | null;
  payout_id: string | null;
  /** The deposit's id; for `unattributed` the id of its `unattributed_deposits` row. */
  deposit_id: string | null;
  asset: string;
  /** Base units, integer text: the shortfall, the excess, the late amount or the deposit's amount. */
  amount: string;
  decimals: number;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  /** The account id, operator token id, `cli:<user>` or `system` that resolved it. */
  resolved_by: string | null;
  resolution_note: string | null;
  /** The refund that resolved it, when one did. */
  refund_id: string | null;
}

export interface ExceptionTables {
  exceptions: ExceptionsTable;
}
