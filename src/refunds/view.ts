/** The Refund object as the cabinet, the console, the CLI and `refund.*` events show it. */
import type { RefundsTable } from '../db/tables/refunds.js';
import { formatUnits } from '../money.js';
import type { RefundView } from './schema.js';

export function refundView(row: RefundsTable): RefundView {
  return {
    refund_id: row.id,
    invoice_id: row.invoice_id,
    merchant_id: row.merchant_id,
    asset: row.asset,
    amount: formatUnits(row.amount, row.decimals),
    fee: formatUnits(row.fee_amount, row.decimals),
    reason: row.reason,
    exception_id: row.exception_id,
    status: row.status,
    claim_url: row.claim_url,
    address: row.address,
    payout_id: row.payout_id,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}
