/** The Invoice object exactly as the API shows it (and as `invoice.<status>` events carry it). */
import type { InvoicesTable } from '../db/schema.js';
import { formatUnits } from '../money.js';
import type { DepositView, InvoiceView } from './schema.js';

export function invoiceView(row: InvoicesTable, deposits: DepositView[] = []): InvoiceView {
  const amount = (units: string) => formatUnits(units, row.decimals);
  return {
    invoice_id: row.id,
    order_id: row.order_id,
    status: row.status,
    asset: row.asset,
    network: row.network,
    address: row.address,
    amount_requested: amount(row.amount_requested),
    amount_expected: amount(row.amount_expected),
    amount_received: amount(row.amount_received),
    amount_credited: amount(row.amount_credited),
    fees: {
      service: {
        payer: row.service_fee_payer,
        percent: row.service_fee_percent,
        amount: amount(row.service_fee_amount),
      },
      // The network cost of an invoice is included in the service fee and never borne by the customer.
      network: { payer: 'merchant', quote: null, quote_rate: null, actual: null, status: 'included' },
    },
    external_user_id: row.external_user_id,
    return_url: row.return_url,
    cancel_url: row.cancel_url,
    checkout_url: row.checkout_url ?? null,
    expires_at: row.expires_at,
    created_at: row.created_at,
    deposits,
  };
}
