/** The Deposit object as the API shows it (inside an Invoice, or with its address in a standalone event). */
import type { DepositView } from '../invoices/schema.js';
import { formatUnits } from '../money.js';
import type { DepositRow } from './store.js';

export function depositView(row: DepositRow): DepositView {
  return {
    tx_hash: row.tx_hash,
    amount: formatUnits(row.amount, row.decimals),
    confirmations: row.confirmations,
    status: row.status === 'confirmed' ? 'confirmed' : 'seen',
    block_time: row.block_time,
    late: row.late === 1,
  };
}

/** `deposit.seen`/`deposit.confirmed` event data: the Deposit object plus where it arrived. */
export function standaloneDepositView(
  row: DepositRow,
): DepositView & { deposit_id: string; address: string; asset: string; external_user_id: string | null } {
  return {
    deposit_id: row.id,
    ...depositView(row),
    address: row.address,
    asset: row.asset,
    external_user_id: row.external_user_id,
  };
}

/** Only seen and confirmed deposits are shown; orphaned ones left the chain. */
export function liveDepositViews(rows: DepositRow[]): DepositView[] {
  return rows.filter((r) => r.status !== 'orphaned').map(depositView);
}
