/** The Payout object exactly as the API shows it (and as `payout.<status>` events carry it). */
import type { PayoutsTable } from '../db/schema.js';
import { formatUnits } from '../money.js';
import type { PayoutView, ReviewReason } from './schema.js';

export function payoutView(row: PayoutsTable): PayoutView {
  const amount = (units: string) => formatUnits(units, row.decimals);
  return {
    payout_id: row.id,
    reference: row.reference,
    status: row.status,
    asset: row.asset,
    network: row.network,
    to_address: row.to_address,
    amount: amount(row.amount),
    fees: { network: { payer: 'merchant', amount: amount(row.fee_amount), charged: amount(row.fee_charged) } },
    review_reasons: JSON.parse(row.review_reasons) as ReviewReason[],
    tx_hash: row.tx_hash,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
